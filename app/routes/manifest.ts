import { webManifest } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/site.webmanifest (react-router.config.ts). */
export function loader() {
  return new Response(webManifest(), {
    headers: { "Content-Type": "application/manifest+json; charset=utf-8" },
  });
}
