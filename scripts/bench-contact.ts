import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { openPostgres, openSqlite } from "../server/contact/db.ts";
import { freePort } from "../tests/support/ports.ts";
import { startPostgres } from "../tests/support/postgres.ts";
import { type RunningServer, startServer } from "../tests/support/server.ts";

/**
 * The contact pipeline under load, against the production server (node server.js):
 *   npm run bench:contact [-- --n 5000 --c 32 --pg --smtp-down 30]
 *
 * Three runs of N submissions at concurrency C: steady; with the server killed (SIGKILL) halfway and
 * restarted; with the SMTP relay down for --smtp-down seconds. Each verifies, from the database and
 * the SMTP server's own record: acknowledged, stored, delivered, lost (must be 0), duplicate emails.
 * Then the raw rate of single-row committed inserts on the same engine and disk, for the ratio; and
 * the CPU each part spent per submission of the steady run (server, PostgreSQL, this process with its
 * relay), while it ran and until its last delivery: the figure that moves when the work gets cheaper.
 * Clients behave like the contact page: a fresh Idempotency-Key per submission, retried with the
 * same key after a network error, each submission from its own visitor's address (named by a trusted
 * proxy on loopback; --one-source sends all from one address, the case rate limits exist for).
 */

const { values: opts } = parseArgs({
  options: {
    n: { type: "string", default: "5000" },
    c: { type: "string", default: "32" },
    pg: { type: "boolean", default: false },
    "smtp-down": { type: "string", default: "30" },
    warmup: { type: "string", default: "500" },
    "one-source": { type: "boolean", default: false },
  },
});
const N = Number(opts.n);
const C = Number(opts.c);
const SMTP_DOWN_MS = Number(opts["smtp-down"]) * 1000;
const WARMUP = Number(opts.warmup);

// ---------------------------------------------------------------- a counting SMTP relay

class CountingRelay {
  readonly deliveries = new Map<string, number>();
  port = 0;
  private server: SMTPServer | null = null;

  async start(port?: number) {
    this.port = port ?? (this.port || (await freePort()));
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
    // A client that vanishes mid-session (the site killed by SIGKILL in the crash run) is that client's problem.
    this.server.on("error", () => {});
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", () => resolve()));
  }

