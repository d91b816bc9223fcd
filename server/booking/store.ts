import { site } from "../../app/config/site.ts";
import type { Sql } from "../contact/storage/database.ts";
import type { Busy } from "./slots.ts";

/**
 * The booking's tables (db/migrations/*\/002_bookings.sql, 003_booking_holds.sql): one request per
 * inquiry, and the feeds' last good copies. Which bookings hold their time is one rule, `holds`,
 * read where it matters and never stored: "Not spam" makes a pick hold at once, "Spam" frees it, a
 * hold that ran out frees its time. A booking is made to hold (a pick, Confirm) only under the
 * booking lock, once no other holds an overlapping time; every change of state carries its
 * precondition in its UPDATE, so two presses at once on two instances end in one state. Erasing an
 * inquiry erases its booking (the cascade); a confirmed call still ahead is taken first (`callsAhead`).
 */

/** Whether booking `b` holds [starts_at, ends_at) at the moment its one `?` is given. */
const holds = (b: string) =>
  `(${b}.state = 'confirmed' OR (${b}.state = 'asked' AND ${b}.hold_until > ? AND NOT EXISTS
     (SELECT 1 FROM inquiries i WHERE i.id = ${b}.inquiry_id AND i.held)))`;
/**
 * Whether booking `b`'s move holds [move_starts_at, move_ends_at) at its one `?`: a confirmed call's
 * new time, until its hold runs out. No cap counts it: one per call, and a person confirmed that call.
 */
const movesHold = (b: string) => `(${b}.state = 'confirmed' AND ${b}.move_hold_until > ?)`;
/** No other booking holds a time, or a move's time, overlapping [`starts`, `ends`): two `?`, both now. */
const free = (self: string, starts: string, ends: string) =>
  `NOT EXISTS (SELECT 1 FROM bookings o WHERE o.inquiry_id <> ${self} AND (
     (o.starts_at < ${ends} AND o.ends_at > ${starts} AND ${holds("o")})
     OR (o.move_starts_at < ${ends} AND o.move_ends_at > ${starts} AND ${movesHold("o")})))`;

// Taken first by every transaction that makes a booking hold. SQLite needs none: its transactions
// begin IMMEDIATE and their bodies run one at a time (storage/sqlite.ts).
const lock = (tx: Sql) =>
  tx.engine === "postgres"
    ? tx.query("SELECT pg_advisory_xact_lock(7305200029)")
    : Promise.resolve([]);

export type BookingState = "asked" | "confirmed" | "cancelled" | "declined";
/**
 * `holdUntil`: when an asked time stops holding (null: it holds nothing); `confirmedAt`: when it was
 * confirmed (its invitation's UID); `confirmedBy`: the name its confirmer gave (null: none given);
 * `changedAt`: when it came to its state, or to its time (a move confirmed); `sequence`: its
 * invitation's; `remindedAt`: when the visitor's reminder was claimed; `move`: a new time the
 * visitor asked for a confirmed call, waiting for the company; `phone`: the number to call
 * (E.164), null unless the consultation is a phone call.
 */
export type Booking = {
  inquiryId: string;
  startsAt: number;
  endsAt: number;
  zone: string;
  state: BookingState;
  holdUntil: number | null;
  confirmedAt: number | null;
  confirmedBy: string | null;
  changedAt: number;
  sequence: number;
  remindedAt: number | null;
  move: { startsAt: number; endsAt: number; zone: string; holdUntil: number | null } | null;
  phone: string | null;
};

