import { site } from "../../../app/config/site.ts";
import { ACTION_LABEL } from "../../../app/contact/lead.ts";
import { escapeHtml } from "../../../app/lib/escape.ts";
import { answersTo, type Signer } from "../../booking/messages.ts";
import { type Booking, bookingsToTell } from "../../booking/store.ts";
import { DAY_MS } from "../../time.ts";
import { type Button, list as bullets, buttons, heading, page, para } from "../delivery/layout.ts";
import { timeOrderedId } from "../intake/ids.ts";
import type { Database } from "../storage/database.ts";
import { byIds, list } from "../storage/inquiries.ts";
import { queue } from "../storage/outbox.ts";
import type { Inquiry } from "../storage/records.ts";
import { readSetting, writeSetting } from "../storage/settings.ts";
import { officeTime, sayRange } from "./clock.ts";
import {
  businessMsBetween,
  instantOn,
  openOn,
  type Promised,
  replyByOf,
  sayBusinessTime,
  timingOf,
  wallClock,
} from "./promise.ts";
import { REMINDER_LOOKBACK_MS } from "./reminders.ts";
import { promiseSection, replyFigures } from "./reply-figures.ts";

/**
 * The morning digest, each day the office opens, at opening time, to everyone who receives leads: one
 * a day however many instances run, since the day is claimed in one statement (`digest_day`); its
 * words are written when it is sent, so what was erased meanwhile is in none.
 */

export function openingOf(now: number, facts: Promised = site): { day: string; at: number } | null {
  const { y, m, d } = wallClock(now, facts.timeZone);
  const date = new Date(Date.UTC(y, m - 1, d));
  const opens = openOn(date, facts).map(([open]) => open);
  return opens.length === 0
    ? null
    : { day: date.toISOString().slice(0, 10), at: Math.min(...opens) };
}

/** The digest and the overview list the same leads: what nobody took of the last two weeks, and what was held since. */
export async function openLeads(db: Database, now: number, since: number) {
  const recent = await list(db, { since: Math.min(since, now - REMINDER_LOOKBACK_MS) });
  return {
    recent,
    waiting: recent.filter((i) => !i.held && i.takenAt == null),
    held: recent.filter((i) => i.held && i.receivedAt >= since),
  };
}

export async function queueDigest(
  db: Database,
  now: number,
  facts: Promised = site,
): Promise<boolean> {
  const opening = openingOf(now, facts);
  if (!opening || now < opening.at) return false;
  return db.transaction(async (tx) => {
    // The day is the first instance's: on PostgreSQL a second one's update waits for the first's and
    // then finds the day already claimed (its WHERE is read again), and returns nothing. Days only
    // move forward (ISO dates sort as text): a turn that began before the day changed, finishing
    // after another instance claimed the new day, claims nothing.
    const claimed = await tx.query(
      `INSERT INTO settings (name, value) VALUES ('digest_day', ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE settings.value < excluded.value RETURNING value`,
      [opening.day],
    );
    if (claimed.length === 0) return false;
    const last = Number((await readSetting(tx, "digest_at")) ?? 0);
    // The first covers a week: what came over a long weekend before it is in it.
    const since = last > 0 && last < now ? last : now - 7 * DAY_MS;
    const payload = JSON.stringify({ since, until: now });
    const messageId = `digest-${opening.day}`;
    const digest = {
      id: timeOrderedId(now),
      kind: "digest" as const,
      channel: "email",
      target: "default",
      messageId,
    };
    await queue(tx, null, [{ ...digest, payload }], now);
    await writeSetting(tx, "digest_at", String(now));
    return true;
  });
}

const who = (i: Inquiry) => (i.company ? `${i.name} (${i.company})` : i.name);

/** One line of a section, and the links that act on it (buttons in HTML, "label: URL" in text). */
type Item = { text: string; links?: Button[] };
type Section = { title: string; items: Item[]; after?: string };

