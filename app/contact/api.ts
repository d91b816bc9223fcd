/**
 * The contact API's public contract (spec §7), for the page, the server and the tools alike.
 *
 * Its path on this server. The page posts to CONTACT_ENDPOINT (build time), which defaults to it.
 */
export const CONTACT_API_PATH = "/functions/v1/send-email";

/**
 * The contact endpoint's anonymous public key (spec §7: "Authorization: Bearer {token}, an
 * anonymous public key embedded in the page"). It is public — every visitor's browser gets it —
 * and not a secret: it identifies the calling site, like a hosted function's anon key, and stops
 * no determined sender on its own (the spam defences do that). Override it with
 * CONTACT_PUBLIC_KEY, at build time (the page embeds it) and at run time (the server checks it):
 * one `.env` serves both.
 */
export const DEFAULT_PUBLIC_KEY = "pk_public_teton_contact_2025";

/** The key in force: CONTACT_PUBLIC_KEY when set, else the default. */
export function contactPublicKey(value: string | undefined): string {
  return value?.trim() || DEFAULT_PUBLIC_KEY;
}
