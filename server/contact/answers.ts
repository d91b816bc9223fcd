import type { Outcome } from "./service.ts";
import type { Answer } from "./store.ts";

/**
 * The JSON endpoint's answer to each outcome (spec §7: 201 with the inquiry's id). The same answer
 * is stored with an Idempotency-Key, so a repeated request gets exactly the first one again.
 */

export const SUCCESS_MESSAGE = "Thank you. Your message has been received.";
export const KEY_REUSED =
  "This Idempotency-Key was already used with a different message. Use a new key for a new message.";
export const TOO_MANY = "Too many messages from your network. Please try again later or email us directly.";

export function jsonAnswer(outcome: Outcome): Answer & { headers?: Record<string, string> } {
  switch (outcome.kind) {
    case "stored":
      return { status: 201, body: { ok: true, id: outcome.id, message: SUCCESS_MESSAGE } };
    case "duplicate":
      return outcome.first;
    case "key-reused":
      return { status: 422, body: { error: KEY_REUSED } };
    case "invalid":
      return { status: 400, body: { error: outcome.error, fields: outcome.fields } };
    case "rate-limited":
      return { status: 429, body: { error: TOO_MANY }, headers: { "Retry-After": String(outcome.retryAfterSeconds) } };
  }
}
