import { normalizeEmail } from "../erasure.ts";
import type { Label } from "../intake/content-filter.ts";
import type { Database, Sql } from "./database.ts";
import { queue } from "./outbox.ts";
import {
  DELIVERY_COLUMNS,
  type DeliveryRecord,
  type DeliveryStatus,
  INQUIRY_COLUMNS,
  type Inquiry,
  type InquiryRecord,
  type NewDelivery,
  summarize,
  toDelivery,
  toInquiry,
} from "./records.ts";
import { undo as forgetMark, mark } from "./training.ts";

/**
 * The table `inquiries` and what hangs on it. What a submission writes, in one ordinary transaction on either engine: its Idempotency-Key
 * (a key seen before stores and counts nothing), its rate-limit counters (over any limit, nothing
 * is stored), then the inquiry, its deliveries and the key's record — together or not at all.
 */

export type Limit = { key: string; points: number; durationMs: number };

export type KeyRecord = { inquiryId: string; fingerprint: string | null };

export type SaveRequest = {
  inquiry: Inquiry;
  deliveries: NewDelivery[];
  limits: Limit[];
  idempotency?: { key: string; fingerprint: string };
};

export type SaveResult =
  | { kind: "saved" }
  | { kind: "key-seen"; first: KeyRecord }
  | { kind: "over-limit"; retryAfterMs: number };

export async function keyRecord(sql: Sql, key: string): Promise<KeyRecord | null> {
  const [row] = await sql.query<{ inquiry_id: string; fingerprint: string | null }>(
    "SELECT inquiry_id, fingerprint FROM idempotency_keys WHERE key = ?",
    [key],
  );
  return row ? { inquiryId: String(row.inquiry_id), fingerprint: row.fingerprint ?? null } : null;
}

