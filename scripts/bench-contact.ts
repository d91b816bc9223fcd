import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import { openDatabase } from "../server/contact/storage/open.ts";
import { freePort } from "../tests/support/ports.ts";
import { startPostgres } from "../tests/support/postgres.ts";
import { type RunningServer, startServer } from "../tests/support/server.ts";
import { submissionRequest } from "./bench-submissions.ts";

/**
 * The contact pipeline under load, against the production server (node server.js), with autocannon:
 *   npm run bench:contact [-- --n 5000 --c 32 --pg --smtp-down 30]
 *
 * Four runs: N submissions at concurrency C (steady); the same with the server killed (SIGKILL) halfway
 * and restarted; the same with the SMTP relay down for --smtp-down seconds; and the home page at 32
 * connections while 200 submissions a second arrive from many addresses (a spam flood must not slow
 * the pages). Each submission carries its own Idempotency-Key and comes from its own visitor's address
 * (named by a trusted proxy on loopback). Every acknowledged submission is checked against the database
 * and the SMTP relay's own record: stored, delivered, lost (must be 0), duplicate emails.
 * The targets (issue "One path for every inquiry") are printed beside the figures.
 */

const { values: opts } = parseArgs({
  options: {
    n: { type: "string", default: "5000" },
    c: { type: "string", default: "32" },
    pg: { type: "boolean", default: false },
    "smtp-down": { type: "string", default: "30" },
  },
});
const N = Number(opts.n);
const C = Number(opts.c);
const SMTP_DOWN_MS = Number(opts["smtp-down"]) * 1000;
const TARGET = { perSecond: opts.pg ? 500 : 1000, p99Ms: 100, pageP99Ms: 50, floodPerSecond: 200 };

/** An SMTP relay that counts the emails it takes per inquiry (X-Inquiry-Id). */
class CountingRelay {
  readonly deliveries = new Map<string, number>();
  port = 0;
  private server: SMTPServer | null = null;

