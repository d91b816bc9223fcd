import { setImmediate } from "node:timers/promises";
import { normalizeEmail } from "../erasure.ts";
import type { Label } from "../intake/content-filter.ts";
import type { Database, Sql } from "./database.ts";
import { queue } from "./outbox.ts";
import type { DeliveryRecord, Inquiry, InquiryRecord, NewDelivery } from "./records.ts";
import { inquiryRow, recordsWhere } from "./records.ts";
import { undo as forgetMark, mark } from "./training.ts";

/**
 * The table `inquiries` and what hangs on it. A submission is one transaction: its Idempotency-Key,
 * its rate-limit counters, then the inquiry, its deliveries and the key, together or not at all. A
 * person's verdict locks the row (PostgreSQL), so two presses on two instances take turns; Undo puts
 * back exactly what the last Spam or Not spam changed (review_undo).
 */

export type Limit = { key: string; points: number; durationMs: number };
type KeyRecord = { inquiryId: string; fingerprint: string | null };
type SaveRequest = {
  inquiry: Inquiry;
  deliveries: NewDelivery[];
  limits: Limit[];
  idempotency?: { key: string; fingerprint: string };
};
type SaveResult =
  | { kind: "saved" }
  | { kind: "key-seen"; first: KeyRecord }
  | { kind: "over-limit"; retryAfterMs: number };

export async function keyRecord(sql: Sql, key: string): Promise<KeyRecord | null> {
  const [row] = await sql.query(
    "SELECT inquiry_id, fingerprint FROM idempotency_keys WHERE key = ?",
    [key],
  );
  return row
    ? { inquiryId: String(row.inquiry_id), fingerprint: (row.fingerprint as string | null) ?? null }
    : null;
}

const insert = (tx: Sql, table: string, row: Record<string, unknown>) => {
  const columns = Object.keys(row);
  return tx.query(
    `INSERT INTO ${table} (${columns}) VALUES (${columns.map(() => "?")})`,
    Object.values(row),
  );
};

export async function save(db: Database, request: SaveRequest): Promise<SaveResult> {
  const { inquiry: i, deliveries, limits, idempotency } = request;
  const key = idempotency?.key;
  try {
    return await db.transaction<SaveResult>(async (tx) => {
      const first = key ? await keyRecord(tx, key) : null;
      if (first) return { kind: "key-seen", first };
      const blockedUntil = await countAgainst(tx, limits, i.receivedAt);
      if (blockedUntil !== null)
        return { kind: "over-limit", retryAfterMs: Math.max(0, blockedUntil - i.receivedAt) };
      await insert(tx, "inquiries", inquiryRow(i));
      await queue(tx, i.id, deliveries, i.receivedAt);
      if (idempotency) {
        const { key, fingerprint } = idempotency;
        await insert(tx, "idempotency_keys", {
          key,
          inquiry_id: i.id,
          created_at: i.receivedAt,
          fingerprint,
        });
      }
      return { kind: "saved" };
    });
  } catch (e) {
    // Two requests with one key at the same moment (PostgreSQL): the loser reads the winner's record.
    const first = key ? await keyRecord(db, key).catch(() => null) : null;
    if (first) return { kind: "key-seen", first };
    throw e;
  }
}

export async function seenMessage(sql: Sql, messageHash: string, since: number): Promise<boolean> {
  const sent = "SELECT 1 AS x FROM inquiries WHERE message_hash = ? AND received_at >= ? LIMIT 1";
  return (await sql.query(sent, [messageHash, since])).length > 0;
}

// When the furthest limit it is over frees up: a client told to come back then is over none.
export async function countAgainst(tx: Sql, limits: Limit[], now: number): Promise<number | null> {
  if (limits.length === 0) return null;
  const rows = await tx.query<{ key: string; points: number; expire: number }>(
    `INSERT INTO rate_limits (key, points, expire) VALUES ${limits.map(() => "(?, 1, ?)").join(", ")}
     ON CONFLICT (key) DO UPDATE SET
       points = CASE WHEN rate_limits.expire <= ? THEN 1 ELSE rate_limits.points + 1 END,
       expire = CASE WHEN rate_limits.expire <= ? THEN excluded.expire ELSE rate_limits.expire END
     RETURNING key, points, expire`,
    [...limits.flatMap((l) => [l.key, now + l.durationMs]), now, now],
  );
  const over = rows.filter(
    (r) => Number(r.points) > (limits.find((l) => l.key === r.key)?.points ?? Infinity),
  );
  return over.length > 0 ? Math.max(...over.map((r) => Number(r.expire))) : null;
}

