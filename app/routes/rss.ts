import { allPosts } from "#app/content/blog.server.ts";
import { rss } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/blog/rss.xml (react-router.config.ts). */
export function loader() {
  return new Response(rss(allPosts()), { headers: { "Content-Type": "application/rss+xml; charset=utf-8" } });
}
