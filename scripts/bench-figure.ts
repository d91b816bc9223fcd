import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { computeFigure } from "../server/contact/review/public-figure.ts";
import type { Database } from "../server/contact/storage/database.ts";
import { openPostgres } from "../server/contact/storage/postgres.ts";
import { openSqlite } from "../server/contact/storage/sqlite.ts";

/**
 * The reply promise's public figure (server/contact/review/public-figure.ts) over 100,000 stored
 * inquiries of the last 90 days, a tenth held as spam, three in four answered after 0–6 clock hours:
 *   npm run bench:figure [-- --count 100000 --runs 5]   (SQLite; with DATABASE_URL, PostgreSQL too)
 * Prints the median and worst time of a computation (the query and the business-time count), the
 * work one instance does once an office day, the longest the event loop was held meanwhile, and
 * writes bench/figure.json.
 */

const { values: opts } = parseArgs({
  options: { count: { type: "string", default: "100000" }, runs: { type: "string", default: "5" } },
});
const count = Number(opts.count);
const DAY = 86_400_000;

async function measure(name: string, db: Database) {
  await db.migrate();
  const now = Date.now();
  const batch = 1000;
  for (let start = 0; start < count; start += batch) {
    await db.transaction(async (tx) => {
      for (let n = start; n < Math.min(count, start + batch); n++) {
        const receivedAt = now - Math.floor((n / count) * 90 * DAY) - 1;
        const taken = n % 4 === 0 ? null : receivedAt + (n % 360) * 60_000;
        await tx.query(
          `INSERT INTO inquiries (id, received_at, name, email, message, source, held, taken_at)
           VALUES (?, ?, 'A Person', 'a@example.org', 'Hello', 'api', ?, ?)`,
          [`bench-${n}`, receivedAt, n % 10 === 9, taken],
        );
      }
    });
  }
  const times: number[] = [];
  let counted = 0;
  // The longest time the instance could answer nothing while the figure was computed: the widest
  // gap between two turns of a timer that asks for one every millisecond.
  let [last, stall] = [performance.now(), 0];
  const tick = () => {
    const at = performance.now();
    stall = Math.max(stall, at - last);
    last = at;
  };
  const timer = setInterval(tick, 1);
  for (let r = 0; r < Number(opts.runs); r++) {
    const t0 = performance.now();
    last = t0;
    counted = (await computeFigure(db, now)).counted;
    tick();
    times.push(performance.now() - t0);
  }
  clearInterval(timer);
  times.sort((a, b) => a - b);
  await db.close();
  return {
    engine: name,
    inquiries: count,
    counted,
    "median ms": Math.round(times[Math.floor(times.length / 2)] ?? 0),
    "worst ms": Math.round(times.at(-1) ?? 0),
    "longest stall ms": Math.round(stall),
  };
}

const dir = mkdtempSync(join(tmpdir(), "bench-figure-"));
try {
  const rows = [await measure("sqlite", openSqlite(join(dir, "inquiries.sqlite")))];
  if (process.env.DATABASE_URL)
    rows.push(await measure("postgres", openPostgres(process.env.DATABASE_URL)));
  const description = `computeFigure over ${count} inquiries spread over 90 days, ${opts.runs} runs each.`;
  console.log(description);
  console.table(rows);
  mkdirSync("bench", { recursive: true });
  writeFileSync(
    "bench/figure.json",
    `${JSON.stringify({ measuredAt: new Date().toISOString(), description, rows }, null, 2)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
