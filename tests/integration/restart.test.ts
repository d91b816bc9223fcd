import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../support/chromium";
import { freePort } from "../support/ports.ts";
import { storedCount } from "../support/requests";
import { type RunningServer, startServer } from "../support/server";

/**
 * A visitor does not lose a message to a restart or a brief outage: the contact page's module
 * (app/contact/enhance.ts) sends it again, with the same Idempotency-Key, across network errors and
 * 502/503/504, and the server stores it once. Real Chromium, the real server stopped and started.
 */

let browser: Browser;
const servers: RunningServer[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
});

async function fill(page: Page, name: string) {
  await page.getByLabel("Full Name").fill(name);
  await page.getByLabel("Email Address").fill("visitor@example.org");
  await page
    .getByRole("textbox", { name: "Message" })
    .fill(`Hello, this is ${name}. A question about our network.`);
}

it("a message sent while the server restarts: sent again once it is back, acknowledged, stored once", async () => {
  const port = await freePort();
  const first = await startServer({}, port);
  servers.push(first);
  const page = await browser.newPage();
  await page.goto(`${first.url}/contact`);
  await fill(page, "Restart Visitor");
  // The site goes away (a restart) just before the visitor presses Send.
  await first.stop();
  let failed = 0;
  page.on("requestfailed", (r) => {
    if (r.method() === "POST") failed++;
  });
  await page.getByRole("button", { name: "Send Message" }).click();
  await expect.poll(() => failed, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  const second = await startServer({ DATA_DIR: first.dataDir }, port);
  servers.push(second);
  await page
    .getByRole("dialog", { name: "Message Sent Successfully!" })
    .waitFor({ timeout: 30_000 });
  expect(await page.getByRole("alert").textContent()).toBe("");
  expect(storedCount(first.dataDir)).toBe(1);
  await page.close();
}, 60_000);

it("a message that meets a 503 (storage busy): sent again with its key until it is stored, once", async () => {
  const server = await startServer({});
  servers.push(server);
  const page = await browser.newPage();
  await page.goto(`${server.url}/contact`);
  await fill(page, "Busy Visitor");
  const statuses: number[] = [];
  page.on("response", (r) => {
    if (r.request().method() === "POST") statuses.push(r.status());
  });
  // An operator's session holds SQLite's write lock: the server answers 503 with Retry-After.
  const other = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"));
  other.exec("BEGIN IMMEDIATE");
  try {
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect.poll(() => statuses.includes(503), { timeout: 20_000 }).toBe(true);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  await page
    .getByRole("dialog", { name: "Message Sent Successfully!" })
    .waitFor({ timeout: 30_000 });
  expect(statuses.at(-1)).toBe(201);
  expect(storedCount(server.dataDir)).toBe(1);
  await page.close();
}, 60_000);
