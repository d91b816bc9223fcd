import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { openPostgres } from "../server/contact/db.ts";
import { startPostgres } from "../tests/support/postgres.ts";

/**
 * What PostgreSQL spends saving a batch of submissions, one caller, no other load:
 *   npm run bench:save [-- --calls 300]
 * For batches of 1, 7 and 16 submissions (under bench:contact's load they hold about 15) from
 * different visitors (three rate limits, one delivery and an idempotency key each, as the pipeline
 * sends them): save_submissions (inserts made together, migration 007) against
 * save_submissions_in_order (everything one submission at a time, 005). Prints milliseconds per call
 * and microseconds per submission.
 */

const { values: opts } = parseArgs({ options: { calls: { type: "string", default: "300" } } });
const CALLS = Number(opts.calls);

let seq = 0;
function submission() {
  const i = seq++;
  const id = randomUUID();
  const now = Date.now();
  return {
    key: randomUUID(),
    fingerprint: "f".repeat(64),
    answer_status: 201,
    answer_body: JSON.stringify({ success: true, id }),
    now,
    limits: [
      { key: `minute:${i}`, max: 5, expire: now + 60_000 },
      { key: `day:${i}`, max: 20, expire: now + 86_400_000 },
      { key: `network:${i}`, max: 30, expire: now + 60_000 },
    ],
    deliveries: [{ id: randomUUID(), channel: "email", message_id: `<inquiry-${id}@www.example.com>` }],
    inquiry: {
      id,
      received_at: now,
      name: `Bench Visitor ${i}`,
      email: `visitor${i}@example.org`,
      company: "Load Test Inc",
      service: "General Inquiry",
      message: `Benchmark submission ${i}: ${"x".repeat(200)}`,
      page: "https://www.example.com/contact",
      user_agent: "bench",
      ip_hash: "h".repeat(64),
      source: "api",
      spam: false,
      held_reason: null,
      message_hash: "m".repeat(64),
    },
  };
}

const server = await startPostgres();
try {
  const db = openPostgres(server.url, 2);
  await db.migrate();
  await db.close();
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const rows: Array<Record<string, string | number>> = [];
  for (const size of [1, 7, 16]) {
    for (const fn of ["save_submissions", "save_submissions_in_order"]) {
      // Warm-up, then timed calls.
      for (let k = 0; k < 20; k++)
        await client.query(`SELECT ${fn}($1::jsonb)`, [JSON.stringify(Array.from({ length: size }, submission))]);
      const t0 = performance.now();
      for (let k = 0; k < CALLS; k++) {
        const [row] = (
          await client.query(`SELECT ${fn}($1::jsonb) AS r`, [JSON.stringify(Array.from({ length: size }, submission))])
        ).rows as Array<{ r: Array<{ stored?: boolean }> }>;
        if (row?.r.filter((x) => x.stored).length !== size) throw new Error(`${fn} did not store the whole batch`);
      }
      const ms = (performance.now() - t0) / CALLS;
      rows.push({
        batch: size,
        function: fn,
        "ms per call": Number(ms.toFixed(2)),
        "µs per submission": Math.round((ms * 1000) / size),
      });
    }
  }
  await client.end();
  console.table(rows);
} finally {
  server.stop();
}
