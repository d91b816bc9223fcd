import { index, type RouteConfig, route } from "@react-router/dev/routes";
import { files, pages } from "#app/pages.ts";

/** The whole URL space of the site: the pages and files of pages.ts, then "not found" for the rest. */
export default [
  ...[...pages, ...files].map((p) => (p.path === "/" ? index(p.module) : route(p.path.slice(1), p.module))),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
