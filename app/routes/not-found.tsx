import { data } from "react-router";
import { site } from "#app/config/site.ts";
import type { Route } from "./+types/not-found";

/** Every unknown path: a designed page with HTTP status 404. */
export function loader() {
  throw data(null, { status: 404 });
}

export const meta: Route.MetaFunction = () => [
  { title: `Page not found | ${site.name}` },
  { name: "description", content: "This page does not exist." },
  { name: "robots", content: "noindex" },
];

export default function NotFoundRoute() {
  return null;
}