const orNull = (v: unknown) => (v == null ? null : Number(v));
const bookingFrom = (r: Record<string, unknown>): Booking => ({
  inquiryId: String(r.inquiry_id),
  startsAt: Number(r.starts_at),
  endsAt: Number(r.ends_at),
  zone: String(r.zone),
  state: r.state as BookingState,
  holdUntil: orNull(r.hold_until),
  confirmedAt: orNull(r.confirmed_at),
  confirmedBy: r.confirmed_by == null ? null : String(r.confirmed_by),
  changedAt: Number(r.changed_at),
  sequence: Number(r.sequence ?? 0),
  remindedAt: orNull(r.reminded_at),
  move:
    r.move_starts_at == null
      ? null
      : {
          startsAt: Number(r.move_starts_at),
          endsAt: Number(r.move_ends_at),
          zone: String(r.move_zone),
          holdUntil: orNull(r.move_hold_until),
        },
  phone: r.phone == null ? null : String(r.phone),
});
const NO_MOVE =
  "move_starts_at = NULL, move_ends_at = NULL, move_zone = NULL, move_hold_until = NULL";

/** A request, or a confirmed call's move, waiting for the company's answer for a time still ahead. */
const waitsFor = (b: string) =>
  `((${b}.state = 'asked' AND ${b}.starts_at > ?) OR (${b}.state = 'confirmed' AND ${b}.move_starts_at > ?))`;

/**
 * What the morning digest tells: the calls confirmed to start in [from, to), and the requests and
 * moves nobody answered yet for a time still ahead (not of a message held as spam: the company has
 * not heard of those), soonest first.
 */
export async function bookingsToTell(sql: Sql, from: number, to: number, now: number) {
  const rows = await sql.query(
    `SELECT b.* FROM bookings b JOIN inquiries i ON i.id = b.inquiry_id
      WHERE (b.state = 'confirmed' AND b.starts_at >= ? AND b.starts_at < ?)
         OR (${waitsFor("b")} AND NOT i.held)
      ORDER BY b.starts_at`,
    [from, to, now, now],
  );
  return rows.map(bookingFrom);
}

export async function bookingOf(sql: Sql, inquiryId: string): Promise<Booking | null> {
  const [r] = await sql.query("SELECT * FROM bookings WHERE inquiry_id = ?", [inquiryId]);
  return r ? bookingFrom(r) : null;
}

/** How many of each list the overview shows: a bounded page, however many wait. */
const LISTED = 50;

/**
 * What the overview lists: the requests and moves waiting for an answer (of inquiries not held as
 * spam) for a time still ahead, soonest first (one whose time passed can no longer be confirmed: its visitor
 * picks again once declined), and the calls confirmed to start within [from, to), soonest first.
 */
export async function bookingsToList(sql: Sql, from: number, to: number, now: number) {
  const notHeld = "NOT EXISTS (SELECT 1 FROM inquiries i WHERE i.id = b.inquiry_id AND i.held)";
  const [asked, calls] = await Promise.all([
    sql.query(
      `SELECT * FROM bookings b WHERE ${waitsFor("b")} AND ${notHeld}
        ORDER BY COALESCE(b.move_starts_at, b.starts_at) LIMIT ${LISTED}`,
      [now, now],
    ),
    sql.query(
      `SELECT * FROM bookings b WHERE b.state = 'confirmed' AND b.starts_at >= ? AND b.starts_at < ?
        ORDER BY b.starts_at LIMIT ${LISTED}`,
      [from, to],
    ),
  ]);
  return { asked: asked.map(bookingFrom), calls: calls.map(bookingFrom) };
}

/**
 * The times bookings hold at `now`: busy times for the slots offered to `inquiryId` (slots.ts). Its own
 * request is replaced by a pick, and its own move too, but its confirmed time is no time to move to.
 */
export async function holdingTimes(sql: Sql, inquiryId: string, now: number): Promise<Busy> {
  const rows = await sql.query(
    `SELECT starts_at, ends_at FROM bookings b
      WHERE (b.inquiry_id <> ? OR b.state = 'confirmed') AND b.ends_at > ? AND ${holds("b")}
     UNION ALL SELECT move_starts_at, move_ends_at FROM bookings b
      WHERE b.inquiry_id <> ? AND b.move_ends_at > ? AND ${movesHold("b")}`,
    [inquiryId, now, now, inquiryId, now, now],
  );
  return rows.map((r) => [Number(r.starts_at), Number(r.ends_at)]);
}

