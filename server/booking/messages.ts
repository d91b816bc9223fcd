import { site } from "../../app/config/site.ts";
import { BOOK_PATH, BOOK_TOKEN_FIELD, BY_PHONE, sayUsPhone } from "../../app/contact/booking.ts";
import type { Config } from "../config.ts";
import type { Notice } from "../contact/delivery/channel.ts";
import { inbox, leadButtons } from "../contact/delivery/email.ts";
import {
  type Button,
  buttons,
  heading,
  note,
  page,
  para,
  quote,
  rows,
} from "../contact/delivery/layout.ts";
import { destinationsFor, type Routing } from "../contact/delivery/routing.ts";
import { timeOfId, timeOrderedId } from "../contact/intake/ids.ts";
import { officeTime, sayRange } from "../contact/review/clock.ts";
import type { LeadLinks } from "../contact/review/links.ts";
import type { Promised } from "../contact/review/promise.ts";
import { promiseMs } from "../contact/review/promise.ts";
import {
  type AskedRequest,
  type ReportKind,
  reportOf,
  requestReminderNow,
} from "../contact/review/reminders.ts";
import type { Sql } from "../contact/storage/database.ts";
import { queue } from "../contact/storage/outbox.ts";
import type { Inquiry } from "../contact/storage/records.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import { type Booking, type BookingState, bookingOf } from "./store.ts";

/**
 * What the booking sends, each a delivery in the outbox: to the company ("booking", on the lead's
 * route: its email and Slack), and to the visitor ("booking-visitor", by email, only once a person
 * of the company acted). A newer message of a kind replaces the one not yet sent for the inquiry;
 * those sent stay, the record of what went when. A request goes at once, but one that replaces a
 * request nobody answered yet goes REQUEST_SPACING_MS after the message of that one: a visitor
 * picking again and again sends the company one message per five minutes, with the newest time. A
 * message about a held inquiry waits in the outbox, unclaimed, until someone presses "Not spam".
 * The invitation is an iCalendar METHOD:REQUEST (a cancellation METHOD:CANCEL) made with
 * ical-generator: organizer the company's inbox, attendee the visitor, times in UTC. Its UID names the
 * confirmation (the inquiry and its moment), so a booking made after a cancelled one is a new event
 * that calendars take, not an older version of the cancelled one; a move confirmed is the same event
 * one SEQUENCE on, at its new time (a cancellation one more still). The visitor's reminder, the day
 * before, is a message of its own that replaces none. A webhook receiver on the lead's
 * route hears of each change too ("booking.requested" and on, docs/contact-api.md): an event of the
 * outbox like the lead's own, queued here in the change's transaction, never replaced.
 */

/** The visitor's booking link works this many days (at most as long as the lead's links: their key's life). */
const BOOK_LINK_DAYS = 14;
const REQUEST_SPACING_MS = 5 * 60_000;

/** What an email says: its text part (full addresses) and its HTML part (contact/delivery/layout.ts). */
type Words = { subject: string; text: string; html: string };
/** An iCalendar invitation (or its cancellation), attached to an email as the payload's `calendar`. */
type Invitation = { method: "REQUEST" | "CANCEL"; content: string };
export type Parts = { config: Config; links: LeadLinks; routing: Routing };
/** What signs a link of the booking page. */
export type Signer = { config: Pick<Config, "SITE_URL">; links: LeadLinks };

/**
 * The visitor's link, as the answer to their message gives it (a path: the page is on this site),
 * its days counted from the message: an answer given again (the same Idempotency-Key) is the same.
 */
export const visitorLink = (config: Config, links: LeadLinks, id: string) =>
  bookingLink({ config, links }, id, timeOfId(id), false);

export function bookingLink(
  { config, links }: Pick<Parts, "config" | "links">,
  inquiryId: string,
  now: number,
  absolute = true,
) {
  const days = Math.min(BOOK_LINK_DAYS, config.INQUIRY_LINK_DAYS);
  const url = new URL(BOOK_PATH, config.SITE_URL);
  url.searchParams.set(BOOK_TOKEN_FIELD, links.token(inquiryId, "book", now, now + days * DAY_MS));
  return absolute ? url.href : `${url.pathname}${url.search}`;
}

