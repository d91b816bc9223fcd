import { data } from "react-router";

/**
 * The answer of a page behind a signed link (/lead, /overview, /book): a link that does not work
 * has its own status (400 forged, 410 expired or its key retired, 404 erased, 429 with
 * Retry-After, 503 storage down); any page the link does show is a 200.
 */
const FAILED: Record<string, number> = {
  invalid: 400,
  expired: 410,
  retired: 410,
  gone: 404,
  "rate-limited": 429,
  unavailable: 503,
};

export const linkAnswer = <V extends { kind: string }>(view: V) =>
  data(view, {
    status: FAILED[view.kind] ?? 200,
    headers:
      "retryAfterSeconds" in view && view.kind === "rate-limited"
        ? { "Retry-After": String(view.retryAfterSeconds) }
        : undefined,
  });
