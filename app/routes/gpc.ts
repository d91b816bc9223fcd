import { site } from "#app/config/site.ts";

/**
 * Prerendered to build/client/.well-known/gpc.json: the site honours Global Privacy Control
 * (https://privacycg.github.io/gpc-spec/). It sells and shares nothing and sets no cookie, so a
 * visitor's GPC signal asks for what the site already does; the privacy notice says so.
 */
export function loader() {
  const lastUpdate = new Date(`${site.privacy.effectiveDate} UTC`).toISOString().slice(0, 10);
  return Response.json(
    { gpc: true, lastUpdate },
    { headers: { "Content-Type": "application/json" } },
  );
}