const linkOf = (
  { config, links }: Signer,
  id: string,
  action: "confirm" | "decline" | "cancel",
  now: number,
) => {
  const url = new URL(BOOK_PATH, config.SITE_URL);
  url.searchParams.set(BOOK_TOKEN_FIELD, links.token(id, action, now));
  return url.href;
};

type Reader = "visitor" | "company";
/** Where the call happens, as each side reads it: the company's copy says which number to call. */
const place = (i: Pick<Inquiry, "name">, b: Pick<Booking, "phone">, reader: Reader) => {
  if (!BY_PHONE) return site.booking.place;
  const number = b.phone ? sayUsPhone(b.phone) : null;
  if (reader === "company")
    return number
      ? `By phone: call ${i.name} at ${number}`
      : `By phone: ${i.name} gave no number (asked before the booking page asked for one): ask them by email`;
  return `By phone: we call you${number ? ` at ${number}` : ""} at the time (our number: ${site.phone.display})`;
};

/** The company's answers to a request (or to a move, `move`), as its email and the morning digest give them. */
export const answersTo = (p: Signer, id: string, now: number, move = false) => [
  {
    label: "Confirm",
    url: linkOf(p, id, "confirm", now),
    effect: move
      ? "the calendar invitation moves to the new time, theirs and yours"
      : "they get a calendar invitation, you too; the lead counts as taken",
  },
  {
    label: "Decline",
    url: linkOf(p, id, "decline", now),
    effect: move
      ? "the old time stays; you may add a line for them"
      : "you may add a line for them; they get a link to pick another time",
  },
];

/** Whom the visitor meets, when the person who confirmed gave their name. */
const meet = (b: Pick<Booking, "confirmedBy">) =>
  b.confirmedBy ? ` You will meet ${b.confirmedBy}.` : "";

/** The visitor's and the company's copies: one event (one UID, one SEQUENCE), each with its reader's place. */
async function invitation(
  p: Pick<Parts, "config">,
  i: Pick<Inquiry, "id" | "name" | "email" | "service">,
  b: Booking,
  method: Invitation["method"],
  reader: Reader,
) {
  const {
    default: ical,
    ICalCalendarMethod,
    ICalEventStatus,
    ICalAttendeeRole,
  } = await import("ical-generator");
  const calendar = ical({
    prodId: { company: site.name, product: "website" },
    method: ICalCalendarMethod[method],
  });
  calendar.createEvent({
    id: `booking-${i.id}-${b.confirmedAt}@${p.config.siteHost}`,
    sequence: b.sequence + (method === "CANCEL" ? 1 : 0),
    start: new Date(b.startsAt),
    end: new Date(b.endsAt),
    summary: `Free consultation: ${site.name} and ${i.name}`,
    description: `${site.consultationMinutes}-minute consultation about ${i.service || "your inquiry"}.${meet(b)}`,
    location: place(i, b, reader),
    status: method === "CANCEL" ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: {
      name: b.confirmedBy ? `${b.confirmedBy} (${site.name})` : site.name,
      email: inbox(p.config),
    },
    attendees: [{ name: i.name, email: i.email, rsvp: true, role: ICalAttendeeRole.REQ }],
  });
  return { method, content: calendar.toString() } satisfies Invitation;
}

/**
 * Replaces the inquiry's message of this kind not yet sent, due `at`: the newest says how the booking
 * stands. `name` other than the kind's: a message that replaces none (the reminder).
 */
