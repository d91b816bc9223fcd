import { allPosts } from "~/content/blog.server";
import { sitemap } from "~/lib/feeds.server";

/** Prerendered to build/client/sitemap.xml (react-router.config.ts). */
export function loader() {
  return new Response(sitemap(allPosts()), { headers: { "Content-Type": "application/xml; charset=utf-8" } });
}
