import { index, type RouteConfig, route } from "@react-router/dev/routes";

/** The whole URL space of the site. */
export default [
  index("routes/home.tsx"),
  route("services", "routes/services.tsx"),
  route("blog", "routes/blog.tsx"),
  route("blog/:slug", "routes/blog-post.tsx"),
  route("contact", "routes/contact.tsx"),
  route("contact/sent", "routes/contact-sent.tsx"),
  route("imprint", "routes/imprint.tsx"),
  // Files for crawlers and readers (prerendered; not part of the client-rendered baseline).
  ...(process.env.SPA_BASELINE === "1"
    ? []
    : [
        route("blog/rss.xml", "routes/rss.ts"),
        route("sitemap.xml", "routes/sitemap.ts"),
        route("robots.txt", "routes/robots.ts"),
        route(".well-known/security.txt", "routes/security-txt.ts"),
        route("site.webmanifest", "routes/manifest.ts"),
      ]),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