// A booking made to hold ends the claims others' picks had on an overlapping time and could not use
// (a message held as spam): "Not spam" pressed later, or at the same moment, finds it taken.
const endClaims = (tx: Sql, b: Pick<Booking, "inquiryId" | "startsAt" | "endsAt">) =>
  tx.query(
    `UPDATE bookings SET hold_until = NULL
      WHERE inquiry_id <> ? AND state = 'asked' AND hold_until IS NOT NULL AND starts_at < ? AND ends_at > ?`,
    [b.inquiryId, b.endsAt, b.startsAt],
  );

/** A visitor's pick: by whom (the keyed hashes of their client's address and network, their email's domain). */
export type Asked = Pick<Booking, "inquiryId" | "startsAt" | "endsAt" | "zone" | "phone"> & {
  address: string | null;
  network: string | null;
  domain: string;
  holdUntil: number;
};

/**
 * The visitor's pick, in place of their request before, if `offered` (the times open to the inquiry,
 * read under the lock) has it. It is asked whatever the caps say, and holds until `holdUntil` only
 * while the picking address, its network and the email's domain hold fewer times than site.booking
 * allows: the company hears of it either way, and the visitor reads the same. A pick for a confirmed
 * call is its move, in place of a move asked before: the confirmed time stays, the new one holds
 * until `holdUntil`. `then` queues the company's message, told until when it holds, the state of the
 * request it replaced ("asked" for a move replaced) and the confirmed time a move is from. False:
 * not open, or the booking changed meanwhile; nothing changed.
 */
export async function ask(
  db: Sql,
  p: Asked,
  now: number,
  offered: (tx: Sql) => Promise<number[] | null>,
  then: (
    tx: Sql,
    made: { holdUntil: number | null; replaced: BookingState | null; moveFrom?: Booking },
  ) => Promise<void>,
): Promise<boolean> {
  const { holdsPerAddress, holdsPerNetwork, holdsPerDomain, sharedMailDomains } = site.booking;
  // A domain anyone can have an address on says nothing of who picks: it caps nobody.
  const domainCounts = !(sharedMailDomains as readonly string[]).includes(p.domain);
  return db.transaction(async (tx) => {
    await lock(tx);
    if (!(await offered(tx))?.includes(p.startsAt)) return false;
    const before = await bookingOf(tx, p.inquiryId);
    if (before?.state === "confirmed") {
      const [moved] = await tx.query(
        // The number given with the move is the one to call from now on (none asked: the one kept).
        `UPDATE bookings SET move_starts_at = ?, move_ends_at = ?, move_zone = ?, move_hold_until = ?,
           phone = COALESCE(?, phone)
          WHERE inquiry_id = ? AND state = 'confirmed' AND starts_at = ? RETURNING inquiry_id`,
        [p.startsAt, p.endsAt, p.zone, p.holdUntil, p.phone, p.inquiryId, before.startsAt],
      );
      if (!moved) return false;
      await endClaims(tx, p);
      const replaced = before.move ? "asked" : null;
      await then(tx, { holdUntil: p.holdUntil, replaced, moveFrom: before });
      return true;
    }
    const replaced = before?.state ?? null;
    const [held] = await tx.query(
      `SELECT SUM(CASE WHEN b.address = ? THEN 1 ELSE 0 END) AS address,
              SUM(CASE WHEN b.network = ? THEN 1 ELSE 0 END) AS network,
              SUM(CASE WHEN b.domain = ? THEN 1 ELSE 0 END) AS domain
         FROM bookings b WHERE b.inquiry_id <> ? AND b.state = 'asked' AND ${holds("b")}`,
      [p.address, p.network, p.domain, p.inquiryId, now],
    );
    const within =
      Number(held?.address ?? 0) < holdsPerAddress &&
      Number(held?.network ?? 0) < holdsPerNetwork &&
      (!domainCounts || Number(held?.domain ?? 0) < holdsPerDomain);
    const holdUntil = within ? p.holdUntil : null;
    const made = await tx.query(
      `INSERT INTO bookings (inquiry_id, starts_at, ends_at, zone, state, hold_until, address, network, domain, confirmed_at, changed_at, phone)
       VALUES (?, ?, ?, ?, 'asked', ?, ?, ?, ?, NULL, ?, ?)
       ON CONFLICT (inquiry_id) DO UPDATE SET starts_at = excluded.starts_at, ends_at = excluded.ends_at,
         zone = excluded.zone, state = 'asked', hold_until = excluded.hold_until, address = excluded.address,
         network = excluded.network, domain = excluded.domain, confirmed_at = NULL, confirmed_by = NULL, changed_at = excluded.changed_at,
         phone = excluded.phone
       WHERE bookings.state <> 'confirmed' RETURNING inquiry_id`,
      [
        p.inquiryId,
        p.startsAt,
        p.endsAt,
        p.zone,
        holdUntil,
        p.address,
        p.network,
        p.domain,
        now,
        p.phone,
      ],
    );
    if (made.length === 0) return false;
    if (holdUntil !== null) await endClaims(tx, p);
    await then(tx, { holdUntil, replaced });
    return true;
  });
}

