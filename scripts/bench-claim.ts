import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Database, openPostgres, openSqlite } from "../server/contact/db.ts";
import { DeliveryQueue } from "../server/contact/store-outbox.ts";
import { startPostgres } from "../tests/support/postgres.ts";

/**
 * What an outbox claim costs with a backlog (the relay was down, a channel rejects for hours):
 *   npm run bench:claim [-- --backlog 20000 --claims 200]
 * On each engine: BACKLOG pending deliveries (and as many sent), then CLAIMS claims of 16 by one
 * worker, as the outbox makes them; then CLAIMS cycles of a claim of 16 and their marks as sent.
 * Prints the mean milliseconds of each, which should not grow with the backlog.
 */

const { values: opts } = parseArgs({
  options: { backlog: { type: "string", default: "20000" }, claims: { type: "string", default: "200" } },
});
const BACKLOG = Number(opts.backlog);
const CLAIMS = Number(opts.claims);

async function measure(db: Database, fill: string[]): Promise<{ claim: number; cycle: number }> {
  await db.migrate();
  for (const sql of fill) await db.query(sql);
  const queue = new DeliveryQueue(db);
  const now = Date.now();
  await queue.claimDue("warm-up", now, 60_000, 16);
  const t0 = performance.now();
  for (let i = 0; i < CLAIMS; i++) {
    const jobs = await queue.claimDue("bench", now, 60_000, 16);
    if (jobs.length !== 16) throw new Error(`claimed ${jobs.length}, not 16`);
  }
  const claim = (performance.now() - t0) / CLAIMS;
  // The outbox's own cycle: claim 16, then mark them sent as the worker does (the first at once, the
  // rest together), with nothing vacuumed in between: on PostgreSQL each sent job leaves dead versions.
  const t1 = performance.now();
  for (let i = 0; i < CLAIMS; i++) {
    const ids = (await queue.claimDue("cycle", now, 60_000, 16)).map((j) => j.id);
    const marked = (await queue.markSent(ids.slice(0, 1), "cycle", now)).size;
    if (marked + (await queue.markSent(ids.slice(1), "cycle", now)).size !== 16) throw new Error("not all marked");
  }
  return { claim, cycle: (performance.now() - t1) / CLAIMS };
}

// Half sent (history), half pending (the backlog), oldest first.
const rows = (series: string) => [
  `INSERT INTO inquiries (id, received_at, name, email, company, service, message, source, spam)
   SELECT 'i' || g, 1000 + g, 'Bench', 'bench@example.org', '', '', 'Backlog', 'api', FALSE FROM ${series}`,
  `INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at)
   SELECT 'd' || g, 'i' || g, 'email', '<m' || g || '@example.org>',
          CASE WHEN g <= ${BACKLOG} THEN 'sent' ELSE 'pending' END, 0, 1000 + g, 1000 + g FROM ${series}`,
];

const results: Array<Record<string, string | number>> = [];
const row = (engine: string, ms: { claim: number; cycle: number }) => ({
  engine,
  pending: BACKLOG,
  "ms per claim of 16": Number(ms.claim.toFixed(3)),
  "ms per claim + marks of 16": Number(ms.cycle.toFixed(3)),
});
const dir = mkdtempSync(join(tmpdir(), "bench-claim-"));
try {
  const sqlite = openSqlite(join(dir, "claims.sqlite"));
  const sqliteSeries = `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${2 * BACKLOG}) SELECT g FROM s)`;
  results.push(row("SQLite", await measure(sqlite, [...rows(sqliteSeries), "ANALYZE"])));
  await sqlite.close();

  const server = await startPostgres();
  try {
    const pg = openPostgres(server.url, 2);
    results.push(row("PostgreSQL", await measure(pg, [...rows(`generate_series(1, ${2 * BACKLOG}) AS g`), "ANALYZE"])));
    await pg.close();
  } finally {
    server.stop();
  }
  console.table(results);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
