import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../support/ports.ts";

/**
 * The server stops within its grace period whatever its stdout does: whatever reads it stops
 * reading (a log shipper that hangs) and the pipe fills, or it goes away (EPIPE) under load or while
 * the server is idle; the logger's last flush must not wait for it for ever.
 */

const root = new URL("../../", import.meta.url).pathname;

/** The server with its stdout (and stderr) piped here, once it says it started. */
async function startPiped(name: string) {
  const port = await freePort();
  const child = spawn(process.execPath, ["server.js"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seen = { out: "", err: "" };
  const reading = (d: Buffer) => {
    seen.out += d;
  };
  child.stdout?.on("data", reading);
  child.stderr?.on("data", (d: Buffer) => {
    seen.err += d;
  });
  const started = Date.now();
  while (!seen.out.includes("server started")) {
    if (Date.now() - started > 20_000) throw new Error(`server did not start:\n${seen.out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, port, seen, reading };
}

/** SIGTERM, then how it ended: its exit code, or "alive" if it did not within 16 s (then SIGKILL). */
async function terminate(child: ReturnType<typeof spawn>) {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signalled = Date.now();
  child.kill("SIGTERM");
  const timeout = new Promise<"alive">((r) => setTimeout(() => r("alive"), 16_000));
  const result = await Promise.race([exited, timeout]);
  if (result === "alive") child.kill("SIGKILL");
  return { result, ms: Date.now() - signalled };
}

it("exits within its grace period on SIGTERM when nothing reads its log any more", async () => {
  const { child, port, reading } = await startPiped("stuck-log");
  // From now on nobody reads: the pipe's buffer (64 KB) fills with request lines.
  child.stdout?.off("data", reading);
  child.stdout?.pause();
  for (let i = 0; i < 1200; i++) await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  const { result, ms } = await terminate(child);
  expect(result).not.toBe("alive");
  // The grace period is 10 s.
  expect(ms).toBeLessThan(13_000);
}, 60_000);

it("exits cleanly on SIGTERM when whatever read its log has gone (`npm start | head -2`, a dead log shipper)", async () => {
  const { child, port, seen } = await startPiped("gone-log");
  // The reader goes: every line written from now on meets a closed pipe (EPIPE).
  child.stdout?.destroy();
  for (let i = 0; i < 200; i++) await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  // It still serves, and still stops when told.
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  const { result, ms } = await terminate(child);
  expect(result).toBe(0);
  expect(ms).toBeLessThan(13_000);
  expect(seen.err).not.toMatch(/EPIPE|^\s+at /m);
}, 60_000);

it("exits within its grace period on SIGTERM when its log reader exited while it was idle (`node server.js | timeout 4 cat`)", async () => {
  // The reader is a real process on the other end of a real pipe, as in a shell pipeline.
  const reader = spawn("cat", [], { stdio: ["pipe", "ignore", "ignore"] });
  const port = await freePort();
  const child = spawn(process.execPath, ["server.js"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(join(tmpdir(), "idle-reader-")),
    },
    stdio: ["ignore", reader.stdin, "pipe"],
  });
  // Only the server holds the pipe's writing end now.
  reader.stdin?.destroy();
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d;
  });
  // Started: it answers (its log goes to the reader, which reads it all).
  const started = Date.now();
  while (
    !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() - started > 20_000) throw new Error(`server did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The reader exits; no request follows, so the server has written nothing since.
  reader.kill("SIGTERM");
  await once(reader, "exit");
  const { result, ms } = await terminate(child);
  expect(result).toBe(0);
  expect(ms).toBeLessThan(13_000);
  expect(err).not.toMatch(/EPIPE|^\s+at /m);
}, 60_000);
