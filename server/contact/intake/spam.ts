import type { ContactInput } from "../../../app/contact/schema.ts";
import type { Config } from "../../config.ts";
import type { TokenCheck } from "./form-token.ts";

/**
 * Is this submission a person's? Each layer names what it saw; any reason holds the inquiry: stored
 * and answered like any other (a bot learns nothing), delivered nowhere (ADR 0007).
 */

export const MIN_FILL_MS = 3_000;
export const FORM_TOKEN_MAX_AGE_MS = 24 * 60 * 60_000;
export const MAX_LINKS = 2;

const URL_LIKE = /\b(?:https?:\/\/|www\.)\S+|\[url[=\]]|<a\s+href/gi;
const URL_ANYWHERE = new RegExp(URL_LIKE.source, "i");

export function spamReasons(s: {
  data: ContactInput;
  trap: string;
  token: TokenCheck | null;
  duplicate: boolean;
  policy: Pick<Config, "SPAM_MIN_FILL_MS" | "FORM_TOKEN_MAX_AGE_MS" | "SPAM_MAX_LINKS">;
}): string[] {
  const reasons: string[] = [];
  if (s.trap) reasons.push("honeypot filled");
  // No token to check (an allowed origin's app): the content layer weighs that instead (NO_TOKEN_LOG2_ODDS).
  const token = s.token;
  if (token && !token.ok) reasons.push(token.reason);
  else if (token && token.ageMs < s.policy.SPAM_MIN_FILL_MS)
    reasons.push(`sent ${Math.round(token.ageMs)} ms after the page`);
  else if (token && token.ageMs > s.policy.FORM_TOKEN_MAX_AGE_MS) reasons.push("form token expired");
  const links = s.data.message.match(URL_LIKE)?.length ?? 0;
  if (links > s.policy.SPAM_MAX_LINKS) reasons.push(`${links} links in the message`);
  if (URL_ANYWHERE.test(s.data.name) || URL_ANYWHERE.test(s.data.company)) reasons.push("a link as name or company");
  if (s.duplicate) reasons.push("the same message was received in the last 24 hours");
  return reasons;
}
