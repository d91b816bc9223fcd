import { robots } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/robots.txt (react-router.config.ts). */
export function loader() {
  return new Response(robots(), { headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
