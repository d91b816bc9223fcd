import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort } from "../tests/support/ports.ts";
import { submissionRequest } from "./bench-submissions.ts";

/**
 * What a restart costs: the server as `npm start` runs it (`node server.js`, NODE_ENV unset), on SQLite:
 *   npm run bench:start [-- --runs 5 --seconds 10]
 * Cold start: from spawn to the first 200 on `/` (median of --runs; the first run also fills Node's
 * compile cache if it was empty), measured in turn with a baseline, Express's static server on the
 * same build/client (`express.static`), and the ratio of the two (at most 2). Idle RSS: resident memory once started and served a few pages,
 * then left alone 3 s. Peak RSS: the process's high-water mark (VmHWM) after --seconds of 200
 * submissions a second from many addresses while 32 visitors load `/`; every acknowledged
 * submission must be stored (lost = 0). The idle and flood server runs in a memory cgroup of
 * --limit-mb (256, a small container's) when this machine lets us make one (cgroup v1 or v2, as
 * root; 0: none); the output says which. Needs a build. Writes bench/start.json.
 */

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    seconds: { type: "string", default: "10" },
    "limit-mb": { type: "string", default: "256" },
  },
});
const TARGET = { idleMb: 110, peakMb: 170, coldStartRatio: 2 };
const root = new URL("../", import.meta.url).pathname;

const status = (pid: number | undefined, field: "VmRSS" | "VmHWM") =>
  Number(
    new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0,
  ) / 1024;

/** The baseline: Express serving build/client as static files, nothing else. */
const EXPRESS_STATIC = `import express from "express";
const app = express();
app.use(express.static("build/client"));
app.listen(Number(process.env.PORT), "127.0.0.1");`;

/** One cold start of the server, or of the baseline: spawn to the first 200 on `/`, in ms. */
async function coldStart(baseline = false): Promise<number> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-start-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
  };
  env.NODE_ENV = undefined;
  const args = baseline ? ["--input-type=module", "-e", EXPRESS_STATIC] : ["server.js"];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const ok = () =>
    new Promise<boolean>((resolve) => {
      const req = get({ host: "127.0.0.1", port, path: "/" }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on("error", () => resolve(false));
    });
  while (!(await ok())) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}) before its first page`);
    if (performance.now() - t0 > 20_000) throw new Error("no 200 within 20 s");
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = Math.round(performance.now() - t0);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

/** A memory cgroup of --limit-mb to start the server in, or null where none can be made here. */
function memoryCgroup(): string | null {
  if (Number(opts["limit-mb"]) === 0) return null;
  const bytes = String(Number(opts["limit-mb"]) * 1024 * 1024);
  for (const [dir, file] of [
    ["/sys/fs/cgroup/memory/bench-start", "memory.limit_in_bytes"],
    ["/sys/fs/cgroup/bench-start", "memory.max"],
  ] as const) {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), bytes);
      return dir;
    } catch {
      // Not this cgroup version, or not allowed.
    }
  }
  return null;
}

/** `node server.js` as `npm start` runs it, in `cgroup` if given, once the contact pipeline is ready. */
async function serve(cgroup: string | null) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-start-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRUST_PROXY: "loopback",
    SPAM_FILTER: "off",
  };
  env.NODE_ENV = undefined;
  const child = cgroup
    ? spawn(
        "sh",
        ["-c", 'echo $$ > "$0/cgroup.procs" && exec "$1" server.js', cgroup, process.execPath],
        {
          cwd: root,
          env,
          stdio: ["ignore", "pipe", "inherit"],
        },
      )
    : spawn(process.execPath, ["server.js"], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "inherit"],
      });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    if (out.length < 100_000) out += d;
  });
  const t0 = Date.now();
  while (!out.includes("contact pipeline ready")) {
    if (child.exitCode !== null || Date.now() - t0 > 20_000)
      throw new Error(`the server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    child,
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const starts: number[] = [];
  const baselineStarts: number[] = [];
  for (let i = 0; i < Number(opts.runs); i++) {
    starts.push(await coldStart());
    baselineStarts.push(await coldStart(true));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const coldStartMs = median(starts);
  const expressStaticMs = median(baselineStarts);
  const ratio = Math.round((coldStartMs / expressStaticMs) * 100) / 100;

  const cgroup = memoryCgroup();
  console.log(
    cgroup
      ? `The server runs in a ${opts["limit-mb"]} MB memory cgroup.`
      : "No memory cgroup here: unconstrained.",
  );
  const server = await serve(cgroup);
  try {
    for (const path of ["/", "/services", "/contact", "/blog"])
      await (await fetch(`${server.url}${path}`)).text();
    await new Promise((r) => setTimeout(r, 3_000)); // idle: nothing asked of it for a while
    const idleMb = status(server.child.pid, "VmRSS");

    const acked = new Set<string>();
    const seconds = Number(opts.seconds);
    const flood = autocannon({
      url: server.url,
      connections: 16,
      duration: seconds,
      overallRate: 200,
      requests: [submissionRequest(acked)],
    });
    const pages = autocannon({ url: `${server.url}/`, connections: 32, duration: seconds });
    const [flooded] = await Promise.all([flood, pages]);
    const peakMb = status(server.child.pid, "VmHWM");
    const db = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"), { readOnly: true });
    const stored = new Set(
      db
        .prepare("SELECT id FROM inquiries")
        .all()
        .map((r) => String(r.id)),
    );
    db.close();
    const lost = [...acked].filter((id) => !stored.has(id)).length;
    const figures = {
      coldStartMs,
      expressStaticMs,
      ratio,
      starts,
      baselineStarts,
      idleMb: Math.round(idleMb),
      peakMb: Math.round(peakMb),
      submissionsPerSecond: flooded.requests.average,
      acked: acked.size,
      lost,
      limitMb: cgroup ? Number(opts["limit-mb"]) : null,
    };
    console.log(figures);
    const checks = [
      [
        `cold start to the first 200 ≤ ${TARGET.coldStartRatio}× Express static's`,
        ratio <= TARGET.coldStartRatio,
      ],
      [`idle RSS ≤ ${TARGET.idleMb} MB`, idleMb <= TARGET.idleMb],
      [`peak RSS under the flood ≤ ${TARGET.peakMb} MB`, peakMb <= TARGET.peakMb],
      ["lost = 0", lost === 0],
    ] as const;
    for (const [what, ok] of checks) console.log(`${ok ? "met" : "MISSED"}: ${what}`);
    mkdirSync(join(root, "bench"), { recursive: true });
    writeFileSync(
      join(root, "bench/start.json"),
      `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), target: TARGET, figures }, null, 2)}\n`,
    );
    if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await server.stop();
  }
  if (cgroup) rmdirSync(cgroup);
}

await main();
