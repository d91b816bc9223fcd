import { Batcher } from "./batcher.ts";
import { type Database, type Sql, StorageUnavailableError } from "./db.ts";
import type {
  AtOnceOptions,
  AtOnceResult,
  NewInquiry,
  SavedRow,
  SaveFields,
  SaveResult,
  StoredAnswer,
} from "./store.ts";

/**
 * What a submission writes: the inquiry, its deliveries and its idempotency answer, together or
 * not at all (SQLite: a transaction in the group commit; PostgreSQL: one batched statement).
 */
export class InquiryIntake {
  readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }
  /** The stored answer for an idempotency key, if that key was used before. */
  async answerFor(key: string, sql: Sql = this.db): Promise<StoredAnswer | null> {
    const [row] = await sql.query<{ status: number; body: string; fingerprint: string | null }>(
      "SELECT status, body, fingerprint FROM idempotency_keys WHERE key = ?",
      [key],
    );
    return row
      ? { status: Number(row.status), body: JSON.parse(row.body), fingerprint: row.fingerprint ?? null }
      : null;
  }

  /**
   * Store an inquiry, its deliveries (none for spam) and the answer for its idempotency key, in one
   * transaction. If the key was used before, nothing new is stored (nor counted) and the first answer
   * comes back; otherwise every limit is counted, and over any of them nothing is stored.
   * (PostgreSQL: saveAtOnce, the same rules in one statement.)
   */
  async save(
    inquiry: NewInquiry,
    opts: SaveFields & Partial<Pick<AtOnceOptions, "limits" | "now">>,
  ): Promise<SaveResult> {
    const { idempotencyKey: key, answer, deliveries = [], limits = [], now = Date.now() } = opts;
    try {
      return await this.db.transaction<SaveResult>(async (tx) => {
        if (key) {
          const previous = await this.answerFor(key, tx);
          if (previous) return { duplicate: true, previous };
        }
        const blockedUntil = await countLimits(tx, limits, now);
        if (blockedUntil !== null)
          return { duplicate: false, refused: true, retryAfterMs: Math.max(0, blockedUntil - now) };
        await tx.query(
          `INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash, source, spam,
                                  held_reason, message_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            inquiry.id,
            inquiry.receivedAt,
            inquiry.name,
            inquiry.email,
            inquiry.company,
            inquiry.service,
            inquiry.message,
            inquiry.page,
            inquiry.userAgent,
            inquiry.ipHash,
            inquiry.source,
            inquiry.spam,
            inquiry.heldReason ?? null,
            inquiry.messageHash ?? null,
          ],
        );
        for (const d of deliveries) {
          await tx.query(
            `INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at)
             VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
            [d.id, inquiry.id, d.channel, d.messageId, inquiry.receivedAt, inquiry.receivedAt],
          );
        }
        if (key) {
          await tx.query(
            "INSERT INTO idempotency_keys (key, inquiry_id, status, body, created_at, fingerprint) VALUES (?, ?, ?, ?, ?, ?)",
            [key, inquiry.id, answer.status, JSON.stringify(answer.body), inquiry.receivedAt, opts.fingerprint ?? null],
          );
        }
        return { duplicate: false, answer };
      });
    } catch (e) {
      // Two requests with one key at the same moment (PostgreSQL): the loser reads the winner's answer.
      if (key) {
        const previous = await this.answerFor(key).catch(() => null);
        if (previous) return { duplicate: true, previous };
      }
      throw e;
    }
  }

  /**
   * PostgreSQL: the whole submission in one statement, batched with the submissions that arrive while
   * the previous batch is committing (one round trip and one commit for all of them), through the
   * function `save_submissions` (migrations 005 and 007). Per submission, in order: an earlier answer for the
   * idempotency key wins (nothing is counted or stored); else every rate-limit counter is taken (as
   * countLimits does below) and, only if none is over its limit, the inquiry, its
   * deliveries and its answer are inserted. No answer goes out before its batch has committed.
   * A batch that fails as a whole (two requests with one key in two batches at once, a deadlock) is
   * saved again one submission at a time; an outage fails each of its submissions (503).
   */
  saveAtOnce(inquiry: NewInquiry, opts: AtOnceOptions): Promise<AtOnceResult> {
    this.submissions ??= new Batcher((batch) => this.saveBatch(batch));
    return this.submissions.add({ inquiry, opts });
  }

  private submissions: Batcher<{ inquiry: NewInquiry; opts: AtOnceOptions }, AtOnceResult> | null = null;

  private async saveBatch(batch: Array<{ inquiry: NewInquiry; opts: AtOnceOptions }>): Promise<AtOnceResult[]> {
    try {
      return await this.runSaveSubmissions(batch);
    } catch (e) {
      if (e instanceof StorageUnavailableError) throw e;
      const [only] = batch;
      if (only && batch.length === 1) return [await this.saveAlone(only, e)];
      // One at a time, each with its own outcome.
      return Promise.all(
        batch.map((item) =>
          this.runSaveSubmissions([item]).then(
            (r) => r[0] as AtOnceResult,
            (err) => this.saveAlone(item, err),
          ),
        ),
      );
    }
  }

  /** A submission whose statement failed: if its key was taken at the same moment, the winner's answer. */
  private async saveAlone(item: { inquiry: NewInquiry; opts: AtOnceOptions }, error: unknown): Promise<AtOnceResult> {
    const key = item.opts.idempotencyKey;
    if (key && (error as { code?: string }).code === "23505") {
      const previous = await this.answerFor(key).catch(() => null);
      if (previous) return { duplicate: true, previous };
    }
    throw error;
  }

  private async runSaveSubmissions(
    batch: Array<{ inquiry: NewInquiry; opts: AtOnceOptions }>,
  ): Promise<AtOnceResult[]> {
    const payload = batch.map(({ inquiry: i, opts: o }) => ({
      key: o.idempotencyKey ?? null,
      fingerprint: o.fingerprint ?? null,
      answer_status: o.answer.status,
      answer_body: JSON.stringify(o.answer.body),
      now: o.now,
      limits: o.limits.map((l) => ({ key: l.key, max: l.points, expire: o.now + l.durationMs })),
      deliveries: (o.deliveries ?? []).map((d) => ({ id: d.id, channel: d.channel, message_id: d.messageId })),
      inquiry: {
        id: i.id,
        received_at: i.receivedAt,
        name: i.name,
        email: i.email,
        company: i.company,
        service: i.service,
        message: i.message,
        page: i.page,
        user_agent: i.userAgent,
        ip_hash: i.ipHash,
        source: i.source,
        spam: i.spam,
        held_reason: i.heldReason ?? null,
        message_hash: i.messageHash ?? null,
      },
    }));
    const [row] = await this.db.query<{ results: SavedRow[] }>("SELECT save_submissions(?::jsonb) AS results", [
      JSON.stringify(payload),
    ]);
    const results = row?.results ?? [];
    if (results.length !== batch.length) throw new Error("save_submissions answered for another number of submissions");
    return results.map((r, n) => {
      const { opts } = batch[n] as { opts: AtOnceOptions };
      if (r.prior) {
        const { status, body, fingerprint } = r.prior;
        return {
          duplicate: true,
          previous: { status: Number(status), body: JSON.parse(body), fingerprint: fingerprint ?? null },
        };
      }
      if (!r.stored) {
        return {
          duplicate: false,
          refused: true,
          retryAfterMs: Math.max(0, Number(r.blocked_until ?? opts.now) - opts.now),
        };
      }
      return { duplicate: false, answer: opts.answer };
    });
  }

  /** Whether the same message (by hash) was received since `since`. */
  async seenMessage(messageHash: string, since: number): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 AS x FROM inquiries WHERE message_hash = ? AND received_at >= ? LIMIT 1",
      [messageHash, since],
    );
    return rows.length > 0;
  }
}

/**
 * Count one submission against each limit (the window starts again once it has expired) and return
 * when the furthest limit it is over frees up, or null if it is over none. The rule of
 * save_submissions (db/migrations/postgres/005), for SQLite.
 */
async function countLimits(tx: Sql, limits: AtOnceOptions["limits"], now: number): Promise<number | null> {
  let blockedUntil: number | null = null;
  for (const l of limits) {
    const [row] = await tx.query<{ points: number; expire: number }>(
      `INSERT INTO rate_limits (key, points, expire) VALUES (?, 1, ?)
       ON CONFLICT (key) DO UPDATE SET
         points = CASE WHEN rate_limits.expire <= ? THEN 1 ELSE rate_limits.points + 1 END,
         expire = CASE WHEN rate_limits.expire <= ? THEN excluded.expire ELSE rate_limits.expire END
       RETURNING points, expire`,
      [l.key, now + l.durationMs, now, now],
    );
    if (row && Number(row.points) > l.points) blockedUntil = Math.max(blockedUntil ?? 0, Number(row.expire));
  }
  return blockedUntil;
}
