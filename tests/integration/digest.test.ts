import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { loadConfig } from "../../server/config.ts";
import { officeTime } from "../../server/contact/review/clock.ts";
import { performAction } from "../../server/contact/review/page.ts";
import type { Promised } from "../../server/contact/review/promise.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { readSetting } from "../../server/contact/storage/settings.ts";
import { launchChromium } from "../support/chromium.ts";
import { testKeys } from "../support/keys.ts";
import { freePort } from "../support/ports.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { sendAsPage } from "../support/requests.ts";
import { startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The morning digest through its schedule (server/contact/review/digest.ts): two instances on one
 * PostgreSQL database, their housekeeping turning as the server's does, with a controlled clock,
 * across the daylight-saving change (Sunday 14 March 2027), a weekend and a holiday (the scenario's
 * own: Monday 15 March), and a real SMTP server receiving one digest a day.
 */

const facts: Promised = {
  ...site,
  holidays: [{ date: "2027-03-15", name: "The scenario's holiday" }],
};
const at = (iso: string) => Date.parse(iso);

const log = pino({ level: "silent" });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The time every instance reads; set by the test. */
let now = 0;

async function instance(url: string, smtp: TestSmtp, dataDir: string) {
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      CONTACT_TO: "inbox@example.com",
      CONTACT_ROUTES: JSON.stringify({ "AI Consulting": { to: "ai-partner@example.com" } }),
      LEAD_ESCALATION_TO: "owner@example.com",
      SPAM_FILTER: "off",
    },
    // Housekeeping turns as often as this: the schedule runs many times between the test's steps.
    { OUTBOX_POLL_MS: 25, HOUSEKEEPING_TURN_MS: 50 },
  );
  const made = await createContactPipeline(config, log, {
    keys: testKeys(),
    db: openPostgres(url),
    clock: () => now,
    facts,
  });
  made.pipeline.worker.start();
  made.housekeeping.start();
  cleanups.push(() => made.close());
  return made;
}

const digests = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-alert") === "digest");
/** Every time a message gives, each checked against the office's zone at that instant. */
const TIME = /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\w{3}) (\d+), (\d+):(\d\d) ([AP]M) (M[SD]T)\b/g;

function checkTimes(mail: Received, year: number) {
  const text = mail.mail.text ?? "";
  expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d|UTC/);
  const times = [...text.matchAll(TIME)];
  expect(times.length).toBeGreaterThan(0);
  for (const [said, , month = "", day = "", hour, minute, half, zone] of times) {
    const h = (Number(hour) % 12) + (half === "PM" ? 12 : 0);
    const offset = zone === "MDT" ? "-06:00" : "-07:00";
    const instant = Date.parse(
      `${year}-${String(new Date(`${month} 1, 2000`).getMonth() + 1).padStart(2, "0")}-${day.padStart(2, "0")}T${String(h).padStart(2, "0")}:${minute}:00${offset}`,
    );
    // The same instant said again on the office's clock: the abbreviation is the one of that date.
    expect(officeTime(instant), said).toBe(said);
  }
}

