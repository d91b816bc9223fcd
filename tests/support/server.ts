import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

/** The production server (node server.js) on a free loopback port, for tests and benchmarks. */
export type RunningServer = {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
};

const root = new URL("../../", import.meta.url).pathname;

export async function startServer(env: Record<string, string> = {}, port?: number): Promise<RunningServer> {
  if (!existsSync(join(root, "build/server/index.js"))) throw new Error("No build: run `npm run build` first.");
  const p = port ?? (await freePort());
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "contact-server-"));
  const child = spawn(process.execPath, ["server.js"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      // Production refuses to start without it (the links in a lead point at it).
      SITE_URL: "https://www.example.com",
      PORT: String(p),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ...env,
    },
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
    (out.includes("contact pipeline ready") || out.includes("contact storage unavailable at start"));
  while (!settled()) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
    if (Date.now() - started > 20_000) {
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
