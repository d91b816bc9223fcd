import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../support/ports.ts";

/**
 * The server stops within its grace period whatever its stdout does: here whatever reads
 * it stops reading (a log shipper that hangs), the pipe fills, and the logger's last flush must not
 * wait for it for ever.
 */

const root = new URL("../../", import.meta.url).pathname;

it("exits within its grace period on SIGTERM when nothing reads its log any more", async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ["server.js"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: mkdtempSync(join(tmpdir(), "stuck-log-")) },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  const reading = (d: Buffer) => {
    out += d;
  };
  child.stdout?.on("data", reading);
  const started = Date.now();
  while (!out.includes("server started")) {
    if (Date.now() - started > 20_000) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // From now on nobody reads: the pipe's buffer (64 KB) fills with request lines.
  child.stdout?.off("data", reading);
  child.stdout?.pause();
  for (let i = 0; i < 1200; i++) await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signalled = Date.now();
  child.kill("SIGTERM");
  const timeout = new Promise<"alive">((r) => setTimeout(() => r("alive"), 16_000));
  const result = await Promise.race([exited, timeout]);
  if (result === "alive") child.kill("SIGKILL");
  expect(result).not.toBe("alive");
  // The grace period is 10 s.
  expect(Date.now() - signalled).toBeLessThan(13_000);
}, 60_000);

it("exits cleanly on SIGTERM when whatever read its log has gone (`npm start | head -2`, a dead log shipper)", async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ["server.js"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: mkdtempSync(join(tmpdir(), "gone-log-")) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d;
  });
  const started = Date.now();
  while (!out.includes("server started")) {
    if (Date.now() - started > 20_000) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The reader goes: every line written from now on meets a closed pipe (EPIPE).
  child.stdout?.destroy();
  for (let i = 0; i < 200; i++) await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  // It still serves, and still stops when told.
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signalled = Date.now();
  child.kill("SIGTERM");
  const timeout = new Promise<"alive">((r) => setTimeout(() => r("alive"), 16_000));
  const result = await Promise.race([exited, timeout]);
  if (result === "alive") child.kill("SIGKILL");
  expect(result).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(13_000);
  expect(err).not.toMatch(/EPIPE|^\s+at /m);
}, 60_000);
