import { createHmac, timingSafeEqual } from "node:crypto";
import { LEAD_PATH, LEAD_TOKEN_FIELD, type LeadActionName } from "../../app/contact/lead.ts";
import type { Config } from "../config.ts";
import { type Inquiry, type SpamVerdict, verdictOf } from "./storage/records.ts";

/**
 * The signed links in every lead (email, Slack, webhook) and in the held summary: capability links,
 * as unsubscribe links are. A token names one inquiry and one action, expires, and is an HMAC with
 * a key made from the server's secret (IP_HASH_KEY, or the key file in DATA_DIR: every instance
 * that shares one signs and checks the same links). ADR 0016.
 */

export type LinkCheck =
  | { ok: true; inquiryId: string; action: LeadActionName }
  | { ok: false; reason: "invalid" | "expired" };

export type LeadLink = { action: LeadActionName; label: string; url: string };

const ACTIONS: readonly LeadActionName[] = ["spam", "lead"];
/** The links that fit each verdict: a lead "Spam" (and "It's a lead" when possible spam); a held one "Not spam — deliver it". */
const FITTING: Record<SpamVerdict, LeadActionName[]> = { clean: ["spam"], suspect: ["spam", "lead"], held: ["lead"] };
const ID = /^[0-9a-f-]{36}$/;

export function leadLinks(secret: string, config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">) {
  const key = createHmac("sha256", secret).update("lead-link:v1").digest();
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  const ttlMs = config.INQUIRY_LINK_DAYS * 86_400_000;

  const token = (inquiryId: string, action: LeadActionName, now = Date.now()) => {
    const payload = `${inquiryId}.${action}.${Math.ceil((now + ttlMs) / 1000).toString(36)}`;
    return `${payload}.${sign(payload)}`;
  };
  const url = (inquiryId: string, action: LeadActionName, now = Date.now()) => {
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
        label: labelOf(action, inquiry.held),
        url: url(inquiry.id, action, now),
      }));
    },
    verify(given: string, now = Date.now()): LinkCheck {
      const parts = given.split(".");
      if (parts.length !== 4) return { ok: false, reason: "invalid" };
      const [inquiryId = "", action = "", expires = "", signature = ""] = parts;
      const expected = Buffer.from(sign(parts.slice(0, 3).join(".")));
      const actual = Buffer.from(signature);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
        return { ok: false, reason: "invalid" };
      if (!ID.test(inquiryId) || !ACTIONS.includes(action as LeadActionName)) return { ok: false, reason: "invalid" };
      if (Number.parseInt(expires, 36) * 1000 <= now) return { ok: false, reason: "expired" };
      return { ok: true, inquiryId, action: action as LeadActionName };
    },
  };
}

export type LeadLinks = ReturnType<typeof leadLinks>;

/** A button's words: "Spam"; "Not spam — deliver it" for a held message, "It's a lead" for a delivered one. */
export const labelOf = (action: LeadActionName, held = false) =>
  action === "spam" ? "Spam" : held ? "Not spam — deliver it" : "It's a lead";