async function replace(
  tx: Sql,
  i: Inquiry,
  kind: "booking" | "booking-visitor" | "booking-unanswered",
  to: Array<[string, string]>,
  body: object,
  now: number,
  at = now,
  name: string = kind,
) {
  // The newest message of its name replaces one not sent yet; a message named apart (the visitor's
  // day-before reminder) is never replaced by another.
  if (name === kind)
    await tx.query(
      "DELETE FROM deliveries WHERE inquiry_id = ? AND kind = ? AND message_id LIKE ? AND status IN ('pending', 'failed')",
      [i.id, kind, `${kind}-${i.id}-%`],
    );
  const deliveries = to.map(([channel, target]) => ({
    at,
    id: timeOrderedId(now),
    kind,
    channel,
    target,
    messageId: `${name}-${i.id}-${now}`,
    payload: JSON.stringify({ ...body, inquiryIds: [i.id], to: target }),
  }));
  await queue(tx, i.id, deliveries, now);
}

async function toCompany(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  words: Words,
  now: number,
  calendar?: Invitation,
  at = now,
) {
  const to = destinationsFor(p.routing, i.service)
    .filter((d) => d.channel === "email" || d.channel === "slack")
    .map((d): [string, string] => [d.channel, d.target]);
  await replace(tx, i, "booking", to, { ...words, calendar }, now, at);
}

const toVisitor = (
  tx: Sql,
  i: Inquiry,
  words: Words,
  now: number,
  calendar?: Invitation,
  name?: string,
) =>
  replace(tx, i, "booking-visitor", [["email", i.email]], { ...words, calendar }, now, now, name);

type When = Pick<Booking, "startsAt" | "endsAt" | "zone">;

/**
 * The change as a webhook receiver hears of it, once (its `webhook-id` names the inquiry and the
 * change's moment): the booking as it is, nothing of the visitor that `inquiry.received` did not
 * already send. `confirmedBy`: the name given on the Confirm page (null: none given). A move's
 * request, confirmation or decline carries `moveFrom`, the confirmed time it moves from.
 */
function toReceivers(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  type: Extract<ReportKind, `booking.${string}`>,
  b: When & { state: BookingState; confirmedBy?: string | null },
  now: number,
  moveFrom?: When,
) {
  const event = {
    type,
    timestamp: new Date(now).toISOString(),
    data: {
      id: i.id,
      state: b.state,
      startsAt: new Date(b.startsAt).toISOString(),
      endsAt: new Date(b.endsAt).toISOString(),
      zone: b.zone,
      ...(type === "booking.confirmed" ? { confirmedBy: b.confirmedBy ?? null } : {}),
      ...(moveFrom
        ? {
            moveFrom: {
              startsAt: new Date(moveFrom.startsAt).toISOString(),
              endsAt: new Date(moveFrom.endsAt).toISOString(),
            },
          }
        : {}),
    },
  };
  return queue(tx, i.id, reportOf(type, i, p.routing, now, event), now);
}
const whoOf = (i: Inquiry) => (i.company ? `${i.name} (${i.company})` : i.name);
const visitorRows = (i: Inquiry): Array<[string, string]> => [
  ["Name", i.name],
  ["Email", i.email],
  ["Company", i.company || "—"],
  ["Service", i.service || "—"],
];
/** A message to the visitor: hello, what happened (HTML), its buttons, the company's name. */
const toThem = (i: Inquiry, subject: string, body: string[], actions: Button[], after = "") =>
  page(subject, [
    para(`Hello ${i.name},`),
    ...body,
    buttons(actions),
    after ? para(after, { muted: true }) : "",
    para(site.name),
  ]);

const office = (b: When) => sayRange(b.startsAt, b.endsAt, site.timeZone);
const theirs = (b: When) =>
  b.zone === site.timeZone ? "" : ` (their time: ${sayRange(b.startsAt, b.endsAt, b.zone)})`;

/**
 * "Dana Whitfield asks for Tue, Dec 1, 10:30–11:00 AM MST", with Confirm, Decline and the lead's own
 * links; a move ("asks to move … to …") when `moveFrom`, the call confirmed, is given.
 */