describe("the morning digest, through the schedule", { timeout: 90_000 }, () => {
  it("goes once each business day at opening, whatever the instances and restarts; not on Sunday or a holiday", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const dir = mkdtempSync(join(tmpdir(), "digest-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "digest");
    cleanups.push(pgdb.drop);

    // Friday 12 March 2027, 8:30 AM MST: before opening, a lead arrives; no digest yet.
    now = at("2027-03-12T08:30:00-07:00");
    const a = await instance(pgdb.url, smtp, dir);
    const b = await instance(pgdb.url, smtp, dir);
    const outcome = await a.pipeline.submit({
      body: {
        name: "Ada Early",
        email: "ada@example.org",
        company: "Engines",
        service: "AI Consulting",
        message: "We would like a model audit next month.",
      },
      source: "api",
      ip: "203.0.113.9",
      userAgent: "vitest",
      page: "/contact",
    });
    const id = "id" in outcome ? String(outcome.id) : "";
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(1);
    expect(await a.housekeeping.digest()).toBe(false);
    expect(await readSetting(a.db, "digest_day")).toBeNull();

    // 9:00 AM: opening. One digest, whichever instance queued it, to everyone who gets leads.
    now = at("2027-03-12T09:00:00-07:00");
    await expect.poll(() => digests(smtp).length, { timeout: 10_000 }).toBe(1);
    // Marked sent before the clock moves on: a send still in flight six hours later is past its lease.
    await Promise.all([a.pipeline.worker.settled(), b.pipeline.worker.settled()]);
    expect(await readSetting(b.db, "digest_day")).toBe("2027-03-12");
    const friday = digests(smtp)[0] as Received;
    expect(friday.mail.to).toMatchObject({
      text: "inbox@example.com, ai-partner@example.com, owner@example.com",
    });
    expect(friday.mail.subject).toBe("Leads, Fri, Mar 12: 1 new, 1 waiting (0 overdue), 0 held");
    expect(friday.mail.text).toContain(
      "- Ada Early (Engines), AI Consulting, received Fri, Mar 12, 8:30 AM MST",
    );
    expect(friday.mail.text).toContain(
      "received Fri, Mar 12, 8:30 AM MST: Reply by Fri, Mar 12, 1:00 PM MST (4 business hours); 4 h of business time left",
    );
    expect(friday.mail.text).toMatch(/^http:\/\/127\.0\.0\.1\/overview\?t=overview\./m);
    checkTimes(friday, 2027);

    // Later that day, and after a restart: no second one.
    now = at("2027-03-12T15:00:00-07:00");
    await performAction(a.db, loadConfig({ DATA_DIR: dir }), null, "take", id, now, { by: "Dana" });
    expect(await b.housekeeping.digest()).toBe(false);
    const c = await instance(pgdb.url, smtp, dir);
    expect(await c.housekeeping.digest()).toBe(false);

    // Saturday opens at 10:00 AM: the second, saying who took the lead.
    now = at("2027-03-13T09:59:00-07:00");
    expect(await a.housekeeping.digest()).toBe(false);
    now = at("2027-03-13T10:00:00-07:00");
    await expect.poll(() => digests(smtp).length, { timeout: 10_000 }).toBe(2);
    await Promise.all([a, b, c].map((i) => i.pipeline.worker.settled()));
    const saturday = digests(smtp)[1] as Received;
    expect(saturday.mail.text).toContain("Taken since Fri, Mar 12, 9:00 AM MST: 1");
    expect(saturday.mail.text).toContain("- Ada Early (Engines): Dana, Fri, Mar 12, 3:00 PM MST");
    // Taken at 3:00 PM, two business hours after its deadline: not within the promise.
    expect(saturday.mail.text).toContain(
      'Last week: 1 lead, 0 taken within the promise (4 business hours), first "I\'m on it" after 6 h (median, business time).',
    );
    checkTimes(saturday, 2027);
    // A turn that read Friday's clock and finishes after Saturday's digest claims no day again.
    expect(await b.housekeeping.digest(at("2027-03-12T15:00:00-07:00"))).toBe(false);

    // Sunday (closed; the clocks go forward) and Monday (the holiday): none, however many turns.
    for (const when of [
      "2027-03-14T12:00:00-06:00",
      "2027-03-15T09:30:00-06:00",
      "2027-03-16T08:59:00-06:00",
    ]) {
      now = at(when);
      for (const i of [a, b, c]) expect(await i.housekeeping.digest(), when).toBe(false);
    }
    // Tuesday, 9:00 AM MDT: the third, counting from Saturday's.
    now = at("2027-03-16T09:00:00-06:00");
    await expect.poll(() => digests(smtp).length, { timeout: 10_000 }).toBe(3);
    const tuesday = digests(smtp)[2] as Received;
    expect(tuesday.mail.subject).toBe("Leads, Tue, Mar 16: 0 new, 0 waiting (0 overdue), 0 held");
    expect(tuesday.mail.text).toContain("New since Sat, Mar 13, 10:00 AM MST: 0");
    expect(tuesday.mail.text).toContain(
      "The leads of the Teton Digital website, Tue, Mar 16, 9:00 AM MDT.",
    );
    checkTimes(tuesday, 2027);
    await Promise.all([
      a.pipeline.worker.settled(),
      b.pipeline.worker.settled(),
      c.pipeline.worker.settled(),
    ]);
    expect(digests(smtp)).toHaveLength(3);
  });
});

describe("the overview page, opened from the digest as received", { timeout: 120_000 }, () => {
  it("lists the open leads with their links, JavaScript on and off; private; gone after erasure", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const port = await freePort();
    // The server's clock: Monday 30 November 2026, 9:05 AM MST, just after opening (Debian's faketime).
    const server = await startServer(
      {
        SITE_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: smtp.url,
        SPAM_FILTER: "off",
        TZ: "UTC",
        LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        FAKETIME: "@2026-11-30 16:05:00",
        FAKETIME_DONT_RESET: "1",
      },
      port,
      { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0, HOUSEKEEPING_TURN_MS: 200, SCHEDULE: ["digest"] },
    );
    cleanups.push(() => server.stop());
    const res = await sendAsPage(server.url, {
      name: "Grace Open",
      email: "grace@example.org",
      company: "Compilers",
      message: "Could you help us plan a move to the cloud?",
    });
    expect(res.status).toBe(201);
    await expect.poll(() => digests(smtp).length, { timeout: 30_000 }).toBe(1);
    const digest = digests(smtp)[0] as Received;
    expect(digest.mail.subject).toMatch(/^Leads, Mon, Nov 30: /);
    checkTimes(digest, 2026);
    const link =
      /^(http:\/\/127\.0\.0\.1:\d+\/overview\?t=\S+)$/m.exec(digest.mail.text ?? "")?.[1] ?? "";
    expect(link).not.toBe("");

    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("cache-control")).toBe("no-store");
    expect(opened.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const altered = await fetch(link.replace(/.$/, (c) => (c === "A" ? "B" : "A")));
    expect(altered.status).toBe(400);
    expect(await altered.text()).not.toMatch(/npm run|DATA_DIR|INQUIRY_LINK_DAYS/);

    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    for (const javaScriptEnabled of [false, true]) {
      const page = await (await browser.newContext({ javaScriptEnabled })).newPage();
      await page.goto(link);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Open leads");
      const main = (await page.locator("main").textContent()) ?? "";
      expect(main).toContain("Grace Open <grace@example.org>, Compilers");
      expect(main).toContain("received Mon, Nov 30, 9:05 AM MST");
      expect(main).toMatch(
        /Reply by Mon, Nov 30, 1:05 PM MST \(4 business hours\): (4 h|3 h \d+ min) of business time left/,
      );
      // Read-only: each link opens the lead's page, whose button acts.
      await page.getByRole("link", { name: "I'm on it" }).click();
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
        "Are you answering this lead?",
      );
      await page.context().close();
    }
    // Erased (a "delete my data" request): the overview no longer has it.
    const forget = spawnSync(
      process.execPath,
      ["server/cli.ts", "forget", "--email", "grace@example.org"],
      {
        cwd: new URL("../../", import.meta.url).pathname,
        env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "" },
        encoding: "utf8",
      },
    );
    expect(forget.status, forget.stderr).toBe(0);
    const after = await (await fetch(link)).text();
    expect(after).toContain("Nobody is waiting.");
    expect(after).not.toContain("Grace Open");
  });
});
