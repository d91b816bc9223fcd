import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../support/ports.ts";
import { serverArgs, startServer } from "../support/server.ts";

/**
 * The server stops within its grace period whatever its stdout does: whatever reads it stops
 * reading (a log shipper that hangs) and the pipe fills, or it goes away (EPIPE) under load or while
 * the server is idle; the logger's last flush must not wait for it for ever.
 */

const root = new URL("../../", import.meta.url).pathname;

/** The server with its stdout (and stderr) piped here, once it says it started. */
async function startPiped(name: string) {
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs(), {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)),
    },
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
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
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
  for (let i = 0; i < 1200; i++)
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  const { result, ms } = await terminate(child);
  expect(result).not.toBe("alive");
  // The grace period is 10 s.
  expect(ms).toBeLessThan(13_000);
}, 60_000);

it("exits cleanly on SIGTERM when whatever read its log has gone (`npm start | head -2`, a dead log shipper)", async () => {
  const { child, port, seen } = await startPiped("gone-log");
  // The reader goes: every line written from now on meets a closed pipe (EPIPE).
  child.stdout?.destroy();
  for (let i = 0; i < 200; i++)
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
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
  const child = spawn(process.execPath, serverArgs(), {
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
    if (child.exitCode !== null || Date.now() - started > 20_000)
      throw new Error(`server did not start:\n${err}`);
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

/** A GET on one kept-alive connection of `agent`: status, headers, and the local port it used. */
function get(agent: Agent, url: string) {
  return new Promise<{
    status: number;
    headers: Record<string, unknown>;
    localPort: number;
    body: string;
  }>((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => {
        body += d;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          localPort: req.socket?.localPort ?? 0,
          body,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

it("keeps an idle connection open longer than a proxy keeps its own (nginx: 60 s), so the proxy closes it", async () => {
  const server = await startServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(agent, `${server.url}/healthz`);
    expect(first.headers["keep-alive"]).toBe("timeout=75");
    // Idle past the 5 s a Node server keeps by default: the same connection still serves.
    await new Promise((r) => setTimeout(r, 6_000));
    const second = await get(agent, `${server.url}/healthz`);
    expect(second.status).toBe(200);
    expect(second.localPort).toBe(first.localPort);
  } finally {
    agent.destroy();
    await server.stop();
  }
}, 30_000);

it("on SIGTERM leaves the rotation first (readiness 503), keeps serving for SHUTDOWN_DELAY_MS, then drains", async () => {
  const server = await startServer({ SHUTDOWN_DELAY_MS: "3000" });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    expect((await get(agent, `${server.url}/readyz`)).status).toBe(200);
    const exited = once(server.child, "exit");
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    // At once: not ready, said why; pages still served, each answer closing its connection.
    await expect.poll(async () => (await get(agent, `${server.url}/readyz`)).status).toBe(503);
    const ready = await get(agent, `${server.url}/readyz`);
    expect(JSON.parse(ready.body)).toMatchObject({ status: "not ready", reason: "shutting down" });
    expect(ready.headers.connection).toBe("close");
    const page = await fetch(`${server.url}/services`);
    expect(page.status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(3_000);
    // Then it stops accepting and exits, within the grace period after the delay.
    const [code] = await exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3_000);
    expect(Date.now() - signalled).toBeLessThan(13_000);
  } finally {
    agent.destroy();
    await server.stop();
  }
}, 30_000);
