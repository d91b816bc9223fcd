import { existsSync, globSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Parts, queueWithdrawn } from "../booking/messages.ts";
import { callsAhead } from "../booking/store.ts";
import { DAY_MS } from "../time.ts";
import type { Database, Sql } from "./storage/database.ts";

/**
 * The one deletion behind the privacy notice (retention and `inquiries -- forget`): waiting deliveries
 * first, then, once the sends under way have ended, the inquiries with all that names them, their
 * emails in DATA_DIR/mail too. Database copies are not opened: the copies an operator makes in
 * DATA_DIR (backups/, exports/, what a restore leaves beside the database) go whole once older than
 * the notice's `backupDays`, at each housekeeping turn; copies elsewhere are the operator's to delete.
 * A confirmed consultation still ahead is in both calendars: a cancellation goes to each (through
 * the outbox, `calendar` its words' parts), in the deletion's transaction. A call already held
 * sends nothing: the company deletes its event by hand (docs/operations.md).
 */

type Selection = { before: number } | { email: string };
type Options = { waitMs: number; now?: number; calendar: Pick<Parts, "config" | "routing"> };

export type Erased = Awaited<ReturnType<typeof erase>>;

// An address as the CLI compares it: NFKC folds full-width letters, so any case or form finds it.
export const normalizeEmail = (email: string) => email.normalize("NFKC").trim().toLowerCase();

export async function erase(db: Database, mailDir: string, selection: Selection, opts: Options) {
  const now = opts.now ?? Date.now();
  const before = "before" in selection ? selection.before : null;
  const [where, param] =
    "email" in selection
      ? ["LOWER(email) = ?", normalizeEmail(selection.email)]
      : ["received_at < ?", before];
  const selected = `inquiry_id IN (SELECT id FROM inquiries WHERE ${where})`;
  const cancelled = await db.query<{ inquiry_id: string; status: string }>(
    `DELETE FROM deliveries WHERE status <> 'sending' AND ${selected} RETURNING inquiry_id, status`,
    [param],
  );
  const inSend = `SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sending' AND ${selected}`;
  const sending = async () => Number((await db.query<{ n: number }>(inSend, [param]))[0]?.n ?? 0);
  const deadline = Date.now() + opts.waitMs;
  let inFlight = await sending();
  while (inFlight > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    inFlight = await sending();
  }
  const withdraw = async (tx: Sql) => {
    const calls = await callsAhead(tx, selected, [param], now);
    for (const b of calls) {
      const [who] = await tx.query<{ name: string; email: string; service: string }>(
        "SELECT name, email, service FROM inquiries WHERE id = ?",
        [b.inquiryId],
      );
      if (who) await queueWithdrawn(opts.calendar, tx, { id: b.inquiryId, ...who }, b, now);
    }
    return calls.length;
  };
  const erased = await db.transaction(async (tx) => {
    const count = async (sql: string, params: unknown[]) => (await tx.query(sql, params)).length;
    return {
      keys: await count(
        `DELETE FROM idempotency_keys WHERE ${selected}${before === null ? "" : " OR created_at < ?"} RETURNING key`,
        before === null ? [param] : [param, before],
      ),
      marks: await count(`DELETE FROM spam_training WHERE ${selected} RETURNING inquiry_id`, [
        param,
      ]),
      deliveries: await count(`DELETE FROM deliveries WHERE ${selected} RETURNING id`, [param]),
      withdrawn: await withdraw(tx),
      rateLimits:
        before === null
          ? 0
          : await count("DELETE FROM rate_limits WHERE expire < ? RETURNING key", [now]),
      // Last, and what it deleted names the email files to delete (one that arrived during the wait too).
      ids: (
        await tx.query<{ id: string }>(`DELETE FROM inquiries WHERE ${where} RETURNING id`, [param])
      ).map((r) => r.id),
    };
  });
  const files = eraseFiles(mailDir, new Set(erased.ids), before);
  // SQLite keeps the last versions of pages in its write-ahead log: emptied now (secure_delete zeroes the rest).
  if (db.engine === "sqlite") await db.query("PRAGMA wal_checkpoint(TRUNCATE)");
  const pendingCut = new Set(
    cancelled.filter((d) => d.status === "pending").map((d) => d.inquiry_id),
  ).size;
  const { ids, ...counts } = erased;
  const deliveries = erased.deliveries + cancelled.length;
  return { ...counts, inquiries: ids.length, deliveries, files, pendingCut, inFlight };
}

function eraseFiles(dir: string, ids: Set<string>, before: number | null): number {
  const doomed = globSync(["*.eml", "*.eml.tmp"], { cwd: dir }).filter((name) => {
    const path = join(dir, name);
    const named = [name.replace(/\.eml(\.tmp)?$/, ""), ...inquiryIdsIn(path)];
    return named.some((id) => ids.has(id)) || (before !== null && statSync(path).mtimeMs < before);
  });
  for (const name of doomed) rmSync(join(dir, name), { force: true });
  return doomed.length;
}

function inquiryIdsIn(path: string): string[] {
  const text = readFileSync(path, "latin1");
  const headers = text.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, " ") ?? "";
  return [...headers.matchAll(/^X-Inquiry-Ids?:(.*)$/gim)].flatMap((m) =>
    (m[1] ?? "").trim().split(/[\s,]+/),
  );
}

const RESTORE_LEFTOVER = /^inquiries\.sqlite.*\.(replaced-.+|restoring)$/;

export function eraseOldCopies(dataDir: string, days: number, now: number): string[] {
  const before = now - days * DAY_MS;
  const list = (folder: string) =>
    existsSync(join(dataDir, folder)) ? readdirSync(join(dataDir, folder)) : [];
  const candidates = [
    ...list("").filter((f) => RESTORE_LEFTOVER.test(f)),
    ...["backups", "exports"].flatMap((folder) => list(folder).map((f) => join(folder, f))),
  ];
  const erased: string[] = [];
  for (const name of candidates) {
    const path = join(dataDir, name);
    try {
      if (statSync(path).mtimeMs >= before) continue;
      rmSync(path, { recursive: true, force: true });
      erased.push(name);
    } catch {
      // Gone meanwhile, or not ours to delete: the next turn tries again.
    }
  }
  return erased;
}
