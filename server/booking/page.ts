import type { Logger } from "pino";
import { site } from "../../app/config/site.ts";
import {
  BOOK_NOTE_MAX,
  BOOK_PHONE_MAX,
  BOOKING_ACTIONS,
  type BookingAction,
  type BookingDone,
  type BookingPage,
  type BookingView,
  BY_PHONE,
  type Slot,
  sayUsPhone,
  usPhoneOf,
  ZONES,
} from "../../app/contact/booking.ts";
import type { Config } from "../config.ts";
import { oneLine } from "../contact/delivery/channel.ts";
import { routingOf } from "../contact/delivery/routing.ts";
import type { ContactPipeline, LimitSpec } from "../contact/intake/pipeline.ts";
import { formatter, sayDay, sayRange, sayTime, sayZone } from "../contact/review/clock.ts";
import type { LeadLinks } from "../contact/review/links.ts";
import { takeLead, takenBy } from "../contact/review/page.ts";
import { type Database, type Sql, StorageUnavailableError } from "../contact/storage/database.ts";
import { get } from "../contact/storage/inquiries.ts";
import type { Inquiry } from "../contact/storage/records.ts";
import { calendarBusy } from "./feeds.ts";
import {
  type Parts,
  queueCancelled,
  queueConfirmed,
  queueDeclined,
  queueRequest,
} from "./messages.ts";
import { type Facts, holdUntil, openSlots, slotMs, zoneOf } from "./slots.ts";
import { ask, type BookingState, bookingOf, holdingTimes, move, settleMove } from "./store.ts";

/**
 * The booking page's server side (app/routes/book.tsx), one page for the four links: the visitor's
 * ("book": see the open times, pick one; "cancel") and the company's ("confirm", "decline"). Opening
 * a link only shows; its button's POST acts. Every use counts against a limit per client address
 * (table rate_limits, so across instances) and is one log line naming the inquiry, never the token.
 * A pick that holds no time (over a cap, or of a message held as spam: store.ts) gets the same page
 * and words as one that does: a bot learns nothing from them. A confirmed call's page offers the
 * other times too: a pick is its move, which the company confirms or declines as a request.
 */

const LIMIT: LimitSpec = { prefix: "booking", per: "address", points: 60, durationMs: 10 * 60_000 };

type Done = BookingDone;
type Form = { slot?: string; zone?: string; note?: string; by?: string; phone?: string };
type Typed = { value: string; problem: string };
/** `clock`, `facts`: a test's (its controlled clock, its office's holidays), else the process's and site.ts's. */
type Options = {
  pipeline: () => ContactPipeline;
  links: LeadLinks;
  config: Config;
  log: Logger;
  clock?: () => number;
  facts?: Facts;
};

