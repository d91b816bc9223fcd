import type { RouterContextProvider } from "react-router";
import { postsFor } from "#app/content/blog.server.ts";
import { sitemap } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/sitemap.xml (react-router.config.ts). */
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return new Response(sitemap(postsFor(context)), {
    headers: { "Content-Type": "application/xml; charset=utf-8" },
  });
}
