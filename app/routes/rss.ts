import type { RouterContextProvider } from "react-router";
import { postsFor } from "#app/content/blog.server.ts";
import { rss } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/blog/rss.xml (react-router.config.ts). */
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return new Response(rss(postsFor(context)), {
    headers: { "Content-Type": "application/rss+xml; charset=utf-8" },
  });
}
