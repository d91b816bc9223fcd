import { createHmac, timingSafeEqual } from "node:crypto";
import {
  ACTION_LABEL,
  LEAD_PATH,
  LEAD_TOKEN_FIELD,
  OVERVIEW_PATH,
  type ReviewAction,
} from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { isLoopbackHost } from "../../guards.ts";
import type { KeyRing } from "../keys.ts";
import { type Inquiry, type SpamVerdict, verdictOf } from "../storage/records.ts";

/**
 * The signed links in every lead (email, Slack, webhook) and in the morning digest: capability links,
 * as unsubscribe links are. A token names one inquiry and one action, expires, and is an HMAC with
 * the `links` key of the ring (keys.ts), kept in the database: every instance on it signs and checks
 * the same links, and a restored backup keeps them working. ADR 0016, 0017.
 */

export type LinkCheck =
  | { ok: true; inquiryId: string; action: ReviewAction; expires: number }
  | { ok: false; reason: "invalid" | "expired" | "retired" };

export type LeadLink = { action: ReviewAction; label: string; url: string };

const ACTIONS: readonly ReviewAction[] = ["spam", "not-spam", "take"];
/**
 * The links that fit each verdict: a lead "I'm on it" and "Spam" (and "Not spam" when possible
 * spam); a held one "Not spam".
 */
const FITTING: Record<SpamVerdict, ReviewAction[]> = {
  clean: ["take", "spam"],
  suspect: ["take", "spam", "not-spam"],
  held: ["not-spam"],
};
const ID = /^[0-9a-f-]{36}$/;
const KEY_ID = /^[a-z0-9]{1,16}$/;

/** The morning digest's link to the overview page (digest.ts) names no inquiry and works this long. */
export const OVERVIEW_DAYS = 5;
const OVERVIEW = "overview";

const sign = (key: Buffer, payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

export function leadLinks(ring: KeyRing, config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">) {
  const ttlMs = config.INQUIRY_LINK_DAYS * 86_400_000;

  const token = (inquiryId: string, action: ReviewAction, now = Date.now(), expires = now + ttlMs) => {
    const key = ring.signing("links");
    const payload = `${inquiryId}.${action}.${Math.ceil(expires / 1000).toString(36)}.${key.id}`;
    return `${payload}.${sign(key.secret, payload)}`;
  };
  const url = (inquiryId: string, action: ReviewAction, now = Date.now()) => {
    const u = new URL(LEAD_PATH, config.SITE_URL);
    u.searchParams.set(LEAD_TOKEN_FIELD, token(inquiryId, action, now));
    return u.href;
  };

  /** The signature, key and expiry of a token's parts (the last four), checked. */
  const check = async (parts: string[], now: number) => {
    const [expires = "", keyId = ""] = parts.slice(-3, -1);
    if (!KEY_ID.test(keyId)) return "invalid";
    const key = await ring.find("links", keyId, now);
    // Signed by this server with a key since retired and deleted (a rotation): said as such; an id
    // never made is a forgery.
    if (!key) return ring.wasIssued("links", keyId) ? "retired" : "invalid";
    const expected = Buffer.from(sign(key, parts.slice(0, -1).join(".")));
    const actual = Buffer.from(parts.at(-1) ?? "");
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return "invalid";
    const expiresMs = Number.parseInt(expires, 36) * 1000;
    return expiresMs <= now ? "expired" : expiresMs;
  };

  return {
    /** How many days a link works. */
    days: config.INQUIRY_LINK_DAYS,
    token,
    overview(now = Date.now()) {
      const key = ring.signing("links");
      const expires = now + OVERVIEW_DAYS * 86_400_000;
      const payload = `${OVERVIEW}.${Math.ceil(expires / 1000).toString(36)}.${key.id}`;
      const u = new URL(OVERVIEW_PATH, config.SITE_URL);
      u.searchParams.set(LEAD_TOKEN_FIELD, `${payload}.${sign(key.secret, payload)}`);
      return { url: u.href, expires };
    },
    async verifyOverview(given: string, now = Date.now()): Promise<"invalid" | "expired" | "retired" | null> {
      const parts = given.split(".");
      if (parts.length !== 4 || parts[0] !== OVERVIEW) return "invalid";
      const checked = await check(parts, now);
      return typeof checked === "number" ? null : checked;
    },
    for(inquiry: Pick<Inquiry, "id" | "held" | "suspect">, now = Date.now()): LeadLink[] {
      return FITTING[verdictOf(inquiry)].map((action) => ({
        action,
        label: ACTION_LABEL[action],
        url: url(inquiry.id, action, now),
      }));
    },
    async verify(given: string, now = Date.now()): Promise<LinkCheck> {
      const parts = given.split(".");
      if (parts.length !== 5) return { ok: false, reason: "invalid" };
      const [inquiryId = "", action = ""] = parts;
      const checked = await check(parts, now);
      if (typeof checked !== "number") return { ok: false, reason: checked };
      if (!ID.test(inquiryId) || !ACTIONS.includes(action as ReviewAction)) return { ok: false, reason: "invalid" };
      return { ok: true, inquiryId, action: action as ReviewAction, expires: checked };
    },
  };
}

export type LeadLinks = ReturnType<typeof leadLinks>;

/**
 * Why the links in a lead would be wrong with this SITE_URL, or null. Set, it must be an origin
 * (no path, no user:password) over https (http only to this machine). Unset, the links would point
 * at the default www.example.com: refused once leads leave this machine (`leadsLeave`: a relay,
 * Slack or a webhook is configured); with only the .eml files of DATA_DIR/mail (a laptop's
 * `npm start`) the start goes on.
 */
export function siteUrlProblem(config: Pick<Config, "SITE_URL" | "siteUrlSet">, leadsLeave: boolean): string | null {
  const why = "the links in a lead point at it";
  if (!config.siteUrlSet)
    return leadsLeave
      ? `SITE_URL: not set; ${why}, and they would go to ${config.SITE_URL}: set the site's public https:// address`
      : null;
  const url = new URL(config.SITE_URL);
  if (url.username || url.password)
    return `SITE_URL: has user:password, which ${why} would copy into every link: give the address without it`;
  if (url.pathname !== "/" || url.search || url.hash)
    return `SITE_URL: has a path, query or fragment (${url.pathname}${url.search}${url.hash}), which ${why} would drop: give the origin only, like https://www.example.com`;
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    return "SITE_URL: http:// would send the links in a lead, tokens included, readable over the network: use https:// (http:// only for localhost)";
  return null;
}