/**
 * A request moved on by a button: `from` the states it may be in, `at` the time its page showed,
 * `to` the new state, `by` the name of who confirms (Confirm alone). Confirm makes it hold: under the lock, and only if no other booking holds an
 * overlapping time ("conflict"). `then` gets it as it is now, in the same transaction. null: it was
 * not in `from` (moved on by a press before, here or on another instance) or is for another time.
 */
export async function move(
  db: Sql,
  inquiryId: string,
  from: BookingState[],
  at: number,
  to: BookingState,
  now: number,
  then: (tx: Sql, b: Booking) => Promise<void>,
  by: string | null = null,
): Promise<Booking | "conflict" | null> {
  const confirm = to === "confirmed";
  return db.transaction(async (tx) => {
    if (confirm) await lock(tx);
    const [r] = await tx.query(
      `UPDATE bookings SET state = ?, changed_at = ?, ${NO_MOVE}${confirm ? ", confirmed_at = ?, confirmed_by = ?, sequence = 0, reminded_at = NULL" : ""}
        WHERE inquiry_id = ? AND state IN (${from.map(() => "?")}) AND starts_at = ?${
          confirm
            ? ` AND ${free("bookings.inquiry_id", "bookings.starts_at", "bookings.ends_at")}`
            : ""
        } RETURNING *`,
      [
        to,
        now,
        ...(confirm ? [now, by] : []),
        inquiryId,
        ...from,
        at,
        ...(confirm ? [now, now] : []),
      ],
    );
    if (!r) {
      const b = confirm ? await bookingOf(tx, inquiryId) : null;
      return b && from.includes(b.state) && b.startsAt === at ? "conflict" : null;
    }
    const b = bookingFrom(r);
    if (confirm) await endClaims(tx, b);
    await then(tx, b);
    return b;
  });
}

/**
 * The company's answer to a move whose new time starts `at`: Confirm makes it the call's time (under
 * the lock, if no other booking holds an overlapping time: "conflict"), one SEQUENCE on, to be
 * reminded of again; Decline drops it, the confirmed time stays. `then` gets the call as it was and
 * as it is now, in the same transaction. null: no such move waits (answered before, replaced by
 * another, or the call cancelled: here or on another instance).
 */
