import { securityTxt } from "#app/lib/feeds.server.ts";

/** Prerendered to build/client/.well-known/security.txt (react-router.config.ts). */
export function loader() {
  return new Response(securityTxt(), { headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
