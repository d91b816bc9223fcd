import type { Sql } from "../contact/storage/database.ts";

/**
 * The booking's tables (db/migrations/*\/002_bookings.sql): one request per inquiry, whose `slot`
 * holds its time, and the feeds' last good copies. A time is held by an insert the unique index
 * accepts or refuses: on PostgreSQL a second instance's insert waits for the first and then does
 * nothing, so two visitors never hold one slot. Erasing an inquiry erases its booking (the cascade).
 */

const SPAM = "EXISTS (SELECT 1 FROM inquiries i WHERE i.id = bookings.inquiry_id AND i.held)";

export type BookingState = "asked" | "confirmed" | "cancelled" | "declined";
type Request = { inquiryId: string; startsAt: number; zone: string; state: BookingState; slot: number | null };
/** `changedAt`: when it came to its state (a confirmed booking's: its confirmation). */
export type Booking = Request & { changedAt: number };

export async function bookingOf(sql: Sql, inquiryId: string): Promise<Booking | null> {
  const [r] = await sql.query("SELECT * FROM bookings WHERE inquiry_id = ?", [inquiryId]);
  return r
    ? {
        inquiryId,
        startsAt: Number(r.starts_at),
        zone: String(r.zone),
        state: r.state as BookingState,
        slot: r.slot == null ? null : Number(r.slot),
        changedAt: Number(r.changed_at),
      }
    : null;
}

/** The times other inquiries hold (one marked spam since holds none: a pick takes it back, see `ask`). */
export async function heldSlots(sql: Sql, inquiryId: string): Promise<Set<number>> {
  const rows = await sql.query(`SELECT slot FROM bookings WHERE inquiry_id <> ? AND slot IS NOT NULL AND NOT ${SPAM}`, [
    inquiryId,
  ]);
  return new Set(rows.map((r) => Number(r.slot)));
}

/**
 * The visitor's pick, in place of their request before (a confirmed one stays): `holds` false (a
 * message held as spam) asks without holding. `then` queues the company's message in the same
 * transaction. False: another inquiry holds that time, and nothing changed.
 */
export async function ask(
  db: Sql,
  b: { inquiryId: string; at: number; zone: string; holds: boolean },
  now: number,
  then: (tx: Sql) => Promise<void>,
): Promise<boolean> {
  const values = [b.at, b.zone, b.holds ? b.at : null, now, b.inquiryId];
  try {
    return await db.transaction(async (tx) => {
      await tx.query(`UPDATE bookings SET slot = NULL WHERE slot = ? AND ${SPAM}`, [b.at]);
      const changed = await tx.query(
        `UPDATE bookings SET starts_at = ?, zone = ?, state = 'asked', slot = ?, changed_at = ?
         WHERE inquiry_id = ? AND state <> 'confirmed' RETURNING inquiry_id`,
        values,
      );
      const made =
        changed.length > 0 ||
        (
          await tx.query(
            `INSERT INTO bookings (starts_at, zone, state, slot, changed_at, inquiry_id) VALUES (?, ?, 'asked', ?, ?, ?)
             ON CONFLICT DO NOTHING RETURNING inquiry_id`,
            values,
          )
        ).length > 0;
      if (made) await then(tx);
      return made;
    });
  } catch (e) {
    if (refused(e)) return false;
    throw e;
  }
}

// The unique index refused the time (SQLite and PostgreSQL say it so): the whole change rolled back.
const refused = (e: unknown) => /unique|duplicate key/i.test((e as Error).message);

/**
 * A request moved on: `from` the state it must be in, `at` its time, `to` the new one; a confirmed booking holds
 * its time (a request that held none, a message once held as spam, takes it now), the others hold
 * none; `then` gets it as it was. "conflict": another inquiry holds the time; null: it was not in
 * `from` (done already) or is for another time.
 */
export async function move(
  db: Sql,
  inquiryId: string,
  from: BookingState[],
  at: number,
  to: BookingState,
  now: number,
  then: (tx: Sql, b: Booking) => Promise<void>,
): Promise<Booking | "conflict" | null> {
  try {
    return await db.transaction(async (tx) => {
      const b = await bookingOf(tx, inquiryId);
      if (!b || !from.includes(b.state) || b.startsAt !== at) return null;
      const slot = to === "confirmed" ? b.startsAt : null;
      await tx.query("UPDATE bookings SET state = ?, slot = ?, changed_at = ? WHERE inquiry_id = ?", [
        to,
        slot,
        now,
        inquiryId,
      ]);
      await then(tx, b);
      return { ...b, state: to, slot, changedAt: now };
    });
  } catch (e) {
    if (refused(e)) return "conflict";
    throw e;
  }
}

export type Feed = { feed: string; busy: Array<[number, number]>; readAt: number };

export async function feedsRead(sql: Sql): Promise<Feed[]> {
  const rows = await sql.query("SELECT feed, busy, read_at FROM booking_feeds");
  return rows.map((r) => ({ feed: String(r.feed), busy: JSON.parse(String(r.busy)), readAt: Number(r.read_at) }));
}

/** A feed read well replaces its last copy: every instance reads on its own turn, and the newest read wins. */
export async function recordFeed(sql: Sql, feed: string, busy: Array<[number, number]>, now: number) {
  await sql.query(
    "INSERT INTO booking_feeds (feed, busy, read_at) VALUES (?, ?, ?) ON CONFLICT (feed) DO UPDATE SET busy = excluded.busy, read_at = excluded.read_at",
    [feed, JSON.stringify(busy), now],
  );
}