export async function queueRequest(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  b: When &
    Pick<Booking, "holdUntil" | "phone"> & { replaced: Booking["state"] | null; moveFrom?: When },
  now: number,
) {
  const leadLinks = p.links.for(i, now);
  const from = b.moveFrom;
  const who = `${whoOf(i)} <${i.email}>`;
  const asks = from
    ? `${who} asks to move their free ${site.consultationMinutes}-minute consultation from ${office(from)}${theirs(from)} to ${office(b)}${theirs(b)}. It stays booked for ${office(from)} until you confirm the move.`
    : `${who} asks for the free ${site.consultationMinutes}-minute consultation on ${office(b)}${theirs(b)}.`;
  const answers = answersTo(p, i.id, now, Boolean(from));
  const rest = [
    ...answers.map((a) => `${a.label} (${a.effect}): ${a.url}`),
    "",
    "Their message:",
    i.message,
    "",
    ...leadLinks.map((l) => `${l.label}: ${l.url}`),
  ];
  const phone = b.phone ? sayUsPhone(b.phone) : null;
  const kept =
    b.holdUntil === null
      ? "The time is not kept for them (their address, network or email domain has other times waiting): another visitor may pick it. Confirm it if it is still free. Nothing goes to them before you do."
      : `The time is kept for them until ${officeTime(b.holdUntil)}: confirm or decline before then. Nothing goes to them before you do.`;
  const text = [
    asks,
    ...(phone ? [`Phone: ${phone} (you call them at the time)`] : []),
    kept,
    "",
    ...rest,
  ].join("\n");
  const subject = from
    ? `${i.name} asks to move ${office(from)} to ${office(b)}`
    : `${i.name} asks for ${office(b)}`;
  // The request's words after its first lines: the unanswered reminder repeats them under its own.
  const body = [
    buttons(answers),
    para(answers.map((a) => `${a.label}: ${a.effect}.`).join(" "), { muted: true }),
    rows([...visitorRows(i), ...(phone ? [["Phone", phone] as [string, string]] : [])]),
    heading("Their message"),
    quote(i.message),
    leadButtons(leadLinks),
  ];
  const html = page(subject, [
    heading(subject, 1),
    para(asks),
    para(kept, { strong: true }),
    ...body,
  ]);
  // An unanswered request's message is the company's last booking message about the inquiry: when it went.
  const [last] =
    b.replaced !== "asked"
      ? []
      : await tx.query(
          "SELECT MAX(COALESCE(sent_at, created_at)) AS at FROM deliveries WHERE inquiry_id = ? AND kind = 'booking' AND status IN ('sending', 'sent')",
          [i.id],
        );
  const at = last?.at == null ? now : Math.max(now, Number(last.at) + REQUEST_SPACING_MS);
  await toCompany(p, tx, i, { subject, text, html }, now, undefined, at);
  await toReceivers(p, tx, i, "booking.requested", { ...b, state: "asked" }, now, from);
  await queueUnanswered(p, tx, i, b, { subject, asks, rest, body }, now);
}

/**
 * The request's one reminder, should nobody answer it (requestReminderNow decides when it goes, and
 * whether): by email to the lead's route and the escalation address, as an untaken lead's. Queued
 * no sooner than it can be due (business time never runs faster than the clock); a newer request
 * replaces it with its own.
 */
async function queueUnanswered(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  b: When,
  said: { subject: string; asks: string; rest: string[]; body: string[] },
  now: number,
) {
  const route = destinationsFor(p.routing, i.service).find((d) => d.channel === "email");
  if (!route) return;
  const to = [
    ...new Set(
      [route.target, p.config.LEAD_ESCALATION_TO ?? inbox(p.config)]
        .flatMap((list) => list.split(","))
        .map((a) => a.trim().toLowerCase()),
    ),
  ].join(", ");
  const notice = site.booking.noticeBusinessHours * HOUR_MS;
  const at = Math.max(now, Math.min(now + promiseMs(), b.startsAt - notice));
  const asked: AskedRequest = { askedAt: now, startsAt: b.startsAt };
  // Its HTML is made as it goes, under the reason it goes (unansweredNotice): `body`, the request's.
  const words = {
    subject: `No answer yet: ${said.subject}`,
    text: [said.asks, "", ...said.rest].join("\n"),
    asks: said.asks,
    body: said.body,
    asked,
  };
  await replace(tx, i, "booking-unanswered", [["email", to]], words, now, at);
}

