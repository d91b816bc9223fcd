import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";
import { lines, sendAsPage, storedCount } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * An unexpected error in the running production server (issue 53): its one log line carries the
 * stack on the TypeScript source (file and line, through the bundle's source maps), and the visitor
 * sees the page's plain words, never a stack or a file name.
 */

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

describe("an unexpected error", { timeout: 120_000 }, () => {
  it("is logged with its stack mapped to the source, and never shown", async () => {
    const port = await freePort();
    const env = { SITE_URL: `http://127.0.0.1:${port}`, SPAM_FILTER: "off" };
    const first = await startServer(env, port, { SPAM_MIN_FILL_MS: 0 });
    servers.push(first);
    const sent = await sendAsPage(first.url, { name: "Dana Whitfield", email: "dana@example.org" });
    expect(sent.status).toBe(201);
    const { booking } = (await sent.json()) as { booking: string };
    await first.stop();

    // A database that lost a table under the server: a bug's shape, not an outage the storage reports.
    const db = new DatabaseSync(join(first.dataDir, "inquiries.sqlite"));
    db.exec("DROP TABLE bookings");
    db.close();
    const second = await startServer({ ...env, DATA_DIR: first.dataDir }, port, {
      SPAM_MIN_FILL_MS: 0,
    });
    servers.push(second);

    const page = await fetch(`${second.url}${booking}`);
    const html = await page.text();
    expect(html).toContain("We could not reach our records just now.");
    expect(html).not.toMatch(/no such table|\.ts:\d+|\bat \w+ \(/);

    const failed = lines(await second.logged()).find((l) => l.msg === "booking link failed");
    const err = failed?.err as { type: string; message: string; stack: string } | undefined;
    expect(err?.message).toMatch(/no such table: bookings/);
    // The frame that threw and its callers are lines of our TypeScript, not of build/server-main/*.js.
    const frames =
      err?.stack.split("\n").filter((f) => /^\s+at /.test(f) && !f.includes("node:")) ?? [];
    expect(frames[0]).toMatch(/server\/contact\/storage\/sqlite\.ts:\d+:\d+\)$/);
    expect(frames.some((f) => /server\/booking\/store\.ts:\d+:\d+\)$/.test(f))).toBe(true);
    expect(err?.stack).not.toContain("build/server-main");
  });

  it("in the JSON endpoint answers 503 with the page's plain words, no stack, and claims nothing stored", async () => {
    const port = await freePort();
    const env = { SITE_URL: `http://127.0.0.1:${port}`, SPAM_FILTER: "off" };
    const first = await startServer(env, port, { SPAM_MIN_FILL_MS: 0 });
    servers.push(first);
    expect((await sendAsPage(first.url, { email: "dana@example.org" })).status).toBe(201);
    await first.stop();

    // A table lost under the server: a bug's shape, not an outage the storage reports.
    const db = new DatabaseSync(join(first.dataDir, "inquiries.sqlite"));
    db.exec("DROP TABLE idempotency_keys");
    db.close();
    const second = await startServer({ ...env, DATA_DIR: first.dataDir }, port, {
      SPAM_MIN_FILL_MS: 0,
    });
    servers.push(second);

    const sent = await sendAsPage(
      second.url,
      { name: "Sam Ortiz", email: "sam@example.org" },
      { headers: { "idempotency-key": "errors-test-1" } },
    );
    const text = await sent.text();
    expect(sent.status).toBe(503);
    expect(sent.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(JSON.parse(text)).toMatchObject({ error: expect.stringMatching(/try again/i) });
    expect(text).not.toMatch(/no such table|idempotency_keys|\.ts:\d+|\bat \w+ \(/);
    expect(storedCount(second.dataDir)).toBe(1);

    const failed = lines(await second.logged()).find((l) => l.msg === "contact endpoint failed");
    const err = failed?.err as { message: string; stack: string } | undefined;
    expect(err?.message).toMatch(/idempotency_keys/);
    expect(err?.stack).toMatch(/server\/contact\/storage\/\w+\.ts:\d+:\d+\)/);
    expect(err?.stack).not.toContain("build/server-main");
  });
});
