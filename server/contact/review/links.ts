import { createHmac, timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";
import { ACTION_LABEL, LEAD_PATH, LEAD_TOKEN_FIELD, type ReviewAction } from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { type Inquiry, type SpamVerdict, verdictOf } from "../storage/records.ts";

/**
 * The signed links in every lead (email, Slack, webhook) and in the held summary: capability links,
 * as unsubscribe links are. A token names one inquiry and one action, expires, and is an HMAC with
 * a key made from the server's secret (IP_HASH_KEY, or the key file in DATA_DIR: every instance
 * that shares one signs and checks the same links). ADR 0016.
 */

export type LinkCheck =
  | { ok: true; inquiryId: string; action: ReviewAction }
  | { ok: false; reason: "invalid" | "expired" };

export type LeadLink = { action: ReviewAction; label: string; url: string };

const ACTIONS: readonly ReviewAction[] = ["spam", "release"];
/** The links that fit each verdict: a lead "Spam" (and "Not spam" when possible spam); a held one "Not spam". */
const FITTING: Record<SpamVerdict, ReviewAction[]> = {
  clean: ["spam"],
  suspect: ["spam", "release"],
  held: ["release"],
};
/** Links signed before "release" was the word for "not spam" still work until they expire. */
const FORMER: Record<string, ReviewAction> = { lead: "release" };
const ID = /^[0-9a-f-]{36}$/;

export function leadLinks(secret: string, config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">) {
  const key = createHmac("sha256", secret).update("lead-link:v1").digest();
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  const ttlMs = config.INQUIRY_LINK_DAYS * 86_400_000;

  const token = (inquiryId: string, action: ReviewAction, now = Date.now()) => {
    const payload = `${inquiryId}.${action}.${Math.ceil((now + ttlMs) / 1000).toString(36)}`;
    return `${payload}.${sign(payload)}`;
  };
  const url = (inquiryId: string, action: ReviewAction, now = Date.now()) => {
    const u = new URL(LEAD_PATH, config.SITE_URL);
    u.searchParams.set(LEAD_TOKEN_FIELD, token(inquiryId, action, now));
    return u.href;
  };

  return {
    token,
    /** The links that fit an inquiry's state (FITTING). */
    for(inquiry: Pick<Inquiry, "id" | "held" | "suspect">, now = Date.now()): LeadLink[] {
      return FITTING[verdictOf(inquiry)].map((action) => ({
        action,
        label: ACTION_LABEL[action],
        url: url(inquiry.id, action, now),
      }));
    },
    verify(given: string, now = Date.now()): LinkCheck {
      const parts = given.split(".");
      if (parts.length !== 4) return { ok: false, reason: "invalid" };
      const [inquiryId = "", named = "", expires = "", signature = ""] = parts;
      const action = Object.hasOwn(FORMER, named) ? FORMER[named] : named;
      const expected = Buffer.from(sign(parts.slice(0, 3).join(".")));
      const actual = Buffer.from(signature);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
        return { ok: false, reason: "invalid" };
      if (!ID.test(inquiryId) || !ACTIONS.includes(action as ReviewAction)) return { ok: false, reason: "invalid" };
      if (Number.parseInt(expires, 36) * 1000 <= now) return { ok: false, reason: "expired" };
      return { ok: true, inquiryId, action: action as ReviewAction };
    },
  };
}

export type LeadLinks = ReturnType<typeof leadLinks>;

/** This machine: where plain http cannot be read on the way. */
const isLoopback = (host: string) => {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === "loopback";
};

/**
 * Why the links in a lead would be wrong with this SITE_URL in production (NODE_ENV=production), or
 * null: they would point at someone else's site (not set), lose a path, carry a password, or travel
 * readable (http:// to anything but this machine). The server refuses to start on it (server/main.ts).
 */
export function siteUrlProblem(config: Pick<Config, "SITE_URL" | "siteUrlSet" | "NODE_ENV">): string | null {
  if (config.NODE_ENV !== "production") return null;
  const why = "the links in a lead point at it";
  if (!config.siteUrlSet)
    return `SITE_URL: not set; in production ${why}, and they would go to ${config.SITE_URL}: set the site's public https:// address`;
  const url = new URL(config.SITE_URL);
  if (url.username || url.password)
    return `SITE_URL: has user:password, which ${why} would copy into every link: give the address without it`;
  if (url.pathname !== "/" || url.search || url.hash)
    return `SITE_URL: has a path, query or fragment (${url.pathname}${url.search}${url.hash}), which ${why} would drop: give the origin only, like https://www.example.com`;
  if (url.protocol === "http:" && !isLoopback(url.hostname))
    return "SITE_URL: http:// would send the links in a lead, tokens included, readable over the network: use https:// (http:// only for localhost)";
  return null;
}
