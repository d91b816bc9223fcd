import { allPosts } from "#app/content/blog.server.ts";
import { sitemap } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/sitemap.xml (react-router.config.ts). */
export function loader() {
  return new Response(sitemap(allPosts()), { headers: { "Content-Type": "application/xml; charset=utf-8" } });
}
