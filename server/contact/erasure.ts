import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./storage/database.ts";

/**
 * The one deletion routine behind the privacy notice's promises (app/routes/privacy.tsx): the daily
 * retention pass (housekeeping.ts) and `npm run inquiries -- forget` both erase through it. It
 * deletes, for the inquiries it selects: their waiting deliveries first (so nothing new is sent), then,
 * once the sends already under way have ended, the inquiries with their deliveries, idempotency
 * records and the filter's marks (which hold no text of their own), and every email the server wrote
 * to DATA_DIR/mail that names one of them (the lead itself, the morning digest, a failure alert). The
 * retention pass also deletes expired rate-limit counters and any email file older than the period.
 * Copies of the database (backups, exports, what a restore kept) are not opened: the server deletes
 * them whole after `backupDays` (copies.ts), as the notice says.
 */

/** What to erase: everything received before a time (retention), or one person's, by email address. */
export type Selection = { before: number } | { email: string };

export type Erased = {
  inquiries: number;
  deliveries: number;
  keys: number;
  marks: number;
  rateLimits: number;
  files: number;
  /** Inquiries that still had a delivery waiting: cut off, and said so. */
  pendingCut: number;
  /** Deliveries still being sent when the wait ended: already handed to their receiver. */
  inFlight: number;
};

/** An address as the CLI compares it: any case, any Unicode form (full-width letters too), no spaces around. */
export const normalizeEmail = (email: string) => email.normalize("NFKC").trim().toLowerCase();

export async function erase(
  db: Database,
  mailDir: string,
  selection: Selection,
  opts: { waitMs: number; now?: number },
): Promise<Erased> {
  const now = opts.now ?? Date.now();
  const before = "before" in selection ? selection.before : null;
  const [where, param] =
    "email" in selection ? ["LOWER(email) = ?", normalizeEmail(selection.email)] : ["received_at < ?", before];
  const selected = `inquiry_id IN (SELECT id FROM inquiries WHERE ${where})`;
  // Nothing new goes out for them: what waits is cancelled, what is being sent is waited for.
  const cancelled = await db.transaction((tx) =>
    tx.query<{ inquiry_id: string; status: string }>(
      `DELETE FROM deliveries WHERE status <> 'sending' AND ${selected} RETURNING inquiry_id, status`,
      [param],
    ),
  );
  const sending = async () =>
    Number(
      (
        await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sending' AND ${selected}`, [
          param,
        ])
      )[0]?.n ?? 0,
    );
  const deadline = Date.now() + opts.waitMs;
  let inFlight = await sending();
  while (inFlight > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    inFlight = await sending();
  }
  const erased = await db.transaction(async (tx) => {
    const count = async (sql: string, params: unknown[]) => (await tx.query(sql, params)).length;
    return {
      keys: await count(
        `DELETE FROM idempotency_keys WHERE ${selected}${before === null ? "" : " OR created_at < ?"} RETURNING key`,
        before === null ? [param] : [param, before],
      ),
      marks: await count(`DELETE FROM spam_training WHERE ${selected} RETURNING inquiry_id`, [param]),
      deliveries: await count(`DELETE FROM deliveries WHERE ${selected} RETURNING id`, [param]),
      rateLimits: before === null ? 0 : await count("DELETE FROM rate_limits WHERE expire < ? RETURNING key", [now]),
      // Last, and what it deleted names the email files to delete (one that arrived during the wait too).
      ids: (await tx.query<{ id: string }>(`DELETE FROM inquiries WHERE ${where} RETURNING id`, [param])).map((r) =>
        String(r.id),
      ),
    };
  });
  const files = eraseFiles(mailDir, new Set(erased.ids), before);
  // SQLite keeps the last versions of pages in its write-ahead log: emptied now (secure_delete zeroes the rest).
  if (db.engine === "sqlite") await db.query("PRAGMA wal_checkpoint(TRUNCATE)");
  const pendingCut = new Set(cancelled.filter((d) => d.status === "pending").map((d) => String(d.inquiry_id))).size;
  const { ids, ...counts } = erased;
  return {
    ...counts,
    inquiries: ids.length,
    deliveries: erased.deliveries + cancelled.length,
    files,
    pendingCut,
    inFlight,
  };
}

/** The email files that name an erased inquiry (by name or in their X-Inquiry-Id(s) header), or are older than `before`. */
function eraseFiles(dir: string, ids: Set<string>, before: number | null): number {
  if (!existsSync(dir)) return 0;
  let erased = 0;
  for (const name of readdirSync(dir)) {
    if (!/\.eml(\.tmp)?$/.test(name)) continue;
    const path = join(dir, name);
    const named = [name.replace(/\.eml(\.tmp)?$/, ""), ...inquiryIdsIn(path)];
    if (named.some((id) => ids.has(id)) || (before !== null && statSync(path).mtimeMs < before)) {
      rmSync(path, { force: true });
      erased += 1;
    }
  }
  return erased;
}

/** The inquiry ids an email's headers name (the header block is in the first few kilobytes). */
function inquiryIdsIn(path: string): string[] {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16_384);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("latin1");
    const headers = text.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, " ") ?? "";
    return [...headers.matchAll(/^X-Inquiry-Ids?:(.*)$/gim)].flatMap((m) => (m[1] ?? "").trim().split(/[\s,]+/));
  } finally {
    closeSync(fd);
  }
}
