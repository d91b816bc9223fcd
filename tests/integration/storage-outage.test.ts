import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../support/http";
import { FORM_BODY, formHeaders, json, lines, nextIp, sleep, valid } from "../support/requests";
import { type RunningServer, startServer } from "../support/server";

/**
 * Storage that is busy, missing or away: the contact doors answer 503 with Retry-After, pages keep
 * coming, /readyz says why, and the server recovers by itself when the storage does.
 */

describe("a held SQLite write lock", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({}, undefined, { OUTBOX_POLL_MS: 200 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers 503 with Retry-After while it lasts, keeps serving pages, and recovers", async () => {
    const post = () =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": nextIp() },
        body: JSON.stringify(valid),
      });
    expect((await post()).status).toBe(201);

    // An operator's sqlite3 session (or a backup, a long purge) takes the write lock and keeps it.
    const other = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"));
    other.exec("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE");
    try {
      const started = Date.now();
      const during = await post();
      expect(during.status).toBe(503);
      expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await during.json()).error).toMatch(/try again/i);
      expect(Date.now() - started).toBeLessThan(8_000);
      // Pages keep coming, quickly, while the outbox keeps meeting the lock in the background.
      for (let i = 0; i < 10; i++) {
        const t = Date.now();
        const page = await fetch(`${server.url}/services`);
        expect(page.status).toBe(200);
        expect(Date.now() - t).toBeLessThan(500);
        await sleep(500);
      }
      expect(server.child.exitCode).toBeNull();
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // The lock is gone: submissions are stored again.
    const after = await post();
    expect(after.status).toBe(201);
    await expect
      .poll(() => lines(server.output()).filter((l) => l.msg === "storage available again").length)
      .toBeGreaterThanOrEqual(1);
    const out = await server.logged();
    expect(server.child.exitCode).toBeNull();
    expect(lines(out).filter((l) => l.msg === "storage unavailable")).toHaveLength(1);
    expect(out).not.toMatch(/unhandled|\n\s+at /i);
  }, 60_000);
});

describe("storage that does not work at start", () => {
  it("a DATA_DIR that cannot be written: pages 200, contact 503, not ready; then it recovers", async () => {
    const base = mkdtempSync(join(tmpdir(), "blocked-"));
    const blocker = join(base, "data");
    writeFileSync(blocker, "a file where the data folder should be");
    const s = await startServer({ DATA_DIR: join(blocker, "inner") });
    try {
      expect((await fetch(`${s.url}/services`)).status).toBe(200);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).reason).toMatch(/ENOTDIR|not a directory/i);
      const api = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(api.status).toBe(503);
      expect(api.headers.get("retry-after")).toBeTruthy();
      const form = await raw(s.url, {
        method: "POST",
        path: "/contact",
        headers: formHeaders(),
        body: FORM_BODY,
      });
      expect(form.status).toBe(503);
      expect(form.headers["retry-after"]).toBeTruthy();
      expect(
        lines(s.output()).filter((l) => String(l.msg).startsWith("contact storage unavailable")),
      ).toHaveLength(1);
      // The operator fixes the folder; the server notices without a restart.
      rmSync(blocker);
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        await sleep(250);
        status = (await fetch(`${s.url}/readyz`)).status;
      }
      expect(status).toBe(200);
      const ok = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(ok.status).toBe(201);
    } finally {
      await s.stop();
    }
  }, 30_000);

  it("a database that does not answer: pages 200, contact 503, not ready", async () => {
    const s = await startServer({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    try {
      expect((await fetch(`${s.url}/`)).status).toBe(200);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).status).toBe("not ready");
      const api = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(api.status).toBe(503);
      expect(s.child.exitCode).toBeNull();
    } finally {
      await s.stop();
    }
  });
});
