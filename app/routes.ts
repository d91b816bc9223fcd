import { index, type RouteConfig, route } from "@react-router/dev/routes";

/** The whole URL space of the site. */
export default [
  index("routes/home.tsx"),
  route("services", "routes/services.tsx"),
  route("blog", "routes/blog.tsx"),
  route("blog/:slug", "routes/blog-post.tsx"),
  route("contact", "routes/contact.tsx"),
  route("imprint", "routes/imprint.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