export const list = (sql: Sql, { since = 0 } = {}) =>
  recordsWhere(sql, "i.received_at >= ?", [since]);
export const get = async (sql: Sql, id: string) =>
  (await recordsWhere(sql, "i.id = ?", [id]))[0] ?? null;
export const byIds = async (sql: Sql, ids: string[]) =>
  ids.length === 0 ? [] : recordsWhere(sql, `i.id IN (${ids.map(() => "?").join(", ")})`, ids);
export const byEmail = (sql: Sql, email: string) =>
  recordsWhere(sql, "LOWER(i.email) = ?", [normalizeEmail(email)]);
export const listHeld = (sql: Sql) => recordsWhere(sql, "i.held", []);
/** Rows read at a time: each page is a short step, and the server answers between two. */
const PAGE = 2000;

/**
 * The leads (not held as spam) received in [since, before), as the promise's figures read them:
 * times and service only, no person's data. In pages by arrival (the index's order), the event loop
 * given back after each: 100,000 inquiries read at once held every request of the instance for
 * 0.75 s (bench:figure).
 */
export async function* leadsReceived(sql: Sql, since: number, before: number) {
  const num = (v: number | null) => (v == null ? null : Number(v));
  let after = { r: since, id: "" };
  for (;;) {
    const rows = await sql.query<{
      id: string;
      r: number;
      s: string;
      t: number | null;
      d: number | null;
      h: number | null;
    }>(
      `SELECT id, received_at AS r, service AS s, taken_at AS t, reply_due_at AS d, reply_hours AS h FROM inquiries
       WHERE received_at >= ? AND (received_at > ? OR id > ?) AND received_at < ? AND NOT held
       ORDER BY received_at, id LIMIT ${PAGE}`,
      [after.r, after.r, after.id, before],
    );
    for (const row of rows) {
      yield {
        receivedAt: Number(row.r),
        service: String(row.s ?? ""),
        takenAt: num(row.t),
        // The "Reply by" fixed at receipt, and its promise (null: a lead from before that).
        dueAt: num(row.d),
        hours: num(row.h),
      };
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    after = { r: Number(last.r), id: String(last.id) };
    await setImmediate();
  }
}

export const leadTimes = (sql: Sql, since: number) =>
  recordsWhere(sql, "NOT i.held AND i.received_at >= ?", [since]);

export async function stats(sql: Sql, since: number) {
  const all = await list(sql, { since });
  const groups = Map.groupBy(
    all.flatMap((i) => i.deliveries),
    (d) => [d.channel, d.target, d.status].join("\n"),
  );
  const sorted = [...groups].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    inquiries: { total: all.length, held: all.filter((i) => i.held).length },
    deliveries: sorted.map(([, ds]) => {
      const { channel, target, status } = ds[0] as DeliveryRecord;
      return { channel, target, status, count: ds.length };
    }),
  };
}

export type Marked = {
  inquiry: InquiryRecord;
  changed: boolean;
  cancelled: string[];
  delivered: string[];
  underWay: string[];
  queued: Array<{ channel: string; target: string }>;
};
type Destinations = (inquiry: Inquiry) => NewDelivery[];

function review(
  db: Database,
  id: string,
  fn: (tx: Sql, inquiry: InquiryRecord, none: Marked) => Promise<Marked>,
) {
  return db.transaction(async (tx) => {
    if (tx.engine === "postgres")
      await tx.query("SELECT id FROM inquiries WHERE id = ? FOR UPDATE", [id]);
    const inquiry = await get(tx, id);
    const none = {
      inquiry,
      changed: false,
      cancelled: [],
      delivered: [],
      underWay: [],
      queued: [],
    };
    return inquiry ? fn(tx, inquiry, none as Marked) : null;
  });
}

/** A person's Spam or Not spam; `destinations` (unused by Spam): where a message that becomes a lead goes. */
export const judge = (
  db: Database,
  id: string,
  action: "spam" | "not-spam",
  destinations: Destinations,
  now: number,
) =>
  review(db, id, async (tx, inquiry, none) => {
    const spam = action === "spam";
    const label = spam ? "spam" : "genuine";
    const before = await markOf(tx, id);
    const changed = inquiry.held !== spam || before?.label !== label;
    if (changed) await remember(tx, inquiry, action, before);
    const done = spam
      ? await hold(tx, id, inquiry.heldReason ?? "marked as spam by a person")
      : { queued: inquiry.held ? await asLead(tx, inquiry, destinations, now) : [] };
    if (changed) await mark(tx, id, label, now);
    return { ...none, changed, ...done };
  });

