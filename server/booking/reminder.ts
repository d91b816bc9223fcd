import type { Logger } from "pino";
import type { Database } from "../contact/storage/database.ts";
import { get } from "../contact/storage/inquiries.ts";
import { DAY_MS } from "../time.ts";
import { type Parts, queueReminder } from "./messages.ts";
import { type Facts, reminderDue } from "./slots.ts";
import { claimReminder, toRemind } from "./store.ts";

/**
 * The visitor's reminder of a confirmed call, a housekeeping task of every instance: the calls due
 * (slots.ts `reminderDue`) each claimed once and queued in the outbox (store.ts `claimReminder`).
 * Bounded: the earliest calls of the month ahead, a page of them a turn.
 */

const AHEAD_MS = 32 * DAY_MS;
const PAGE = 200;

export async function remindVisitors(
  db: Database,
  parts: Parts,
  log: Logger,
  now: number,
  hours?: Pick<Facts, "officeHours" | "timeZone" | "holidays">,
): Promise<number> {
  const due = (await toRemind(db, now, AHEAD_MS, PAGE)).filter((b) =>
    reminderDue(now, b.startsAt, b.changedAt, hours),
  );
  let queued = 0;
  for (const b of due) {
    const i = await get(db, b.inquiryId);
    if (!i) continue;
    if (await claimReminder(db, b, now, (tx, c) => queueReminder(parts, tx, i, c, now))) {
      queued += 1;
      log.info({ inquiryId: i.id, startsAt: b.startsAt }, "booking: the visitor's reminder queued");
    }
  }
  return queued;
}
