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
import { DAY_MS } from "../../time.ts";
import type { KeyRing } from "../keys.ts";
import { type Inquiry, type SpamVerdict, verdictOf } from "../storage/records.ts";

/**
 * The signed links in every lead and in the morning digest: capability links (ADR 0016, 0017). A token
 * names one inquiry and one action (or the overview), expires, and is an HMAC with the `links` key
 * kept in the database: every instance checks the same links, a restored backup keeps them working.
 */

type Refused = { ok: false; reason: "invalid" | "expired" | "retired" };
type LinkCheck<A extends string = ReviewAction> =
  | { ok: true; inquiryId: string; action: A; expires: number }
  | Refused;
export type LeadLink = { action: ReviewAction; label: string; url: string };

const FITTING: Record<SpamVerdict, ReviewAction[]> = {
  clean: ["take", "spam"],
  suspect: ["take", "spam", "not-spam"],
  held: ["not-spam"],
};
const KEY_ID = /^[a-z0-9]{1,16}$/;
/** The morning digest's link to the overview page names no inquiry and works this long. */
const OVERVIEW_DAYS = 5;
const OVERVIEW = "overview";
const sign = (key: Buffer, payload: string) =>
  createHmac("sha256", key).update(payload).digest("base64url");

export function leadLinks(ring: KeyRing, config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">) {
  const linkMs = config.INQUIRY_LINK_DAYS * DAY_MS;
  const signed = (head: string, expires: number) => {
    const key = ring.signing("links");
    const payload = `${head}.${Math.ceil(expires / 1000).toString(36)}.${key.id}`;
    return `${payload}.${sign(key.secret, payload)}`;
  };
  // A link handed out by a page that another link opened (the overview's, the lead page's "Not spam")
  // expires with that link: `expires`, never past a link's usual life.
  const token = (
    inquiryId: string,
    action: string,
    now = Date.now(),
    expires = Number.POSITIVE_INFINITY,
  ) => signed(`${inquiryId}.${action}`, Math.min(expires, now + linkMs));
  const check = async (parts: string[], now: number) => {
    const [expires = "", keyId = "", signature = ""] = parts.slice(-3);
    if (!KEY_ID.test(keyId)) return "invalid";
    const key = await ring.find("links", keyId, now);
    if (!key) return ring.wasIssued("links", keyId) ? "retired" : "invalid";
    const expected = Buffer.from(sign(key, parts.slice(0, -1).join(".")));
    const actual = Buffer.from(signature);
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return "invalid";
    const expiresMs = Number.parseInt(expires, 36) * 1000;
    return expiresMs <= now ? "expired" : expiresMs;
  };
  return {
    days: config.INQUIRY_LINK_DAYS,
    token,
    overview(now = Date.now()) {
      const expires = now + OVERVIEW_DAYS * DAY_MS;
      const url = new URL(OVERVIEW_PATH, config.SITE_URL);
      url.searchParams.set(LEAD_TOKEN_FIELD, signed(OVERVIEW, expires));
      return { url: url.href, expires };
    },
    async verifyOverview(
      given: string,
      now = Date.now(),
    ): Promise<{ ok: true; expires: number } | Refused> {
      const parts = given.split(".");
      if (parts.length !== 4 || parts[0] !== OVERVIEW) return { ok: false, reason: "invalid" };
      const checked = await check(parts, now);
      return typeof checked === "number"
        ? { ok: true, expires: checked }
        : { ok: false, reason: checked };
    },
    for: (
      inquiry: Pick<Inquiry, "id" | "held" | "suspect">,
      now = Date.now(),
      expires?: number,
    ): LeadLink[] =>
      FITTING[verdictOf(inquiry)].map((action) => {
        const url = new URL(LEAD_PATH, config.SITE_URL);
        url.searchParams.set(LEAD_TOKEN_FIELD, token(inquiry.id, action, now, expires));
        return { action, label: ACTION_LABEL[action], url: url.href };
      }),
    async verify<A extends string = ReviewAction>(
      given: string,
      now = Date.now(),
      only?: A[],
    ): Promise<LinkCheck<A>> {
      const actions: readonly string[] = only ?? Object.keys(ACTION_LABEL);
      const parts = given.split(".");
      const [inquiryId = "", action = ""] = parts;
      if (parts.length !== 5) return { ok: false, reason: "invalid" };
      const checked = await check(parts, now);
      if (typeof checked !== "number") return { ok: false, reason: checked };
      if (!actions.includes(action)) return { ok: false, reason: "invalid" };
      return { ok: true, inquiryId, action: action as A, expires: checked };
    },
  };
}

export type LeadLinks = ReturnType<typeof leadLinks>;

export function siteUrlProblem(
  config: Pick<Config, "SITE_URL" | "siteUrlSet">,
  leadsLeave: boolean,
): string | null {
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
