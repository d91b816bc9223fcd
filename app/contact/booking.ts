import { site } from "#app/config/site.ts";

/**
 * The consultation booking (server/booking/; ADR 0029): the page behind the visitor's signed link
 * and the company's Confirm, Decline and the visitor's Cancel links, its path, its fields, the US
 * time zones it offers, and what the server hands the route (app/routes/book.tsx) to show.
 */

export const BOOK_PATH = "/book";
export const BOOK_MODULE = "routes/book.tsx";
/** Rendered by the server per visitor: the booking page, and /contact/sent with the visitor's own link (`?t=`). */
export const BOOKING_PATHS = [BOOK_PATH, "/contact/sent"];
/** The query parameter and form field of the token; the visitor's zone (GET); the slot picked (POST). */
export const BOOK_TOKEN_FIELD = "t";
export const BOOK_ZONE_FIELD = "tz";
export const BOOK_SLOT_FIELD = "slot";
/** The number we call the visitor at: asked only when the consultation is a phone call (site.booking.place). */
export const BY_PHONE = site.booking.place === "phone";
export const BOOK_PHONE_FIELD = "phone";
export const BOOK_PHONE_MAX = 40;
/** The optional line a person of the company writes when declining. */
export const BOOK_NOTE_FIELD = "note";
export const BOOK_NOTE_MAX = 300;
/** The action of the success dialog and /contact/sent. */
export const BOOK_LABEL = `Book your free ${site.consultationMinutes}-minute consultation`;

/** "book": the visitor's page; "cancel": the visitor's, in the invitation; "confirm", "decline": the company's. */
export type BookingAction = "book" | "confirm" | "decline" | "cancel";
export const BOOKING_ACTIONS: BookingAction[] = ["book", "confirm", "decline", "cancel"];

const US_ZONES: Array<[string, string]> = [
  ["America/New_York", "Eastern"],
  ["America/Chicago", "Central"],
  ["America/Denver", "Mountain"],
  ["America/Los_Angeles", "Pacific"],
  ["America/Phoenix", "Arizona"],
  ["America/Anchorage", "Alaska"],
  ["Pacific/Honolulu", "Hawaii"],
];
/** The choice without JavaScript: the company's zone first, then the US zones by the time they keep. */
export const ZONES: Array<[string, string]> = [
  [
    site.timeZone,
    `${US_ZONES.find(([z]) => z === site.timeZone)?.[1] ?? site.timeZone} (our office)`,
  ],
  ...US_ZONES.filter(([z]) => z !== site.timeZone),
];

/**
 * A US number as a visitor writes it ((303) 555-0142, 303-555-0142, 303.555.0142, +1 303 555 0142,
 * 1-303-555-0142, 3035550142) in its E.164 form "+13035550142", or why it is not one we can call: a
 * North American number (area code and exchange from 2 to 9), another country's only as +1.
 */
export function usPhoneOf(given: string): { e164: string } | { problem: string } {
  const text = given.trim();
  if (!text)
    return { problem: "Please give the phone number we should call, such as (303) 555-0142." };
  const example = "Write it with its area code, such as (303) 555-0142.";
  if (!/^\+?[0-9\s().-]+$/.test(text))
    return { problem: `A phone number has digits only. ${example}` };
  const digits = text.replace(/\D/g, "");
  if (text.startsWith("+") && !digits.startsWith("1"))
    return { problem: `We can call US numbers only (starting +1). ${example}` };
  const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
  if (!/^[2-9][0-9]{2}[2-9][0-9]{6}$/.test(national))
    return {
      problem: `That is not a US phone number: it needs 10 digits, with the area code. ${example}`,
    };
  return { e164: `+1${national}` };
}

/** "+13035550142" → "(303) 555-0142", as the company reads it. */
export const sayUsPhone = (e164: string) =>
  e164.replace(/^\+1(\d{3})(\d{3})(\d{4})$/, "($1) $2-$3");

/** What a button did: "unchanged" when it had been done, or the request had moved on, before. */
export type BookingDone =
  | "confirmed"
  | "declined"
  | "cancelled"
  | "conflict"
  | "passed"
  | "unchanged";
/** A time offered: `visitor` "10:30 AM MST" in the zone shown, `office` the same on the office's clock ("" when that zone is it). */
export type Slot = { at: number; visitor: string; office: string };
export type Refused = { kind: "invalid" | "expired" | "retired" | "gone" | "unavailable" };

export type BookingView =
  | Refused
  | { kind: "rate-limited"; retryAfterSeconds: number }
  /** The visitor's page: the slots of each day in `zone`; `asked`: their request as it stands. */
  | {
      kind: "book";
      token: string;
      zone: string;
      /** The zone shown, said in full: "Mountain Time (MST)" (both abbreviations across a change of clock). */
      zoneSaid: string;
      zones: Array<[string, string]>;
      name: string;
      /** The company's calendar could not be read lately: no slot is offered. */
      unchecked: boolean;
      days: Array<{ day: string; slots: Slot[] }>;
      /** `move`: the new time asked for a confirmed call, waiting for the company. */
      asked: { when: string; state: "asked" | "confirmed"; move: string | null } | null;
      /** POST: the slot was just held ("asked"), or another visitor had it first ("taken"). */
      result?: "asked" | "taken";
      /**
       * The number we call them at, asked when the consultation is a phone call (null: a video link,
       * nothing asked): as they typed it last (or as their request keeps it), and why it was refused.
       */
      phone: { value: string; problem?: string } | null;
    }
  /** The company's Confirm or Decline page; `done`: what pressing did. */
  | {
      kind: "company";
      action: "confirm" | "decline";
      token: string;
      who: string;
      when: string;
      /** The time shown: the button acts on it alone. */
      at: number;
      state: "asked" | "confirmed" | "cancelled" | "declined" | "none";
      /** A move's page: the confirmed time `when` moves from (null: a request). */
      from: string | null;
      done?: BookingDone;
    }
  /** The visitor's Cancel page. */
  | { kind: "cancel"; token: string; when: string; at: number; state: string; done?: boolean };

/** What the route asks the server (app/contact/context.ts). */
export interface BookingPage {
  open(token: string, zone: string | null, clientIp: string | undefined): Promise<BookingView>;
  act(
    token: string,
    /** `by`: the name given on the Confirm page (the "I'm on it" field, app/contact/lead.ts). */
    form: { slot?: string; zone?: string; note?: string; by?: string; phone?: string },
    clientIp: string | undefined,
  ): Promise<BookingView>;
}