  async stop() {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

// ---------------------------------------------------------------- load

type RunResult = { acked: Set<string>; latencies: number[]; seconds: number; retries: number };

/**
 * The load generator's HTTP client: HTTP/1.1 over keep-alive sockets, one request at a time on each
 * (as a browser sends a form), written and read by hand. It shares the machine's two cores with the
 * server and the database, where the visitors' browsers would not: node:http spent 120 µs of CPU a
 * request here, this about 45-90 with its relay (bench:contact prints it), so less of what is measured is
 * the measuring. It reads what the endpoint answers: a status line, headers, a body of
 * Content-Length bytes (or chunked); anything else fails the request, which the client retries.
 */
type Reply = { status: number; text: string };
type Connection = { socket: net.Socket; buffer: Buffer; waiting: ((r: Reply | Error) => void) | null };
const idleConnections = new Map<number, Connection[]>();

function connection(port: number): Connection {
  const idle = idleConnections.get(port) ?? [];
  idleConnections.set(port, idle);
  const reuse = idle.pop();
  if (reuse) return reuse;
  const c: Connection = { socket: net.connect(port, "127.0.0.1"), buffer: Buffer.alloc(0), waiting: null };
  c.socket.setNoDelay(true);
  const settle = (r: Reply | Error) => {
    const w = c.waiting;
    c.waiting = null;
    w?.(r);
  };
  const drop = (e: Error) => {
    const at = idle.indexOf(c);
    if (at >= 0) idle.splice(at, 1);
    c.socket.destroy();
    settle(e);
  };
  c.socket.on("data", (d: Buffer) => {
    // Bytes nobody asked for (the connection sits idle) make it unusable: one request, one answer.
    if (!c.waiting) return drop(new Error("an answer to no request"));
    c.buffer = c.buffer.length > 0 ? Buffer.concat([c.buffer, d]) : d;
    const reply = readReply(c.buffer);
    if (reply === null) return;
    if (reply instanceof Error) return drop(reply);
    c.buffer = c.buffer.subarray(reply.used);
    if (reply.close) c.socket.end();
    else idle.push(c);
    settle({ status: reply.status, text: reply.text });
  });
  c.socket.on("error", drop);
  c.socket.on("close", () => drop(new Error("connection closed")));
  return c;
}

/** One whole response from the front of `b`, null if more bytes are needed. */
function readReply(b: Buffer): (Reply & { used: number; close: boolean }) | Error | null {
  const end = b.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = b.subarray(0, end).toString("latin1");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (!status) return new Error("not an HTTP response");
  const close = /\r\nconnection: *close/i.test(head);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  let at = end + 4;
  if (length) {
    const n = Number(length[1]);
    if (b.length < at + n) return null;
    return { status, text: b.subarray(at, at + n).toString("utf8"), used: at + n, close };
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return new Error("a response without a length");
  const parts: Buffer[] = [];
  for (;;) {
    const line = b.indexOf("\r\n", at);
    if (line < 0) return null;
    const size = Number.parseInt(b.subarray(at, line).toString("latin1"), 16);
    if (Number.isNaN(size)) return new Error("a bad chunk");
    if (b.length < line + 2 + size + 2) return null;
    if (size === 0) return { status, text: Buffer.concat(parts).toString("utf8"), used: line + 4, close };
    parts.push(b.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

function post(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
  const u = new URL(url);
  const c = connection(Number(u.port));
  let head = `POST ${u.pathname} HTTP/1.1\r\nhost: ${u.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    c.waiting = (r) => (r instanceof Error ? reject(r) : resolve(r));
    c.socket.write(head + body);
  });
}

function closeConnections() {
  for (const idle of idleConnections.values()) for (const c of idle.splice(0)) c.socket.destroy();
}

/**
 * Submission i comes from its own visitor: its own address on its own /24, as a site's inquiries do (the
 * server trusts the loopback proxy, so rate limits key on this address). One address sending everything
 * is the case the rate limit exists to slow down; `--one-source` measures it.
 */
function visitorAddress(i: number): string {
  if (opts["one-source"]) return "10.0.0.1";
  return `10.${i & 255}.${(i >> 8) & 255}.${((i >> 16) & 255) + 1}`;
}

async function load(
  server: () => RunningServer,
  onProgress: (acked: number) => Promise<void> | void = () => {},
  total = N,
): Promise<RunResult> {
  const acked = new Set<string>();
  const latencies: number[] = [];
  let next = 0;
  let retries = 0;
  const started = performance.now();
  async function client() {
    while (next < total) {
      const i = next++;
      const key = randomUUID();
      const body = JSON.stringify({
        name: `Bench Visitor ${i}`,
        email: `visitor${i}@example.org`,
        company: "Load Test Inc",
        service: "General Inquiry",
        message: `Benchmark submission ${i}: ${"x".repeat(200)}`,
      });
      for (;;) {
        const t0 = performance.now();
        try {
          const res = await post(`${server().url}${CONTACT_API_PATH}`, body, {
            "content-type": "application/json",
            authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
            "idempotency-key": key,
            "x-forwarded-for": visitorAddress(i),
          });
          const id = res.status === 201 ? (JSON.parse(res.text) as { id?: string }).id : undefined;
          if (id) {
            latencies.push(performance.now() - t0);
            acked.add(id);
            await onProgress(acked.size);
            break;
          }
          throw new Error(`status ${res.status}`);
        } catch {
          // A network error or a 5xx: the contact page's user would try again; same key, so no duplicate.
          retries += 1;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }
  await Promise.all(Array.from({ length: C }, client));
  return { acked, latencies, seconds: (performance.now() - started) / 1000, retries };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// ---------------------------------------------------------------- CPU

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** User and system CPU a process has used so far, in microseconds (from /proc); 0 once it is gone. */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** A PostgreSQL server's processes: the postmaster (postmaster.pid) and its children (backends, WAL writer…). */
function postgresProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]?.split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

type CpuSample = { server: number; postgres: number; load: number };

// ---------------------------------------------------------------- engine

type Target = {
  env: Record<string, string>;
  /** The database server's processes, when this benchmark started it (their CPU is counted). */
  databaseProcesses: () => number[];
  storedIds: () => Promise<Set<string>>;
  rawInsertRate: () => Promise<number>;
  cleanup: () => Promise<void>;
};

async function sqliteTarget(dir: string): Promise<Target> {
  const file = join(dir, "server", "inquiries.sqlite");
  return {
    env: { DATA_DIR: join(dir, "server") },
    databaseProcesses: () => [],
    async storedIds() {
      const db = openSqlite(file);
      const rows = await db.query<{ id: string }>("SELECT id FROM inquiries");
      await db.close();
      return new Set(rows.map((r) => r.id));
    },
    async rawInsertRate() {
      // Same engine, same disk, WAL and synchronous=FULL, straight through node:sqlite with no layer
      // of ours: one row per committed transaction, as fast as one writer can go. SQLite's default
      // checkpoint (every 1,000 log pages), not the server's 10,000: for these one-page commits the
      // default is the faster (about 6,000 against 5,200 a second), so the ratio is not flattered.
      const db = new DatabaseSync(join(dir, "raw.sqlite"));
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
      db.exec("CREATE TABLE raw (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO raw (id, body) VALUES (?, ?)");
      const body = "x".repeat(400);
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 3000) {
        db.exec("BEGIN");
        insert.run(randomUUID(), body);
        db.exec("COMMIT");
        n += 1;
      }
      const rate = n / ((performance.now() - t0) / 1000);
      db.close();
      return rate;
    },
    cleanup: async () => {},
  };
}

async function postgresTarget(): Promise<Target> {
  const server = process.env.BENCH_DATABASE_URL ? null : await startPostgres();
  const adminUrl = process.env.BENCH_DATABASE_URL ?? server?.url ?? "";
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `bench_${randomUUID().replace(/-/g, "")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    databaseProcesses: () => (server ? postgresProcesses(server.dataDir) : []),
    async storedIds() {
      const db = openPostgres(url.toString(), 2);
      const rows = await db.query<{ id: string }>("SELECT id FROM inquiries");
      await db.close();
      return new Set(rows.map((r) => r.id));
    },
    async rawInsertRate() {
      // Same server and disk; C clients, each inserting one row per committed transaction.
      const db = openPostgres(url.toString(), C);
      await db.query("CREATE TABLE raw (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
      const body = "x".repeat(400);
      let n = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: C }, async () => {
          while (performance.now() - t0 < 3000) {
            await db.transaction(async (tx) => {
              await tx.query("INSERT INTO raw (id, body) VALUES (?, ?)", [randomUUID(), body]);
            });
            n += 1;
          }
        }),
      );
      const rate = n / ((performance.now() - t0) / 1000);
      await db.close();
      return rate;
    },
    async cleanup() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      server?.stop();
    },
  };
}

// ---------------------------------------------------------------- runs

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-contact-"));
  const target = opts.pg ? await postgresTarget() : await sqliteTarget(dir);
  const relay = new CountingRelay();
  await relay.start();
  const port = await freePort();
  const env = {
    ...target.env,
    SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
    // The load comes through a proxy on loopback that names each visitor (X-Forwarded-For), as behind nginx.
    TRUST_PROXY: "loopback",
    RATE_LIMIT_PER_MINUTE: "1000000",
    RATE_LIMIT_PER_DAY: "1000000",
    RATE_LIMIT_NETWORK_PER_MINUTE: "1000000",
    // Throughput of storage and delivery: the scripted load has no page tokens (bench:spam measures the layers).
    SPAM_FILTER: "off",
    OUTBOX_POLL_MS: "200",
    OUTBOX_RETRY_BASE_MS: "500",
    OUTBOX_RETRY_MAX_MS: "5000",
    // Deliveries a SIGKILL left claimed are taken over when their lease ends: sooner than in production.
    OUTBOX_LEASE_MS: "15000",
  };
  let server = await startServer(env, port);
  const rows: Array<Record<string, string | number>> = [];
  let cpuSteady: CpuSample | null = null;
  let cpuDelivered: CpuSample | null = null;
  const allAcked = new Set<string>();

  async function settle(label: string, run: RunResult, extra: Record<string, string | number> = {}) {
    for (const id of run.acked) allAcked.add(id);
    // Wait until every acknowledged inquiry has been delivered (or two minutes pass).
    const deadline = Date.now() + 120_000;
    while ([...run.acked].some((id) => !relay.deliveries.has(id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const stored = await target.storedIds();
    const sorted = [...run.latencies].sort((a, b) => a - b);
    const delivered = [...run.acked].filter((id) => relay.deliveries.has(id)).length;
    const duplicates = [...run.acked].reduce((n, id) => n + Math.max(0, (relay.deliveries.get(id) ?? 0) - 1), 0);
    rows.push({
      run: label,
      "req/s": Math.round(run.acked.size / run.seconds),
      "p50 ms": Number(pct(sorted, 50).toFixed(1)),
      "p95 ms": Number(pct(sorted, 95).toFixed(1)),
      "p99 ms": Number(pct(sorted, 99).toFixed(1)),
      acknowledged: run.acked.size,
      stored: [...run.acked].filter((id) => stored.has(id)).length,
      delivered,
      lost: [...run.acked].filter((id) => !stored.has(id) || !relay.deliveries.has(id)).length,
      "duplicate emails": duplicates,
      "client retries": run.retries,
      ...extra,
    });
  }

  try {
    console.log(
      `Contact pipeline benchmark: ${N} submissions a run at concurrency ${C}, ${opts.pg ? "PostgreSQL" : "SQLite"}, after ${WARMUP} warm-up submissions`,
    );

    // Warm-up (JIT, connection pools, page cache): verified like the rest, not timed.
    if (WARMUP > 0) await settle("warm-up (untimed)", await load(() => server, undefined, WARMUP));
    // What each part of the machine spent on the steady run: while it ran, and until its last delivery.
    const cpu = (): CpuSample => {
      const own = process.cpuUsage();
      return {
        server: cpuMicros(server.child.pid ?? 0),
        postgres: target.databaseProcesses().reduce((sum, pid) => sum + cpuMicros(pid), 0),
        load: own.user + own.system,
      };
    };
    const perSubmission = (from: CpuSample, to: CpuSample, n: number): CpuSample => ({
      server: Math.round((to.server - from.server) / n),
      postgres: Math.round((to.postgres - from.postgres) / n),
      load: Math.round((to.load - from.load) / n),
    });
    const before = cpu();
    const steady = await load(() => server);
    const ran = cpu();
    await settle("steady", steady);
    cpuSteady = perSubmission(before, ran, steady.acked.size);
    cpuDelivered = perSubmission(before, cpu(), steady.acked.size);
    console.log(`steady: ${Math.round(steady.acked.size / steady.seconds)} req/s`);

    let killed = false;
    let restartMs = 0;
    const crash = await load(
      () => server,
      async (acked) => {
        if (killed || acked < N / 2) return;
        killed = true;
        const t0 = performance.now();
        server.child.kill("SIGKILL");
        await new Promise((r) => server.child.once("exit", r));
        server = await startServer(env, port);
        restartMs = Math.round(performance.now() - t0);
      },
    );
    await settle("SIGKILL + restart", crash, { "restart ms": restartMs });

    let relayDown = false;
    const outage = await load(
      () => server,
      (acked) => {
        if (relayDown || acked < N / 4) return;
        relayDown = true;
        void relay.stop().then(() =>
          setTimeout(() => {
            void relay.start(relay.port);
          }, SMTP_DOWN_MS),
        );
      },
    );
    // The relay comes back SMTP_DOWN_MS after it went down; settle() waits for the backlog.
    await new Promise((r) => setTimeout(r, Math.max(0, SMTP_DOWN_MS - outage.seconds * 1000 * 0.75)));
    await settle(`SMTP down ${SMTP_DOWN_MS / 1000} s`, outage);

    const raw = await target.rawInsertRate();
    console.table(rows);
    const timed = rows.filter((r) => !String(r.run).startsWith("warm-up"));
    const best = Math.max(...timed.map((r) => Number(r["req/s"])));
    const steadyRate = Number(timed[0]?.["req/s"]);
    console.log(`Raw single-row committed inserts on the same engine and disk: ${Math.round(raw)}/s`);
    // Issue 10: PostgreSQL at least 0.4; SQLite at or above its ratio when the issue was written (0.60).
    const goal = opts.pg ? 0.4 : 0.6;
    console.log(
      `Steady throughput as a ratio of it: ${(steadyRate / raw).toFixed(2)} (target ≥ ${goal}; best run ${(best / raw).toFixed(2)})`,
    );
    const lost = rows.reduce((n, r) => n + Number(r.lost), 0);
    console.log(`Lost inquiries over all runs: ${lost}`);
    if (cpuSteady && cpuDelivered) {
      const show = (c: CpuSample) =>
        `server ${c.server}${opts.pg ? `, PostgreSQL ${c.postgres}` : ""}, load generator and relay ${c.load}`;
      console.log(
        `CPU per submission of the steady run, µs (/proc): while it ran: ${show(cpuSteady)}; until its last delivery: ${show(cpuDelivered)}`,
      );
    }
    // For BENCHMARKS.md (written by bench:site), one file per engine.
    mkdirSync("bench", { recursive: true });
    writeFileSync(
      `bench/contact-${opts.pg ? "postgres" : "sqlite"}.json`,
      `${JSON.stringify(
        {
          engine: opts.pg ? "PostgreSQL" : "SQLite",
          date: new Date().toISOString().slice(0, 10),
          n: N,
          concurrency: C,
          rawInsertsPerSecond: Math.round(raw),
          ratio: Number((steadyRate / raw).toFixed(2)),
          target: goal,
          bestRatio: Number((best / raw).toFixed(2)),
          lost,
          cpuMicrosPerSubmission: { steady: cpuSteady, untilDelivered: cpuDelivered },
          rows,
        },
        null,
        2,
      )}\n`,
    );
    if (lost > 0) process.exitCode = 1;
  } finally {
    await server.stop();
    await relay.stop();
    await target.cleanup();
    closeConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
