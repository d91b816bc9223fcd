import { data } from "react-router";
import { pageMeta } from "~/lib/seo";
import type { Route } from "./+types/not-found";

/** Every unknown path: a designed page with HTTP status 404. */
export function loader() {
  throw data(null, { status: 404 });
}

export const meta: Route.MetaFunction = () => [
  ...pageMeta({ title: "Page not found", description: "This page does not exist.", path: "/404" }),
  { name: "robots", content: "noindex" },
];

export default function NotFoundRoute() {
  return null;
}
