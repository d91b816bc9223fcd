import type { Logger } from "pino";
import type { Channel } from "../delivery/channel.ts";
import type { Database } from "../storage/database.ts";
import { listHeld } from "../storage/inquiries.ts";
import { claimTurn, readSetting, writeSetting } from "../storage/settings.ts";
import type { LeadLinks } from "./links.ts";

/**
 * At most once per interval across every instance (housekeeping.ts runs it): one email of what was
 * held as suspected spam since the last summary, each with its "Not spam" link, so that a person
 * held by mistake is noticed. Nothing held: nothing sent. True when a summary was sent.
 */
export async function sendHeldSummary(parts: {
  db: Database;
  /** The email channel: where the summary goes. */
  email: Channel | undefined;
  links: LeadLinks;
  intervalMs: number;
  log: Logger;
}): Promise<boolean> {
  const { db, email, links, intervalMs: interval, log } = parts;
  if (!email) return false;
  // One instance tries at a time (a short claim); the summary is marked sent only once it is, so a
  // failed one is tried again at the next claim and no held message goes unsummarized.
  const turn = await claimTurn(db, "held_summary_claim", Math.min(interval, 300_000));
  if (!turn) return false;
  const sentAt = Number((await readSetting(db, "held_summary_at")) ?? 0);
  if (sentAt <= turn.now && turn.now - sentAt < interval) return false;
  // Since the last summary; never sent: everything held so far; stamped ahead (a clock that ran ahead): one interval.
  const since = sentAt <= turn.now ? sentAt : turn.now - interval;
  const held = await listHeld(db, since);
  if (held.length === 0) return false;
  const listed = held.slice(0, 20);
  const lines = listed.flatMap((i) => [
    `- ${i.name} <${i.email}>: ${i.heldReason ?? "held"} (${i.id})`,
    ...links.for(i, turn.now).map((l) => `  ${l.label}: ${l.url}`),
  ]);
  if (held.length > 20) lines.push(`- and ${held.length - 20} more`);
  const from = since > 0 ? ` since ${new Date(since).toISOString().slice(0, 16).replace("T", " ")} UTC` : "";
  const text = [
    `${held.length} message(s) were held as suspected spam${since > 0 ? ` since ${new Date(since).toISOString()}` : ""}:`,
    ...lines,
    "",
    "A message a person sent: open its link and press the button; it is delivered as a new lead would be, and the filter learns from it. The link works for the days INQUIRY_LINK_DAYS says.",
  ].join("\n");
  try {
    await email.notify(
      "held-summary",
      `Held as spam: ${held.length} message(s)${from}`,
      text,
      listed.map((i) => i.id),
    );
    await writeSetting(db, "held_summary_at", String(turn.now));
    log.info({ held: held.length }, "held-messages summary sent");
    return true;
  } catch (err) {
    log.error({ err: { message: (err as Error).message } }, "could not send the held-messages summary");
    return false;
  }
}