  async start() {
    this.port ||= await freePort();
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData: (stream, _s, cb) => {
        let head = "";
        stream.on("data", (c: Buffer) => {
          if (head.length < 4096) head += c.toString("utf8");
        });
        stream.on("end", () => {
          const id = /^X-Inquiry-ID: (\S+)/im.exec(head)?.[1] ?? "?";
          this.deliveries.set(id, (this.deliveries.get(id) ?? 0) + 1);
          cb();
        });
      },
    });
    // A client that vanishes mid-session (the site killed in the crash run) is that client's problem.
    this.server.on("error", () => {});
    await new Promise<void>((resolve) =>
      this.server?.listen(this.port, "127.0.0.1", () => resolve()),
    );
  }

  async stop() {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

type Run = { acked: Set<string>; seconds: number; p99: number; errors: number };

/** Submissions through the JSON endpoint, as the contact page sends them; `onAck` sees each acknowledgement. */
async function submissions(
  url: string,
  options: Partial<autocannon.Options>,
  onAck: (acked: number) => void = () => {},
): Promise<Run> {
  const acked = new Set<string>();
  const result = await autocannon({
    url,
    connections: C,
    ...options,
    requests: [submissionRequest(acked, onAck)],
  });
  return {
    acked,
    seconds: result.duration,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

type Target = {
  env: Record<string, string>;
  storedIds: () => Promise<Set<string>>;
  cleanup: () => Promise<void>;
};

async function sqliteTarget(dir: string): Promise<Target> {
  const dataDir = join(dir, "server");
  return {
    env: { DATA_DIR: dataDir },
    storedIds: () => storedIds({ dataDir }),
    cleanup: async () => {},
  };
}

async function postgresTarget(dir: string): Promise<Target> {
  const server = process.env.BENCH_DATABASE_URL ? null : await startPostgres();
  const adminUrl = process.env.BENCH_DATABASE_URL ?? server?.url ?? "";
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `bench_${randomUUID().replace(/-/g, "")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: join(dir, "server") },
    storedIds: () => storedIds({ DATABASE_URL: url.toString(), dataDir: dir }),
    async cleanup() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      server?.stop();
    },
  };
}

async function storedIds(where: { DATABASE_URL?: string; dataDir: string }): Promise<Set<string>> {
  const db = openDatabase(where);
  const rows = await db.query<{ id: string }>("SELECT id FROM inquiries");
  await db.close();
  return new Set(rows.map((r) => r.id));
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-contact-"));
  const target = opts.pg ? await postgresTarget(dir) : await sqliteTarget(dir);
  const relay = new CountingRelay();
  await relay.start();
  const port = await freePort();
  const env = {
    ...target.env,
    SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
    TRUST_PROXY: "loopback",
    SPAM_FILTER: "off",
  };
  const tuning = {
    OUTBOX_POLL_MS: 200,
    OUTBOX_RETRY_BASE_MS: 500,
    OUTBOX_RETRY_MAX_MS: 5_000,
    OUTBOX_LEASE_MS: 15_000,
  };
  let server: RunningServer = await startServer(env, port, tuning);
  const rows: Array<Record<string, string | number>> = [];

  /** Wait for the run's deliveries, then count what was stored, delivered, lost and sent twice. */
  async function settle(label: string, run: Run, extra: Record<string, string | number> = {}) {
    const deadline = Date.now() + 120_000;
    while ([...run.acked].some((id) => !relay.deliveries.has(id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const stored = await target.storedIds();
    const acked = [...run.acked];
    rows.push({
      run: label,
      "req/s": Math.round(acked.length / run.seconds),
      "p99 ms": run.p99,
      acknowledged: acked.length,
      stored: acked.filter((id) => stored.has(id)).length,
      delivered: acked.filter((id) => relay.deliveries.has(id)).length,
      lost: acked.filter((id) => !stored.has(id) || !relay.deliveries.has(id)).length,
      "duplicate emails": acked.reduce(
        (n, id) => n + Math.max(0, (relay.deliveries.get(id) ?? 0) - 1),
        0,
      ),
      "not answered 201": run.errors,
      ...extra,
    });
  }

  try {
    const engine = opts.pg ? "PostgreSQL" : "SQLite";
    console.log(
      `Contact pipeline benchmark: ${N} submissions a run at concurrency ${C}, ${engine}`,
    );
    await settle("warm-up (untimed)", await submissions(server.url, { amount: Math.min(500, N) }));

    const steady = await submissions(server.url, { amount: N });
    await settle("steady", steady);

    let killed = false;
    let restartMs = 0;
    const crash = await submissions(server.url, { amount: N }, (acked) => {
      if (killed || acked < N / 2) return;
      killed = true;
      const t0 = performance.now();
      server.child.kill("SIGKILL");
      server.child.once("exit", async () => {
        server = await startServer(env, port, tuning);
        restartMs = Math.round(performance.now() - t0);
      });
    });
    while (!restartMs) await new Promise((r) => setTimeout(r, 100));
    await settle("SIGKILL + restart", crash, { "restart ms": restartMs });

    let relayDown = false;
    const outage = await submissions(server.url, { amount: N }, (acked) => {
      if (relayDown || acked < N / 4) return;
      relayDown = true;
      void relay.stop().then(() => setTimeout(() => void relay.start(), SMTP_DOWN_MS));
    });
    await settle(`SMTP down ${SMTP_DOWN_MS / 1000} s`, outage);

    // The pages during a flood: 200 submissions a second from many addresses, and 32 visitors on /.
    const flood = submissions(server.url, {
      duration: 12,
      connections: 16,
      overallRate: TARGET.floodPerSecond,
    });
    await new Promise((r) => setTimeout(r, 1000));
    const page = await autocannon({ url: `${server.url}/`, connections: 32, duration: 10 });
    const flooded = await flood;
    await settle(`flood at ${TARGET.floodPerSecond}/s`, flooded, {
      "page p99 ms": page.latency.p99,
    });

    console.table(rows);
    const timed = rows.filter((r) => !String(r.run).startsWith("warm-up"));
    const lost = timed.reduce((n, r) => n + Number(r.lost), 0);
    const steadyRow = timed[0] ?? {};
    const figures = {
      perSecond: Number(steadyRow["req/s"]),
      p99Ms: Number(steadyRow["p99 ms"]),
      lost,
      pageP99Ms: page.latency.p99,
      floodPerSecond: Number(timed.at(-1)?.["req/s"]),
    };
    const checks = [
      [
        `acknowledged submissions a second (steady) ≥ ${TARGET.perSecond}`,
        figures.perSecond >= TARGET.perSecond,
      ],
      [`p99 latency of a submission (steady) ≤ ${TARGET.p99Ms} ms`, figures.p99Ms <= TARGET.p99Ms],
      ["lost over all runs = 0", lost === 0],
      [`/ p99 under the flood ≤ ${TARGET.pageP99Ms} ms`, figures.pageP99Ms <= TARGET.pageP99Ms],
    ] as const;
    console.log(
      `Steady: ${figures.perSecond}/s, p99 ${figures.p99Ms} ms. Lost over all runs: ${lost}.`,
    );
    console.log(
      `/ at 32 connections during ${figures.floodPerSecond} submissions a second: ${page.requests.average} req/s, p99 ${page.latency.p99} ms.`,
    );
    for (const [what, ok] of checks) console.log(`${ok ? "met" : "MISSED"}: ${what}`);
    // For BENCHMARKS.md (written by bench:site), one file per engine.
    mkdirSync("bench", { recursive: true });
    writeFileSync(
      `bench/contact-${opts.pg ? "postgres" : "sqlite"}.json`,
      `${JSON.stringify({ engine, date: new Date().toISOString().slice(0, 10), n: N, concurrency: C, target: TARGET, figures, rows }, null, 2)}\n`,
    );
    if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await server.stop();
    await relay.stop();
    await target.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