/** The reminder's words as it goes, with why it goes; else when it may, or "drop" (requestReminderNow). */
export async function unansweredNotice(
  sql: Sql,
  inquiryId: string,
  payload: string,
  now: number,
  facts?: Promised,
): Promise<Notice | "drop" | { at: number }> {
  const kept = JSON.parse(payload) as Notice & {
    asked: AskedRequest;
    asks?: string;
    body?: string[];
  };
  const due = requestReminderNow(await bookingOf(sql, inquiryId), kept.asked, now, facts);
  if (due === "drop" || "at" in due) return due;
  const { asked: _, asks, body, ...notice } = kept;
  // One queued before reminders had HTML has its text alone (email.ts lays that out).
  const html =
    asks && body
      ? page(notice.subject, [
          note(due.why, "alert"),
          heading(notice.subject, 1),
          para(asks),
          ...body,
        ])
      : undefined;
  return { ...notice, text: `${due.why}\n\n${notice.text}`, html };
}

/** The visitor's two ways out of a confirmed call: another time (the call stays until we confirm it), or none. */
const waysOut = (p: Parts, i: Inquiry, now: number) => {
  const ways = [
    {
      label: "Pick another time",
      url: bookingLink(p, i.id, now),
      say: "Another time suits you better? Pick one here; this one stays booked until we confirm the new one",
    },
    {
      label: "Cancel the consultation",
      url: linkOf(p, i.id, "cancel", now),
      say: "Cannot make it at all? Cancel here",
    },
  ];
  return {
    text: ways.map((w) => `${w.say}: ${w.url}`),
    buttons: ways,
    after:
      "Another time suits you better? Pick one: this one stays booked until we confirm the new one. Cannot make it at all? Cancel it.",
  };
};

/** The call confirmed, or moved (`from`, the time it was): one invitation, a new event or the same one updated. */
export async function queueConfirmed(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  b: Booking,
  now: number,
  from?: Booking,
) {
  if (from) await dropReminder(tx, i);
  const calendar = await invitation(p, i, b, "REQUEST", "visitor");
  const when = sayRange(b.startsAt, b.endsAt, b.zone);
  const subject = from
    ? `Moved: your consultation with ${site.name} is now ${when}`
    : `Your free consultation with ${site.name}: ${when}`;
  const booked = [
    from
      ? `Your free ${site.consultationMinutes}-minute consultation with ${site.name} is moved to ${when} (it was ${sayRange(from.startsAt, from.endsAt, b.zone)}).${meet(b)}`
      : `Your free ${site.consultationMinutes}-minute consultation with ${site.name} is booked for ${when}.${meet(b)}`,
    `Where: ${place(i, b, "visitor")}`,
    from
      ? "The updated invitation is attached: your calendar moves the event."
      : "The invitation is attached: add it to your calendar.",
  ];
  const ways = waysOut(p, i, now);
  const text = [`Hello ${i.name},`, "", ...booked, "", ...ways.text, "", site.name].join("\n");
  const html = toThem(
    i,
    subject,
    booked.map((l) => para(l)),
    ways.buttons,
    ways.after,
  );
  await toVisitor(tx, i, { subject, text, html }, now, calendar);
  const by = b.confirmedBy ? ` Confirmed by ${b.confirmedBy}.` : "";
  const where = `Where: ${place(i, b, "company")}`;
  const told = from
    ? `${i.name} <${i.email}> is moved from ${office(from)} to ${office(b)}${theirs(b)}.\n${where}\nThe updated invitation went to them; yours is attached for your calendar.`
    : `${i.name} <${i.email}> is booked for ${office(b)}${theirs(b)}.${by}\n${where}\nThe invitation went to them; yours is attached for your calendar.`;
  const ours = `${from ? "Moved" : "Booked"}: ${i.name}, ${office(b)}`;
  const mine = page(ours, [
    heading(ours, 1),
    ...told.split("\n").map((l) => para(l)),
    rows([...visitorRows(i), ["Their time", sayRange(b.startsAt, b.endsAt, b.zone)]]),
  ]);
  await toCompany(
    p,
    tx,
    i,
    { subject: ours, text: told, html: mine },
    now,
    await invitation(p, i, b, "REQUEST", "company"),
  );
  await toReceivers(p, tx, i, "booking.confirmed", b, now, from);
}

