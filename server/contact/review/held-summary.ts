import type { Database } from "../storage/database.ts";
import { listHeld } from "../storage/inquiries.ts";
import { queue, waiting } from "../storage/outbox.ts";
import { readSetting, writeSetting } from "../storage/settings.ts";
import { officeTime } from "./clock.ts";
import type { LeadLinks } from "./links.ts";

/**
 * At most once per interval: one email of what was held as suspected spam since the last summary,
 * each with its "Not spam" link, so that a person held by mistake is noticed. It is a delivery of
 * the outbox, sent and retried as any other; its id names the interval, so however many instances
 * queue it at once, one summary goes. Nothing held: nothing queued. True when one was queued.
 */

export const HELD_SUMMARY_INTERVAL_MS = 24 * 60 * 60_000;
const LISTED = 20;

export async function queueHeldSummary(db: Database, interval: number, now: number) {
  if (await waiting(db, "held-summary")) return false;
  const last = Number((await readSetting(db, "held_summary_at")) ?? 0);
  // Stamped ahead (a clock that ran ahead): one interval back.
  if (last <= now && now - last < interval) return false;
  const since = last <= now ? last : now - interval;
  if ((await listHeld(db, since)).length === 0) return false;
  const id = `held-summary-${Math.floor(now / interval)}`;
  // Its words are written when it is sent, so a message erased meanwhile is in no summary.
  const payload = JSON.stringify({ since, until: now });
  await db.transaction(async (tx) => {
    const summary = { id, kind: "held-summary" as const, channel: "email", target: "default", messageId: id, payload };
    await queue(tx, null, [summary], now);
    await writeSetting(tx, "held_summary_at", String(now));
  });
  return true;
}

/** The summary's words, as they are when it is sent; null when nothing it covers is still held. */
export async function heldSummary(db: Database, links: LeadLinks, payload: string, now: number) {
  const { since, until } = JSON.parse(payload) as { since: number; until: number };
  const held = (await listHeld(db, since)).filter((i) => i.receivedAt <= until);
  if (held.length === 0) return null;
  const listed = held.slice(0, LISTED);
  const lines = listed.flatMap((i) => [
    `- ${i.name} <${i.email}>: ${i.heldReason ?? "held"} (${i.id})`,
    ...links.for(i, now).map((l) => `  ${l.label}: ${l.url}`),
  ]);
  if (held.length > LISTED) lines.push(`- and ${held.length - LISTED} more`);
  const from = since > 0 ? ` since ${officeTime(since)}` : "";
  const text = [
    `${held.length} message(s) were held as suspected spam${from}:`,
    ...lines,
    "",
    `A message a person sent: open its link and press the button; it is delivered as a new lead would be, and the filter learns from it. Each link works for ${links.days} days.`,
  ].join("\n");
  return { subject: `Held as spam: ${held.length} message(s)${from}`, text, inquiryIds: listed.map((i) => i.id) };
}