const asText = ({ title, items, after }: Section) => [
  title,
  ...items.flatMap((i) => [`- ${i.text}`, ...(i.links ?? []).map((l) => `  ${l.label}: ${l.url}`)]),
  ...(after ? [after] : []),
  "",
];
const asHtml = ({ title, items, after }: Section) =>
  [
    heading(title),
    bullets(items.map((i) => escapeHtml(i.text) + buttons(i.links ?? [], { quietFirst: true }))),
    after ? para(after, { muted: true }) : "",
  ].join("\n");

// The name the confirmer gave on the Confirm page, if any.
const confirmer = (b: Booking) => (b.confirmedBy ? `confirmed by ${b.confirmedBy}` : "confirmed");

/** The day's calls and the requests nobody answered: what the digest says first. */
async function consultations(db: Database, p: Signer, until: number, timeZone: string) {
  const { y, m, d } = wallClock(until, timeZone);
  const [from, to] = [instantOn(timeZone, y, m - 1, d), instantOn(timeZone, y, m - 1, d + 1)];
  const told = await bookingsToTell(db, from, to, until);
  const inquiries = new Map(
    (await byIds(db, [...new Set(told.map((b) => b.inquiryId))])).map((i) => [i.id, i]),
  );
  // The booking and its inquiry (always there: erasing an inquiry erases its booking).
  const where = (keep: (b: Booking) => boolean) =>
    told.flatMap((b) => {
      const i = inquiries.get(b.inquiryId);
      return i && keep(b) ? [{ b, i }] : [];
    });
  const theirs = (b: Pick<Booking, "startsAt" | "endsAt" | "zone">) =>
    b.zone === timeZone ? "" : ` (their time: ${sayRange(b.startsAt, b.endsAt, b.zone)})`;
  const confirmed = where((b) => b.state === "confirmed" && b.startsAt >= from && b.startsAt < to);
  const calls: Section = {
    title: `Calls today: ${confirmed.length}`,
    items: confirmed.map(({ b, i }) => ({
      text: `${sayRange(b.startsAt, b.endsAt, timeZone)}: ${who(i)} <${i.email}>, ${i.service || "General"}${theirs(b)}; ${confirmer(b)}`,
    })),
  };
  const waiting = where((b) => b.state === "asked" || (b.move?.startsAt ?? 0) > until);
  const kept = (b: { holdUntil: number | null }) =>
    b.holdUntil === null
      ? "the time is not kept for them"
      : `kept for them until ${officeTime(b.holdUntil, timeZone)}`;
  const asked: Section = {
    title: `Consultation requests waiting for Confirm or Decline: ${waiting.length}`,
    items: waiting.map(({ b, i }) =>
      b.move
        ? {
            text: `${who(i)} <${i.email}> asks to move ${sayRange(b.startsAt, b.endsAt, timeZone)} to ${sayRange(b.move.startsAt, b.move.endsAt, timeZone)}${theirs(b.move)}; ${kept(b.move)}`,
            links: answersTo(p, i.id, until, true),
          }
        : {
            text: `${who(i)} <${i.email}> asks for ${sayRange(b.startsAt, b.endsAt, timeZone)}${theirs(b)}; ${kept(b)}`,
            links: answersTo(p, i.id, until),
          },
    ),
  };
  return { sections: [calls, asked], inquiryIds: told.map((b) => b.inquiryId) };
}

