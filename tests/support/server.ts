import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tuning } from "../../server/config.ts";
import { freePort } from "./ports.ts";

/** The production server (node server.js) on a free loopback port, for tests and benchmarks. */
export type RunningServer = {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /**
   * The output once every line the server logged before this call has arrived: a request to a path
   * of its own, then its request line awaited (stdout keeps the order). Up to that line, without
   * the lines of such requests.
   */
  logged: () => Promise<string>;
  stop: () => Promise<void>;
};

let marks = 0;
const MARK_LINES = /^.*"path":"\/log-mark-[^"]*".*\n/gm;

const root = new URL("../../", import.meta.url).pathname;

/**
 * `node server.js` with `tuning` (server/config.ts `TUNING`) as `--tuning=JSON`: for every server a
 * test starts, also one it spawns itself. Housekeeping's `SCHEDULE` defaults to nothing, so no morning
 * digest and no retention pass come at whatever hour the test runs: a test of them asks for them.
 */
export const serverArgs = (tuning: Partial<Tuning> = {}) => [
  "server.js",
  `--tuning=${JSON.stringify({ SCHEDULE: [], ...tuning })}`,
];

/**
 * This process's environment under `env`. A test run under faketime with FAKETIME_DONT_RESET shares
 * its clock with every child (FAKETIME_SHARED); a child given a FAKETIME of its own keeps that one.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { FAKETIME_SHARED: _, ...unshared } = process.env;
  return { ...("FAKETIME" in env ? unshared : process.env), ...env };
}

/**
 * `tuning`: the composition root's knobs this test turns (`serverArgs`). `cwd`: another copy of the
 * project (an editor's, tests/integration/editing.test.ts).
 */
export async function startServer(
  env: Record<string, string> = {},
  port?: number,
  tuning: Partial<Tuning> = {},
  cwd = root,
): Promise<RunningServer> {
  if (!existsSync(join(cwd, "build/server/index.js")))
    throw new Error("No build: run `npm run build` first.");
  const p = port ?? (await freePort());
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "contact-server-"));
  const child = spawn(process.execPath, serverArgs(tuning), {
    cwd,
    env: childEnv({
      NODE_ENV: "production",
      // Production refuses to start without it (the links in a lead point at it).
      SITE_URL: "https://www.example.com",
      PORT: String(p),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Keep the last 256 KB of output: enough for any test to read, bounded under a benchmark's load.
  let out = "";
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 512 * 1024) out = out.slice(-256 * 1024);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const started = Date.now();
  // Listening (pages are served at once), and the contact storage either ready or known to be unavailable.
  const settled = () =>
    out.includes("server started") &&
    (out.includes("contact pipeline ready") ||
      out.includes("contact storage unavailable at start"));
  while (!settled()) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
    // A start under a machine whose cores are all busy took over 20 s (its migrations 10 s alone).
    if (Date.now() - started > 60_000) {
      child.kill("SIGKILL");
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${p}`,
    port: p,
    dataDir,
    child,
    output: () => out,
    async logged() {
      const path = `/log-mark-${process.pid}-${++marks}`;
      await fetch(`http://127.0.0.1:${p}${path}`).then((r) => r.arrayBuffer());
      const until = Date.now() + 20_000;
      for (;;) {
        const at = out.indexOf(`"path":"${path}"`);
        if (at >= 0) return out.slice(0, out.lastIndexOf("\n", at) + 1).replace(MARK_LINES, "");
        if (Date.now() > until)
          throw new Error(`the log line of ${path} did not come:\n${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