export async function save(
  sql: Database,
  { inquiry: i, deliveries, limits, idempotency }: SaveRequest,
): Promise<SaveResult> {
  const key = idempotency?.key;
  try {
    return await sql.transaction<SaveResult>(async (tx) => {
      const first = key ? await keyRecord(tx, key) : null;
      if (first) return { kind: "key-seen", first };
      const blockedUntil = await countLimits(tx, limits, i.receivedAt);
      if (blockedUntil !== null) return { kind: "over-limit", retryAfterMs: Math.max(0, blockedUntil - i.receivedAt) };
      await tx.query(
        `INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash, source,
                                  held, held_reason, message_hash, spam_score, suspect)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          i.id,
          i.receivedAt,
          i.name,
          i.email,
          i.company,
          i.service,
          i.message,
          i.page,
          i.userAgent,
          i.ipHash,
          i.source,
          i.held,
          i.heldReason ?? null,
          i.messageHash ?? null,
          i.spamScore ?? null,
          i.suspect ?? false,
        ],
      );
      await queue(tx, i.id, deliveries, i.receivedAt);
      if (idempotency) {
        await tx.query("INSERT INTO idempotency_keys (key, inquiry_id, created_at, fingerprint) VALUES (?, ?, ?, ?)", [
          idempotency.key,
          i.id,
          i.receivedAt,
          idempotency.fingerprint,
        ]);
      }
      return { kind: "saved" };
    });
  } catch (e) {
    // Two requests with one key at the same moment (PostgreSQL): the loser reads the winner's record.
    const first = key ? await keyRecord(sql, key).catch(() => null) : null;
    if (first) return { kind: "key-seen", first };
    throw e;
  }
}

export async function seenMessage(sql: Sql, messageHash: string, since: number): Promise<boolean> {
  const rows = await sql.query("SELECT 1 AS x FROM inquiries WHERE message_hash = ? AND received_at >= ? LIMIT 1", [
    messageHash,
    since,
  ]);
  return rows.length > 0;
}

export function countAgainst(db: Database, limits: Limit[], now: number): Promise<number | null> {
  return db.transaction((tx) => countLimits(tx, limits, now));
}

/**
 * The rate-limit rule: count one submission against each limit (a window starts again once it has
 * expired) and return when the furthest limit it is over frees up, or null if it is over none.
 */
async function countLimits(tx: Sql, limits: Limit[], now: number): Promise<number | null> {
  if (limits.length === 0) return null;
  const rows = await tx.query<{ key: string; points: number; expire: number }>(
    `INSERT INTO rate_limits (key, points, expire) VALUES ${limits.map(() => "(?, 1, ?)").join(", ")}
     ON CONFLICT (key) DO UPDATE SET
       points = CASE WHEN rate_limits.expire <= ? THEN 1 ELSE rate_limits.points + 1 END,
       expire = CASE WHEN rate_limits.expire <= ? THEN excluded.expire ELSE rate_limits.expire END
     RETURNING key, points, expire`,
    [...limits.flatMap((l) => [l.key, now + l.durationMs]), now, now],
  );
  const over = rows.filter((r) => Number(r.points) > (limits.find((l) => l.key === r.key)?.points ?? Infinity));
  return over.length > 0 ? Math.max(...over.map((r) => Number(r.expire))) : null;
}

/* What operators and reports read and change (the CLI, the daily summary); contact/erasure.ts deletes. */

export function list(sql: Sql, opts: { since?: number } = {}): Promise<InquiryRecord[]> {
  return records(sql, "i.received_at >= ?", [opts.since ?? 0]);
}

export async function get(sql: Sql, id: string): Promise<InquiryRecord | null> {
  return (await records(sql, "i.id = ?", [id]))[0] ?? null;
}

async function records(sql: Sql, where: string, params: unknown[]): Promise<InquiryRecord[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE ${where} ORDER BY i.received_at DESC, i.id`,
    params,
  );
  const deliveries = await sql.query(
    `SELECT d.inquiry_id, ${DELIVERY_COLUMNS} FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE d.kind = 'lead' AND ${where} ORDER BY d.channel`,
    params,
  );
  const byInquiry = new Map<string, DeliveryRecord[]>();
  for (const d of deliveries) {
    const list = byInquiry.get(String(d.inquiry_id)) ?? [];
    list.push(toDelivery(d));
    byInquiry.set(String(d.inquiry_id), list);
  }
  return rows.map((r) => summarize(toInquiry(r), byInquiry.get(String(r.id)) ?? []));
}

export function byEmail(sql: Sql, email: string): Promise<InquiryRecord[]> {
  return records(sql, "LOWER(i.email) = ?", [normalizeEmail(email)]);
}

export async function stats(sql: Sql, since: number) {
  const [i] = await sql.query<{ n: number; held: number }>(
    `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN held THEN 1 ELSE 0 END), 0) AS held
       FROM inquiries WHERE received_at >= ?`,
    [since],
  );
  // Where the leads went: per channel, target (delivery/routing.ts) and status.
  const rows = await sql.query<{
    channel: string;
    target: string;
    status: DeliveryStatus;
    n: number;
  }>(
    `SELECT d.channel, d.target, d.status, COUNT(*) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE d.kind = 'lead' AND i.received_at >= ? GROUP BY d.channel, d.target, d.status ORDER BY d.channel, d.target, d.status`,
    [since],
  );
  return {
    inquiries: { total: Number(i?.n ?? 0), held: Number(i?.held ?? 0) },
    deliveries: rows.map((r) => ({
      channel: r.channel,
      target: r.target,
      status: r.status,
      count: Number(r.n),
    })),
  };
}

export async function listHeld(sql: Sql, since = 0): Promise<Inquiry[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE i.held AND i.received_at >= ? ORDER BY i.received_at DESC, i.id`,
    [since],
  );
  return rows.map(toInquiry);
}

export type Marked = {
  inquiry: InquiryRecord;
  changed: boolean;
  cancelled: string[];
  delivered: string[];
  underWay: string[];
  queued: Array<{ channel: string; target: string }>;
};

/**
 * "Spam": the filter learns it as spam, it is held out of the inbox from now on, and its deliveries
 * not made yet (pending, or failed and waiting for `retry`) are cancelled; one under way is not
 * retried (storage/outbox.ts). Says which had gone already. Null if there is no such inquiry.
 */
export async function markSpam(db: Database, id: string, now: number): Promise<Marked | null> {
  return db.transaction(async (tx) => {
    const inquiry = await getLocked(tx, id);
    if (!inquiry) return null;
    const before = await markOf(tx, id);
    const changed = !inquiry.held || before?.label !== "spam";
    if (changed) await remember(tx, inquiry, "spam", before);
    const gone = await hold(tx, id, inquiry.heldReason ?? "marked as spam by a person");
    if (changed) await mark(tx, id, "spam", now);
    return { inquiry, changed, ...gone, queued: [] };
  });
}

/**
 * "Not spam": the filter learns it as genuine; a held inquiry is a lead from now on, queued for the
 * `destinations` its service's leads have now that have not had it (a lead marked spam by mistake
 * gets what was cancelled). Null if there is no such inquiry.
 */
export async function notSpam(
  db: Database,
  id: string,
  destinations: (inquiry: Inquiry) => NewDelivery[],
  now: number,
): Promise<Marked | null> {
  return db.transaction(async (tx) => {
    const inquiry = await getLocked(tx, id);
    if (!inquiry) return null;
    const before = await markOf(tx, id);
    const changed = inquiry.held || before?.label !== "genuine";
    if (changed) await remember(tx, inquiry, "not-spam", before);
    const queued = inquiry.held ? await asLead(tx, inquiry, destinations, now) : [];
    if (changed) await mark(tx, id, "genuine", now);
    return { inquiry, changed, cancelled: [], delivered: [], underWay: [], queued };
  });
}

/**
 * Undo: put back exactly what the last `action` on the inquiry changed (review_undo): held or not,
 * its reason, and the filter's mark as it was (none: none). Unheld again, it is queued where it had
 * not gone; held again, its deliveries not made yet are cancelled. Nothing to undo (undone already,
 * or another action since): `changed: false`. Null if there is no such inquiry.
 */
export async function undo(
  db: Database,
  id: string,
  action: "spam" | "not-spam",
  destinations: (inquiry: Inquiry) => NewDelivery[],
  now: number,
): Promise<Marked | null> {
  return db.transaction(async (tx) => {
    const inquiry = await getLocked(tx, id);
    if (!inquiry) return null;
    const [row] = await tx.query<Record<string, unknown>>(
      "SELECT held, held_reason, label, marked_at FROM review_undo WHERE inquiry_id = ? AND action = ?",
      [id, action],
    );
    const none = { inquiry, changed: false, cancelled: [], delivered: [], underWay: [], queued: [] };
    if (!row) return none;
    const held = row.held === true || row.held === 1;
    const heldReason = (row.held_reason as string | null) ?? null;
    let result: Marked = { ...none, changed: true };
    if (held && !inquiry.held) result = { ...result, ...(await hold(tx, id, heldReason)) };
    else if (!held && inquiry.held) result = { ...result, queued: await asLead(tx, inquiry, destinations, now) };
    else await tx.query("UPDATE inquiries SET held_reason = ? WHERE id = ?", [heldReason, id]);
    if (row.label == null) await forgetMark(tx, id);
    else await mark(tx, id, row.label as Label, Number(row.marked_at));
    await tx.query("DELETE FROM review_undo WHERE inquiry_id = ?", [id]);
    return result;
  });
}

/**
 * The inquiry, its row locked until the transaction ends (PostgreSQL; SQLite's transactions take
 * turns anyway): two presses at once, on two instances, take turns, and the second sees the first.
 */
async function getLocked(tx: Sql, id: string) {
  if (tx.engine === "postgres") await tx.query("SELECT id FROM inquiries WHERE id = ? FOR UPDATE", [id]);
  return get(tx, id);
}

export const markOf = async (sql: Sql, id: string) =>
  (
    await sql.query<{ label: Label; marked_at: number }>(
      "SELECT label, marked_at FROM spam_training WHERE inquiry_id = ?",
      [id],
    )
  ).map((r) => ({ label: r.label, markedAt: Number(r.marked_at) }))[0];

async function remember(
  tx: Sql,
  inquiry: Inquiry,
  action: "spam" | "not-spam",
  before: { label: Label; markedAt: number } | undefined,
) {
  await tx.query(
    `INSERT INTO review_undo (inquiry_id, action, held, held_reason, label, marked_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (inquiry_id) DO UPDATE SET action = excluded.action, held = excluded.held,
         held_reason = excluded.held_reason, label = excluded.label, marked_at = excluded.marked_at`,
    [inquiry.id, action, inquiry.held, inquiry.heldReason ?? null, before?.label ?? null, before?.markedAt ?? null],
  );
}

async function hold(tx: Sql, id: string, reason: string | null) {
  await tx.query("UPDATE inquiries SET held = ?, held_reason = ? WHERE id = ?", [true, reason, id]);
  const cancelled = await tx.query<{ channel: string; kind: string }>(
    "DELETE FROM deliveries WHERE inquiry_id = ? AND status IN ('pending', 'failed') RETURNING channel, kind",
    [id],
  );
  const left = await tx.query<{ channel: string; status: DeliveryStatus }>(
    "SELECT channel, status FROM deliveries WHERE inquiry_id = ? AND kind = 'lead' ORDER BY channel",
    [id],
  );
  const channelsIn = (status: DeliveryStatus) => left.filter((r) => r.status === status).map((r) => String(r.channel));
  return {
    cancelled: cancelled.filter((r) => r.kind === "lead").map((r) => String(r.channel)),
    delivered: channelsIn("sent"),
    underWay: channelsIn("sending"),
  };
}

async function asLead(tx: Sql, inquiry: InquiryRecord, destinations: (inquiry: Inquiry) => NewDelivery[], now: number) {
  await tx.query("UPDATE inquiries SET held = ?, held_reason = NULL WHERE id = ?", [false, inquiry.id]);
  const had = new Set(inquiry.deliveries.map((d) => d.channel));
  const queued = destinations(inquiry).filter((d) => (d.kind ?? "lead") !== "lead" || !had.has(d.channel));
  await queue(tx, inquiry.id, queued, now);
  return queued.filter((d) => (d.kind ?? "lead") === "lead").map(({ channel, target }) => ({ channel, target }));
}

/* The reply promise's columns (ADR 0020): who took a lead and when ("I'm on it"), and its reminder. */

export type Taken = { inquiry: InquiryRecord; first: boolean };

/**
 * The first press keeps its time and name, its reminder no longer goes, and `reports` (the webhook's
 * inquiry.taken) are queued unless it is held; later presses change nothing and learn who was
 * first. Null if there is no such inquiry.
 */
export async function take(
  db: Database,
  id: string,
  by: string | null,
  now: number,
  reports: (inquiry: Inquiry) => NewDelivery[],
): Promise<Taken | null> {
  return db.transaction(async (tx) => {
    const updated = await tx.query(
      "UPDATE inquiries SET taken_at = ?, taken_by = ? WHERE id = ? AND taken_at IS NULL RETURNING id",
      [now, by, id],
    );
    const inquiry = await get(tx, id);
    const first = updated.length === 1;
    if (inquiry && first) {
      await tx.query("DELETE FROM deliveries WHERE inquiry_id = ? AND kind = 'reminder' AND status <> 'sending'", [id]);
      if (!inquiry.held) await queue(tx, id, reports(inquiry), now);
    }
    return inquiry ? { inquiry, first } : null;
  });
}

export async function recordReminded(db: Database, id: string, now: number, reports: NewDelivery[]) {
  await db.transaction(async (tx) => {
    await tx.query("UPDATE inquiries SET reminded_at = ? WHERE id = ?", [now, id]);
    await queue(tx, id, reports, now);
  });
}

export async function leadTimes(sql: Sql, since: number): Promise<Inquiry[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE NOT i.held AND i.received_at >= ? ORDER BY i.received_at`,
    [since],
  );
  return rows.map(toInquiry);
}
