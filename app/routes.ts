import { index, type RouteConfig, route } from "@react-router/dev/routes";
import { BOOK_MODULE, BOOK_PATH } from "#app/contact/booking.ts";
import { LEAD_MODULE, LEAD_PATH, OVERVIEW_MODULE, OVERVIEW_PATH } from "#app/contact/lead.ts";
import { files, pages } from "#app/pages.ts";

/** The whole URL space of the site: the pages and files of pages.ts, then "not found" for the rest. */
export default [
  ...[...pages, ...files].map((p) =>
    p.path === "/" ? index(p.module) : route(p.path.slice(1), p.module),
  ),
  // Not a page of the site: the server renders it for the signed links in a lead (never prerendered).
  route(LEAD_PATH.slice(1), LEAD_MODULE),
  route(OVERVIEW_PATH.slice(1), OVERVIEW_MODULE),
  route(BOOK_PATH.slice(1), BOOK_MODULE),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