export async function settleMove(
  db: Sql,
  inquiryId: string,
  at: number,
  confirm: boolean,
  now: number,
  then: (tx: Sql, was: Booking, is: Booking) => Promise<void>,
): Promise<Booking | "conflict" | null> {
  return db.transaction(async (tx) => {
    if (confirm) await lock(tx);
    const was = await bookingOf(tx, inquiryId);
    if (was?.state !== "confirmed" || was.move?.startsAt !== at) return null;
    const [r] = await tx.query(
      confirm
        ? `UPDATE bookings SET starts_at = move_starts_at, ends_at = move_ends_at, zone = move_zone,
             sequence = sequence + 1, reminded_at = NULL, changed_at = ?, ${NO_MOVE}
            WHERE inquiry_id = ? AND state = 'confirmed' AND move_starts_at = ? AND starts_at = ?
              AND ${free("bookings.inquiry_id", "bookings.move_starts_at", "bookings.move_ends_at")}
            RETURNING *`
        : `UPDATE bookings SET ${NO_MOVE}
            WHERE inquiry_id = ? AND state = 'confirmed' AND move_starts_at = ? AND starts_at = ?
            RETURNING *`,
      confirm ? [now, inquiryId, at, was.startsAt, now, now] : [inquiryId, at, was.startsAt],
    );
    if (!r) {
      const still = await bookingOf(tx, inquiryId);
      const waits = still?.state === "confirmed" && still.move?.startsAt === at;
      return confirm && waits ? "conflict" : null;
    }
    const is = bookingFrom(r);
    if (confirm) await endClaims(tx, is);
    await then(tx, was, is);
    return is;
  });
}

/**
 * Confirmed calls starting within `aheadMs`, not yet reminded of, earliest first (a bounded list;
 * which are due is the reminder's rule, slots.ts `reminderDue`).
 */
export async function toRemind(sql: Sql, now: number, aheadMs: number, limit: number) {
  const rows = await sql.query(
    `SELECT * FROM bookings WHERE state = 'confirmed' AND reminded_at IS NULL AND starts_at > ?
        AND starts_at <= ? ORDER BY starts_at LIMIT ?`,
    [now, now + aheadMs, limit],
  );
  return rows.map(bookingFrom);
}

/**
 * The confirmed calls still ahead of the inquiries `selected` (an SQL condition on inquiry_id, with
 * its `params`), deleted: the erasure withdraws each from both calendars. The row goes with its
 * precondition, so the erasures of two instances at once, or a visitor's Cancel, take it once.
 */
export async function callsAhead(
  tx: Sql,
  selected: string,
  params: unknown[],
  now: number,
): Promise<Booking[]> {
  const rows = await tx.query(
    `DELETE FROM bookings WHERE state = 'confirmed' AND starts_at > ? AND ${selected} RETURNING *`,
    [now, ...params],
  );
  return rows.map(bookingFrom);
}

/**
 * The reminder of call `b`, claimed once whatever the instances (the second's UPDATE waits for the
 * first's, then finds it reminded), and only for the time it names, still confirmed: `then` queues
 * it in the same transaction.
 */
export async function claimReminder(
  db: Sql,
  b: Booking,
  now: number,
  then: (tx: Sql, b: Booking) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [r] = await tx.query(
      `UPDATE bookings SET reminded_at = ? WHERE inquiry_id = ? AND state = 'confirmed'
          AND reminded_at IS NULL AND starts_at = ? RETURNING *`,
      [now, b.inquiryId, b.startsAt],
    );
    if (!r) return false;
    await then(tx, bookingFrom(r));
    return true;
  });
}

export type Feed = { feed: string; busy: Array<[number, number]>; readAt: number };

export async function feedsRead(sql: Sql): Promise<Feed[]> {
  const rows = await sql.query("SELECT feed, busy, read_at FROM booking_feeds");
  return rows.map((r) => ({
    feed: String(r.feed),
    busy: JSON.parse(String(r.busy)),
    readAt: Number(r.read_at),
  }));
}

/** A feed read well replaces its last copy: every instance reads on its own turn, and the newest read wins. */
export async function recordFeed(
  sql: Sql,
  feed: string,
  busy: Array<[number, number]>,
  now: number,
) {
  await sql.query(
    "INSERT INTO booking_feeds (feed, busy, read_at) VALUES (?, ?, ?) ON CONFLICT (feed) DO UPDATE SET busy = excluded.busy, read_at = excluded.read_at",
    [feed, JSON.stringify(busy), now],
  );
}