export async function digestWords(
  db: Database,
  p: Signer,
  payload: string,
  now: number,
  facts: Promised = site,
) {
  const { links } = p;
  const { since, until } = JSON.parse(payload) as { since: number; until: number };
  const { recent, waiting, held } = await openLeads(db, now, since);
  const fresh = recent.filter((i) => !i.held && i.receivedAt >= since && i.receivedAt <= until);
  const taken = recent.filter((i) => !i.held && (i.takenAt ?? 0) >= since);
  const overdue = waiting.filter((i) => deadlineOf(i, now, facts)?.state.startsWith("Missed"));
  const week = await replyFigures(db, now - 7 * DAY_MS, now, facts);
  const inTime = week.taken - (week.missed - week.overdue);
  const overview = links.overview(now);
  const from = officeTime(since);
  const first = await consultations(db, p, until, facts.timeZone);
  const leads: Section[] = [
    {
      title: `New since ${from}: ${fresh.length}`,
      items: fresh.map((i) => ({
        text: `${who(i)}, ${i.service || "General"}, received ${officeTime(i.receivedAt)}`,
      })),
    },
    {
      title: `Waiting for someone to press "${ACTION_LABEL.take}": ${waiting.length} (${overdue.length} past the reply promise)`,
      items: waiting.map((i) => {
        const deadline = deadlineOf(i, now, facts);
        return {
          text: `${who(i)}, received ${officeTime(i.receivedAt)}${deadline ? `: ${deadline.replyBy}; ${deadline.state}` : ""}`,
        };
      }),
    },
    {
      title: `Taken since ${from}: ${taken.length}`,
      items: taken.map((i) => ({
        text: `${who(i)}: ${i.takenBy ?? "someone"}, ${officeTime(i.takenAt ?? now)}`,
      })),
    },
    {
      title: `Held as spam since ${from}: ${held.length}`,
      items: held.map((i) => ({
        text: `${i.name} <${i.email}>: ${i.heldReason ?? "held"}`,
        links: links.for(i, now),
      })),
      after:
        held.length > 0
          ? `A message a person sent: open its link and press the button. Each link works for ${links.days} days.`
          : undefined,
    },
  ];
  const promise = await promiseSection(db, now, facts);
  const intro = `The leads of the ${site.name} website, ${officeTime(until)}.`;
  const everyLead = `Every open lead, with its "${ACTION_LABEL.take}", "${ACTION_LABEL.spam}" and "${ACTION_LABEL["not-spam"]}" links (this link works until ${officeTime(overview.expires)})`;
  const lastWeek = `Last week: ${week.leads} lead${week.leads === 1 ? "" : "s"}, ${inTime} taken within the promise (${facts.response.promiseBusinessHours} business hours), first "${ACTION_LABEL.take}" after ${week.takeMedianMs === null ? "— (none taken)" : sayBusinessTime(week.takeMedianMs)} (median, business time).`;
  const text = [
    intro,
    "",
    ...first.sections.flatMap(asText),
    `${everyLead}:`,
    overview.url,
    "",
    ...leads.flatMap(asText),
    ...asText(promise),
    lastWeek,
  ].join("\n");
  const day = officeTime(until).split(",").slice(0, 2).join(",");
  const subject = `Leads, ${day}: ${fresh.length} new, ${waiting.length} waiting (${overdue.length} overdue), ${held.length} held`;
  const html = page(subject, [
    heading(`Leads, ${day}`, 1),
    para(intro),
    ...first.sections.map(asHtml),
    heading("Every open lead"),
    buttons([{ label: "Open every open lead", url: overview.url }]),
    para(`${everyLead}.`, { muted: true }),
    ...leads.map(asHtml),
    asHtml(promise),
    heading("Last week"),
    para(lastWeek),
  ]);
  return {
    subject,
    text,
    html,
    // What erasure reads to find this email's copies (X-Inquiry-Ids): every inquiry it names.
    inquiryIds: [
      ...new Set([
        ...[...fresh, ...waiting, ...taken, ...held].map((i) => i.id),
        ...first.inquiryIds,
      ]),
    ],
  };
}

export function deadlineOf(
  i: Pick<Inquiry, "receivedAt" | "takenAt" | "replyDueAt" | "replyHours">,
  now: number,
  facts: Promised = site,
) {
  const t = timingOf(i, now, facts);
  const by = replyByOf(i, facts);
  if (t.dueAt === null || by === null) return null;
  if (!t.missed) {
    const left = sayBusinessTime(businessMsBetween(now, t.dueAt, facts));
    return {
      replyBy: by,
      state: i.takenAt == null ? `${left} of business time left` : "Taken in time",
    };
  }
  const lateMs = businessMsBetween(t.dueAt, i.takenAt ?? now, facts);
  // Past the deadline outside office hours: no business time late yet, but late all the same.
  const late = lateMs < 60_000 ? "" : ` by ${sayBusinessTime(lateMs)} of business time`;
  return { replyBy: by, state: i.takenAt == null ? `Missed${late}` : `Taken late${late}` };
}
