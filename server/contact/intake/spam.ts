import type { ContactInput } from "../../../app/contact/schema.ts";
import type { Config } from "../../config.ts";
import { DAY_MS } from "../../time.ts";
import type { Database } from "../storage/database.ts";
import { seenMessage } from "../storage/inquiries.ts";
import { type ContentFilter, reasonOf } from "./content-filter.ts";
import type { FormTokens } from "./form-token.ts";

/**
 * Is this submission a person's? Each layer names what it saw; any reason holds the inquiry: stored
 * and answered like any other (a bot learns nothing), delivered nowhere (ADR 0007).
 */

// A page of an allowed origin cannot send a form token: its absence weighs in the score instead of
// holding, odds times √2 (times 4 marked 18% of genuine inquiries of unseen kinds; √2, 5%: ADR 0022).
export const NO_TOKEN_LOG2_ODDS = 0.5;

const URL_LIKE = /\b(?:https?:\/\/|www\.)\S+|\[url[=\]]|<a\s+href/gi;
const URL_ANYWHERE = new RegExp(URL_LIKE.source, "i");

type Seen = {
  data: ContactInput;
  trap: string;
  formToken?: string;
  fromAllowedOrigin?: boolean;
  messageHash: string;
};

export async function spamVerdict(
  {
    db,
    tokens,
    content,
    config,
  }: { db: Database; tokens: FormTokens; content: ContentFilter; config: Config },
  { data, trap, formToken, fromAllowedOrigin, messageHash }: Seen,
  now: number,
) {
  const reasons = trap ? ["honeypot filled"] : [];
  if (config.SPAM_FILTER === "off") return { reasons, score: null, suspect: false };
  const tokenless = !formToken && fromAllowedOrigin === true;
  const token = tokenless ? null : await tokens.verify(formToken, now);
  if (token && !token.ok) reasons.push(token.reason);
  else if (token && token.ageMs < config.SPAM_MIN_FILL_MS)
    reasons.push(`sent ${Math.round(token.ageMs)} ms after the page`);
  else if (token && token.ageMs > config.FORM_TOKEN_MAX_AGE_MS) reasons.push("form token expired");
  const links = data.message.match(URL_LIKE)?.length ?? 0;
  if (links > config.SPAM_MAX_LINKS) reasons.push(`${links} links in the message`);
  if (URL_ANYWHERE.test(data.name) || URL_ANYWHERE.test(data.company))
    reasons.push("a link as name or company");
  if (await seenMessage(db, messageHash, now - DAY_MS))
    reasons.push("the same message was received in the last 24 hours");
  const model = await content.model(now);
  const score = model.score(data, tokenless ? NO_TOKEN_LOG2_ODDS : 0);
  if (score >= config.SPAM_HOLD_SCORE) reasons.push(reasonOf(score, model.evidence(data)));
  return { reasons, score, suspect: score >= config.SPAM_SUSPECT_SCORE };
}