export const undo = (
  db: Database,
  id: string,
  action: "spam" | "not-spam",
  destinations: Destinations,
  now: number,
) =>
  review(db, id, async (tx, inquiry, none) => {
    const [row] = await tx.query(
      "SELECT held, held_reason, label, marked_at FROM review_undo WHERE inquiry_id = ? AND action = ?",
      [id, action],
    );
    if (!row) return none;
    const held = row.held === true || row.held === 1;
    const heldReason = (row.held_reason as string | null) ?? null;
    let result: Marked = { ...none, changed: true };
    if (held && !inquiry.held) result = { ...result, ...(await hold(tx, id, heldReason)) };
    else if (!held && inquiry.held)
      result = { ...result, queued: await asLead(tx, inquiry, destinations, now) };
    else await tx.query("UPDATE inquiries SET held_reason = ? WHERE id = ?", [heldReason, id]);
    if (row.label == null) await forgetMark(tx, id);
    else await mark(tx, id, row.label as Label, Number(row.marked_at));
    await tx.query("DELETE FROM review_undo WHERE inquiry_id = ?", [id]);
    return result;
  });

export async function markOf(sql: Sql, id: string) {
  const [r] = await sql.query("SELECT label, marked_at FROM spam_training WHERE inquiry_id = ?", [
    id,
  ]);
  return r && { label: r.label as Label, markedAt: Number(r.marked_at) };
}

async function remember(
  tx: Sql,
  i: Inquiry,
  action: "spam" | "not-spam",
  before?: { label: Label; markedAt: number },
) {
  await tx.query(
    `INSERT INTO review_undo (inquiry_id, action, held, held_reason, label, marked_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (inquiry_id) DO UPDATE SET action = excluded.action, held = excluded.held,
         held_reason = excluded.held_reason, label = excluded.label, marked_at = excluded.marked_at`,
    [i.id, action, i.held, i.heldReason ?? null, before?.label ?? null, before?.markedAt ?? null],
  );
}

async function hold(tx: Sql, id: string, reason: string | null) {
  await tx.query("UPDATE inquiries SET held = ?, held_reason = ? WHERE id = ?", [true, reason, id]);
  const cancelled = await tx.query(
    "DELETE FROM deliveries WHERE inquiry_id = ? AND status IN ('pending', 'failed') RETURNING channel, kind",
    [id],
  );
  const left = await tx.query(
    "SELECT channel, status FROM deliveries WHERE inquiry_id = ? AND kind = 'lead' ORDER BY channel",
    [id],
  );
  const channelsIn = (status: string) =>
    left.filter((r) => r.status === status).map((r) => String(r.channel));
  return {
    cancelled: cancelled.filter((r) => r.kind === "lead").map((r) => String(r.channel)),
    delivered: channelsIn("sent"),
    underWay: channelsIn("sending"),
  };
}

async function asLead(tx: Sql, inquiry: InquiryRecord, destinations: Destinations, now: number) {
  await tx.query("UPDATE inquiries SET held = ?, held_reason = NULL WHERE id = ?", [
    false,
    inquiry.id,
  ]);
  // Where it has not gone: what Spam cancelled goes now, and no channel gets a lead twice.
  const had = new Set(inquiry.deliveries.map((d) => d.channel));
  const queued = destinations(inquiry).filter(
    (d) => (d.kind ?? "lead") !== "lead" || !had.has(d.channel),
  );
  await queue(tx, inquiry.id, queued, now);
  return queued
    .filter((d) => (d.kind ?? "lead") === "lead")
    .map(({ channel, target }) => ({ channel, target }));
}

export type Taken = { inquiry: InquiryRecord; first: boolean };

export async function take(
  db: Sql,
  id: string,
  by: string | null,
  now: number,
  reports: Destinations,
) {
  return db.transaction(async (tx): Promise<Taken | null> => {
    const updated = await tx.query(
      "UPDATE inquiries SET taken_at = ?, taken_by = ? WHERE id = ? AND taken_at IS NULL RETURNING id",
      [now, by, id],
    );
    const inquiry = await get(tx, id);
    const first = updated.length === 1;
    // Its reminder stays queued: the worker drops it when it is due (reminders.ts, one rule).
    if (inquiry && first && !inquiry.held) await queue(tx, id, reports(inquiry), now);
    return inquiry ? { inquiry, first } : null;
  });
}

export async function recordReminded(
  db: Database,
  id: string,
  now: number,
  reports: NewDelivery[],
) {
  await db.transaction(async (tx) => {
    const [row] = await tx.query(
      "UPDATE inquiries SET reminded_at = ? WHERE id = ? RETURNING held",
      [now, id],
    );
    if (row && !row.held) await queue(tx, id, reports, now);
  });
}
