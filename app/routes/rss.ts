import { allPosts } from "~/content/blog.server";
import { rss } from "~/lib/feeds.server";

/** Prerendered to build/client/blog/rss.xml (react-router.config.ts). */
export function loader() {
  return new Response(rss(allPosts()), { headers: { "Content-Type": "application/rss+xml; charset=utf-8" } });
}