/** The visitor cancelled: a confirmed booking is withdrawn from both calendars, a request from the company's mail. */
export async function queueCancelled(p: Parts, tx: Sql, i: Inquiry, b: Booking, now: number) {
  await dropReminder(tx, i);
  const cancel = (reader: Reader) =>
    b.confirmedAt !== null ? invitation(p, i, b, "CANCEL", reader) : undefined;
  const calendar = await cancel("visitor");
  const told = `${i.name} <${i.email}> cancelled the consultation of ${office(b)}${theirs(b)}. The time is free again.`;
  const ours = `Cancelled: ${i.name}, ${office(b)}`;
  const mine = page(ours, [heading(ours, 1), para(told)]);
  await toCompany(
    p,
    tx,
    i,
    { subject: ours, text: told, html: mine },
    now,
    await cancel("company"),
  );
  // Always, as the page says: also a time asked for and not yet confirmed (an older Cancel link).
  const subject = `Cancelled: your consultation with ${site.name}`;
  const cancelled = `Your consultation of ${sayRange(b.startsAt, b.endsAt, b.zone)} is cancelled.`;
  const again = bookingLink(p, i.id, now);
  const text = `Hello ${i.name},\n\n${cancelled} To pick another time: ${again}\n\n${site.name}`;
  const html = toThem(i, subject, [para(cancelled)], [{ label: "Pick another time", url: again }]);
  await toVisitor(tx, i, { subject, text, html }, now, calendar);
  await toReceivers(p, tx, i, "booking.cancelled", b, now);
}

/** A request declined; or a move (`b` the call, confirmed, with its move): the call stays at its time. */
export async function queueDeclined(
  p: Parts,
  tx: Sql,
  i: Inquiry,
  b: Booking,
  note: string,
  now: number,
) {
  const line = note ? `\n\n${note}` : "";
  const asked = b.move ?? b;
  const said = sayRange(asked.startsAt, asked.endsAt, asked.zone);
  const subject = `About your consultation with ${site.name}`;
  // The company's line as they typed it, line breaks and all.
  const theirLine = note ? quote(note) : "";
  let text: string;
  let html: string;
  if (b.move) {
    const stays = `We cannot move your consultation to ${said}. It stays booked for ${sayRange(b.startsAt, b.endsAt, asked.zone)}.`;
    const ways = waysOut(p, i, now);
    text = [`Hello ${i.name},`, "", `${stays}${line}`, "", ...ways.text, "", site.name].join("\n");
    html = toThem(i, subject, [para(stays), theirLine], ways.buttons, ways.after);
  } else {
    const cannot = `We cannot meet at the time you asked for (${said}).`;
    const again = bookingLink(p, i.id, now);
    text = `Hello ${i.name},\n\n${cannot}${line}\n\nPlease pick another time: ${again}\n\n${site.name}`;
    html = toThem(
      i,
      subject,
      [para(cannot), theirLine, para("Please pick another time.")],
      [{ label: "Pick another time", url: again }],
    );
  }
  await toVisitor(tx, i, { subject, text, html }, now);
  await toReceivers(
    p,
    tx,
    i,
    "booking.declined",
    { ...asked, state: b.state },
    now,
    b.move ? b : undefined,
  );
}