export function bookingPage(o: Options): BookingPage {
  const log = o.log.child({ task: "booking" });
  const parts: Parts = { config: o.config, links: o.links, routing: routingOf(o.config) };
  const feeds = o.config.BOOKING_FEEDS ?? [];
  const clock = o.clock ?? Date.now;
  const facts = o.facts;

  /** The link checked, the limit counted, the inquiry read: then `fn`, or why not. */
  const withLink = async (
    token: string,
    clientIp: string | undefined,
    fn: (
      db: Database,
      i: Inquiry,
      action: (typeof BOOKING_ACTIONS)[number],
      now: number,
    ) => Promise<BookingView>,
  ): Promise<BookingView> => {
    try {
      const now = clock();
      const check = await o.links.verify(token, now, BOOKING_ACTIONS);
      if (!check.ok) {
        log.warn({ reason: check.reason }, `booking link refused: ${check.reason}`);
        return { kind: check.reason };
      }
      const pipeline = o.pipeline();
      const wait = await pipeline.overLimit(clientIp, [LIMIT], now);
      if (wait !== null) return { kind: "rate-limited", retryAfterSeconds: wait };
      const inquiry = await get(pipeline.db, check.inquiryId);
      if (!inquiry) return { kind: "gone" };
      return await fn(pipeline.db, inquiry, check.action, now);
    } catch (err) {
      if (!(err instanceof StorageUnavailableError)) log.error({ err }, "booking link failed");
      return { kind: "unavailable" };
    }
  };

  // The calendars' busy times and the times other inquiries hold: one list of busy times.
  const offered = async (sql: Sql, i: Inquiry, now: number) => {
    const busy = await calendarBusy(sql, feeds, now);
    return busy === null
      ? null
      : openSlots(now, [...busy, ...(await holdingTimes(sql, i.id, now))], facts);
  };

  async function visitor(
    db: Sql,
    i: Inquiry,
    token: string,
    given: unknown,
    now: number,
    result?: "asked" | "taken",
    typed?: Typed,
  ) {
    const b = await bookingOf(db, i.id);
    const zone = zoneOf(given ?? b?.zone);
    const slots = await offered(db, i, now);
    const days: Array<{ day: string; slots: Slot[] }> = [];
    for (const at of slots ?? []) {
      const day = sayDay(at, zone);
      const office =
        zone === site.timeZone ? "" : `${sayTime(at, site.timeZone)} ${sayZone(at, site.timeZone)}`;
      const last = days.at(-1);
      const slot = { at, visitor: `${sayTime(at, zone)} ${sayZone(at, zone)}`, office };
      if (last?.day === day) last.slots.push(slot);
      else days.push({ day, slots: [slot] });
    }
    const asked =
      b && (b.state === "asked" || b.state === "confirmed")
        ? {
            when: sayRange(b.startsAt, b.endsAt, zone),
            state: b.state,
            move: b.move ? sayRange(b.move.startsAt, b.move.endsAt, zone) : null,
          }
        : null;
    // "Mountain Time (MST)": the zone's name, and each abbreviation its times carry (MDT, MST across a change).
    const named = formatter(zone, { timeZoneName: "longGeneric" })
      .formatToParts(now)
      .find((p) => p.type === "timeZoneName")?.value;
    const abbreviations = [
      ...new Set((slots?.length ? slots : [now]).map((at) => sayZone(at, zone))),
    ];
    const zoneSaid = `${named ?? zone} (${abbreviations.join(", ")})`;
    const zones = ZONES.some(([z]) => z === zone)
      ? ZONES
      : [...ZONES, [zone, zone] as [string, string]];
    const view: BookingView = {
      kind: "book",
      token,
      zone,
      zoneSaid,
      zones,
      name: i.name,
      unchecked: slots === null,
      days,
      asked,
      // A number refused is shown as typed, with why; else the one their request keeps, to pick again.
      phone: BY_PHONE ? (typed ?? { value: b?.phone ? sayUsPhone(b.phone) : "" }) : null,
    };
    return result ? { ...view, result } : view;
  }

  async function other(
    db: Sql,
    i: Inquiry,
    action: "confirm" | "decline" | "cancel",
    token: string,
    done?: Done,
  ) {
    const b = await bookingOf(db, i.id);
    const state = b?.state ?? "none";
    const [when, at] = b
      ? [sayRange(b.startsAt, b.endsAt, action === "cancel" ? b.zone : site.timeZone), b.startsAt]
      : ["", 0];
    // The company's page of a move: the new time, waiting for them; the confirmed one it moves from.
    if (action !== "cancel" && b?.move)
      return {
        kind: "company",
        action,
        token,
        who: `${i.name} <${i.email}>`,
        when: sayRange(b.move.startsAt, b.move.endsAt, site.timeZone),
        at: b.move.startsAt,
        state: "asked",
        from: when,
        ...(done ? { done } : {}),
      } as const;
    // A Cancel that changed nothing (the call moved meanwhile) shows the call as it is, not "cancelled".
    return action === "cancel"
      ? ({
          kind: "cancel",
          token,
          when,
          at,
          state,
          ...(done === "cancelled" ? { done: true } : {}),
        } as const)
      : ({
          kind: "company",
          action,
          token,
          who: `${i.name} <${i.email}>`,
          when,
          at,
          state,
          from: null,
          ...(done ? { done } : {}),
        } as const);
  }

  /** The button of each page, for the time its page showed (a newer pick waits for its own): what it did. */
  async function press(
    db: Database,
    i: Inquiry,
    action: Exclude<BookingAction, "book">,
    form: Form,
    now: number,
  ): Promise<Done> {
    const at = Number(form.slot);
    if (!Number.isSafeInteger(at)) return "unchanged";
    // A time already begun is confirmed to nobody (an invitation for the past, a lead taken by it).
    if (action === "confirm" && at <= now) return "passed";
    const to = (
      from: BookingState[],
      state: BookingState,
      then: Parameters<typeof move>[6],
      by: string | null = null,
    ) => move(db, i.id, from, at, state, now, then, by);
    if (action === "cancel")
      return (await to(["asked", "confirmed"], "cancelled", (tx, b) =>
        queueCancelled(parts, tx, i, b, now),
      ))
        ? "cancelled"
        : "unchanged";
    const note = oneLine(form.note, BOOK_NOTE_MAX, "…");
    // A move waits for this time: the press answers it (its UPDATE's precondition, not this read, decides).
    if ((await bookingOf(db, i.id))?.move?.startsAt === at) {
      const confirm = action === "confirm";
      const settled = await settleMove(db, i.id, at, confirm, now, (tx, was, is) =>
        confirm
          ? queueConfirmed(parts, tx, i, is, now, was)
          : queueDeclined(parts, tx, i, was, note, now),
      );
      return settled === "conflict"
        ? "conflict"
        : settled
          ? confirm
            ? "confirmed"
            : "declined"
          : "unchanged";
    }
    if (action === "decline") {
      return (await to(["asked"], "declined", (tx, b) => queueDeclined(parts, tx, i, b, note, now)))
        ? "declined"
        : "unchanged";
    }
    // The name asked as "I'm on it" asks it: the visitor meets them, and the lead is theirs.
    const by = takenBy(form.by);
    const moved = await to(
      ["asked"],
      "confirmed",
      async (tx, b) => {
        await queueConfirmed(parts, tx, i, b, now);
        // A confirmed booking is the lead taken, in the same transaction: the one take path.
        await takeLead(tx, parts.routing, i.id, now, by);
      },
      by,
    );
    return moved === "conflict" ? "conflict" : moved ? "confirmed" : "unchanged";
  }

  return {
    open: (token, zone, clientIp) =>
      withLink(token, clientIp, async (db, i, action, now) =>
        action === "book" ? visitor(db, i, token, zone, now) : other(db, i, action, token),
      ),
    act: (token, form, clientIp) =>
      withLink(token, clientIp, async (db, i, action, now) => {
        const zone = zoneOf(form.zone);
        let done: Done | "asked" | "taken";
        if (action === "book") {
          const phone = BY_PHONE ? usPhoneOf(form.phone ?? "") : null;
          if (phone && "problem" in phone) {
            log.info({ inquiryId: i.id, action, done: "phone refused" }, "booking link used");
            const typed = { value: (form.phone ?? "").slice(0, BOOK_PHONE_MAX), ...phone };
            return visitor(db, i, token, zone, now, undefined, typed);
          }
          const at = Number(form.slot);
          const by = await o.pipeline().addressHashes(clientIp, now);
          const pick = {
            inquiryId: i.id,
            startsAt: at,
            endsAt: at + slotMs(facts),
            zone,
            address: by?.address ?? null,
            network: by?.network ?? null,
            domain: i.email.slice(i.email.lastIndexOf("@") + 1).toLowerCase(),
            holdUntil: holdUntil(now, at, facts),
            phone: phone?.e164 ?? null,
          };
          const asked =
            Number.isSafeInteger(at) &&
            (await ask(
              db,
              pick,
              now,
              (tx) => offered(tx, i, now),
              (tx, made) => queueRequest(parts, tx, i, { ...pick, ...made }, now),
            ));
          done = asked ? "asked" : "taken";
        } else done = await press(db, i, action, form, now);
        log.info({ inquiryId: i.id, action, done }, "booking link used");
        o.pipeline().worker.nudge();
        if (done === "asked" || done === "taken") return visitor(db, i, token, zone, now, done);
        return other(db, i, action as Exclude<BookingAction, "book">, token, done);
      }),
  };
}