/** A day-before reminder not sent yet is of a time the call no longer has (cancelled, or moved). */
const dropReminder = (tx: Sql, i: Inquiry) =>
  tx.query(
    "DELETE FROM deliveries WHERE inquiry_id = ? AND message_id LIKE ? AND status IN ('pending', 'failed')",
    [i.id, `booking-reminder-${i.id}-%`],
  );

/** The day before: the time (theirs, and the office's), where, and the two ways out. */
export async function queueReminder(p: Parts, tx: Sql, i: Inquiry, b: Booking, now: number) {
  const when = sayRange(b.startsAt, b.endsAt, b.zone);
  const subject = `Reminder: your consultation with ${site.name}, ${when}`;
  const lines = [
    `A reminder: your free ${site.consultationMinutes}-minute consultation with ${site.name} is on ${when}${b.zone === site.timeZone ? "" : ` (our office's time: ${office(b)})`}.`,
    `Where: ${place(i, b, "visitor")}`,
    ...(b.move
      ? [
          `You asked to move it to ${sayRange(b.move.startsAt, b.move.endsAt, b.zone)}: we confirm that by email, and until then this time stays booked.`,
        ]
      : []),
  ];
  const ways = waysOut(p, i, now);
  const text = [`Hello ${i.name},`, "", ...lines, "", ...ways.text, "", site.name].join("\n");
  const html = toThem(
    i,
    subject,
    lines.map((l) => para(l)),
    ways.buttons,
    ways.after,
  );
  await toVisitor(tx, i, { subject, text, html }, now, undefined, "booking-reminder");
}

/**
 * An erased inquiry's confirmed call still ahead (contact/erasure.ts), taken out of both calendars:
 * the cancellation goes to the company's route and to the visitor, queued apart from the inquiry,
 * whose rows go in the same transaction. The visitor's address is in the payload alone, which the
 * outbox empties once it is sent; its row's target names nobody.
 */
export async function queueWithdrawn(
  p: Pick<Parts, "config" | "routing">,
  tx: Sql,
  i: Pick<Inquiry, "id" | "name" | "email" | "service">,
  b: Booking,
  now: number,
) {
  const words = {
    company: {
      subject: `Cancelled: the consultation of ${office(b)} (its inquiry was erased)`,
      text: `The inquiry behind the consultation of ${office(b)} was erased: its sender asked us to delete their data, or it reached the end of the privacy notice's retention period. The attached cancellation takes the event out of your calendar; they got one too. Delete this email once your calendar has removed the event.`,
    },
    visitor: {
      subject: `Cancelled: your consultation with ${site.name}`,
      text: `Hello ${i.name},\n\nWe deleted your details from our records, as our privacy notice says, and with them your consultation of ${sayRange(b.startsAt, b.endsAt, b.zone)}. The attached cancellation takes it out of your calendar.\n\nTo talk with us again, write to ${site.email} or call ${site.phone.display}.\n\n${site.name}`,
    },
  };
  const company = destinationsFor(p.routing, i.service)
    .filter((d) => d.channel === "email" || d.channel === "slack")
    .map((d) => ({
      reader: "company" as const,
      channel: d.channel,
      target: d.target,
      to: d.target,
    }));
  const sends = [
    ...company,
    { reader: "visitor" as const, channel: "email", target: "visitor", to: i.email },
  ];
  const deliveries = [];
  for (const [n, s] of sends.entries()) {
    const kind = s.reader === "company" ? "booking" : "booking-visitor";
    const calendar = await invitation(p, i, b, "CANCEL", s.reader);
    deliveries.push({
      id: timeOrderedId(now),
      kind,
      channel: s.channel,
      target: s.target,
      messageId: `${kind}-erased-${i.id}-${now}-${n}`,
      payload: JSON.stringify({ ...words[s.reader], calendar, inquiryIds: [i.id], to: s.to }),
    } as const);
  }
  await queue(tx, null, deliveries, now);
}
