import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import AxeBuilder from "@axe-core/playwright";
import ICAL from "ical.js";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { slotsOf, statusOf, tokenOf } from "../support/booking-page.ts";
import { launchChromium } from "../support/chromium.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * A consultation by phone is a call that can happen (issue 54): the booking page asks the visitor's
 * number (site.booking.place "phone", as shipped), refuses one nobody can call with the reason
 * beside the field, and the company reads it in its request and in its calendar's copy of the
 * invitation. With a video link (a copy of the project whose site.ts says one), nothing is asked.
 * The production server on a controlled clock (faketime), a real SMTP server, Chromium with
 * JavaScript off and on, invitations read back with ical.js.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
  // Monday 23 November 2026, 9:05 AM MST: the office hours alone decide the times offered.
  FAKETIME: "@2026-11-23 16:05:00",
};
const TUNING = { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0 };
const root = new URL("../../", import.meta.url).pathname;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(env: Record<string, string>, cwd?: string) {
  const port = await freePort();
  const server = await startServer(
    { SITE_URL: `http://127.0.0.1:${port}`, SPAM_FILTER: "off", ...FAKETIME, ...env },
    port,
    TUNING,
    cwd,
  );
  cleanups.push(() => server.stop());
  return server;
}

async function inquiry(server: RunningServer, name: string, email: string) {
  const res = await sendAsPage(server.url, {
    name,
    email,
    message: "Could we talk about our cloud move?",
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; booking: string };
  return { id: body.id, link: `${server.url}${body.booking}` };
}

async function mailTo(smtp: TestSmtp, to: string, subject: RegExp): Promise<Received> {
  const find = () =>
    smtp.received.filter(
      (m) => JSON.stringify(m.mail.to ?? "").includes(to) && subject.test(m.mail.subject ?? ""),
    );
  await expect.poll(() => find().length, { timeout: 20_000 }).toBeGreaterThan(0);
  return find().at(-1) as Received;
}
const linkIn = (m: Received, action: string) =>
  new RegExp(`(http://127\\.0\\.0\\.1:\\d+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1] ?? "";

/** Confirm pressed on its page, for the time the page shows. */
async function confirm(server: RunningServer, link: string) {
  const slot = /name="slot" value="(\d+)"/.exec(await (await fetch(link)).text())?.[1] ?? "";
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    body: new URLSearchParams({ t: tokenOf(link), slot }),
  });
  return statusOf(await res.text());
}

function eventIn(m: Received) {
  const part = m.mail.attachments.find((a) => a.contentType === "text/calendar");
  const cal = new ICAL.Component(ICAL.parse(part?.content.toString("utf8") ?? ""));
  const event = new ICAL.Event(cal.getFirstSubcomponent("vevent") ?? undefined);
  return { method: cal.getFirstPropertyValue("method"), uid: event.uid, location: event.location };
}

const bookings = (server: RunningServer) => {
  const db = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"), { readOnly: true });
  try {
    return db.prepare("SELECT inquiry_id, phone FROM bookings").all();
  } finally {
    db.close();
  }
};

describe("a consultation by phone asks the number to call", { timeout: 180_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("without JavaScript: a number nobody can call is refused beside its field, what was typed kept; the company reads the one given", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const server = await serve({ SMTP_URL: smtp.url });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");

    const context = await browser.newContext({ javaScriptEnabled: false });
    cleanups.push(() => context.close());
    const tab = await context.newPage();
    await tab.goto(dana.link);
    const field = tab.getByLabel("Your phone number");
    expect(await field.getAttribute("type")).toBe("tel");
    expect(await field.getAttribute("autocomplete")).toBe("tel");
    expect(await field.getAttribute("inputmode")).toBe("tel");
    expect(await field.getAttribute("required")).not.toBeNull();
    expect(await field.getAttribute("aria-invalid")).toBeNull();

    // The zone chosen first, then a number one digit short and a time pressed.
    await tab.selectOption("#book-zone", "America/New_York");
    await tab.getByRole("button", { name: "Show times" }).click();
    await expect
      .poll(() => tab.locator("#book-zone").inputValue(), { timeout: 15_000 })
      .toBe("America/New_York");
    await field.fill("303-555-014");
    await tab.locator('button[name="slot"]').first().click();
    await expect
      .poll(() => tab.locator("#book-phone-problem").textContent(), { timeout: 15_000 })
      .toMatch(/^That is not a US phone number: it needs 10 digits.*Then pick your time again\.$/);
    // What they typed and the zone they chose stay; the field says why, to a screen reader too.
    expect(await field.inputValue()).toBe("303-555-014");
    expect(await tab.locator('input[name="tz"]').inputValue()).toBe("America/New_York");
    expect(await tab.locator("#book-zone").inputValue()).toBe("America/New_York");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect(await field.getAttribute("aria-describedby")).toBe("book-phone-problem book-phone-hint");
    expect(await tab.locator('button[name="slot"]').count()).toBeGreaterThan(0);
    // Nothing was asked, nothing kept.
    expect(bookings(server)).toEqual([]);

    // Another country's number is refused too, with its own reason.
    await field.fill("+44 20 7946 0958");
    await tab.locator('button[name="slot"]').first().click();
    await expect
      .poll(() => tab.locator("#book-phone-problem").textContent(), { timeout: 15_000 })
      .toMatch(/^We can call US numbers only/);
    expect(bookings(server)).toEqual([]);

    // As people write it: kept in one form.
    await field.fill("+1 (303) 555-0142");
    await tab.locator('button[name="slot"]').first().click();
    await expect
      .poll(() => tab.getByRole("status").textContent(), { timeout: 15_000 })
      .toMatch(/^Thank you! You asked for .* EST\./);
    expect(await tab.locator("#book-phone-problem").count()).toBe(0);
    expect(bookings(server)).toEqual([{ inquiry_id: dana.id, phone: "+13035550142" }]);
    // The page again, to pick another time: the number her request keeps, as people read it.
    await tab.goto(dana.link);
    expect(await field.inputValue()).toBe("(303) 555-0142");

    // The company's request says whom to call, and its copy of the invitation too; hers says where we call her.
    const request = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    expect(request.mail.text).toContain("Phone: (303) 555-0142 (you call them at the time)");
    expect(await confirm(server, linkIn(request, "confirm"))).toMatch(/^Confirmed/);
    const ours = eventIn(await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/));
    const hers = eventIn(await mailTo(smtp, "dana@example.org", /^Your free consultation/));
    expect(ours).toMatchObject({
      method: "REQUEST",
      location: "By phone: call Dana Whitfield at (303) 555-0142",
    });
    expect(hers).toMatchObject({
      method: "REQUEST",
      uid: ours.uid,
      location: "By phone: we call you at (303) 555-0142 at the time (our number: (307) 555-0142)",
    });
    const booked = await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/);
    expect(booked.mail.text).toContain("Where: By phone: call Dana Whitfield at (303) 555-0142");
  });

  it("with JavaScript, the refused field passes axe", async () => {
    const server = await serve({});
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    const context = await browser.newContext({ timezoneId: "America/Chicago" });
    cleanups.push(() => context.close());
    const tab = await context.newPage();
    await tab.goto(dana.link);
    await expect
      .poll(() => tab.locator("#book-zone").inputValue(), { timeout: 15_000 })
      .toBe("America/Chicago");
    await tab.getByLabel("Your phone number").fill("call me");
    await tab.locator('button[name="slot"]').first().click();
    await expect
      .poll(() => tab.locator("#book-phone-problem").textContent(), { timeout: 15_000 })
      .toMatch(/^A phone number has digits only/);
    const axe = await new AxeBuilder({ page: tab as never })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
      .analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);
  });

  it("with a video link, asks no number", async () => {
    // A copy of the project whose site.ts says a video link: the server reads it from the source.
    const dir = mkdtempSync(join(tmpdir(), "video-link-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of ["app", "build", "content", "db", "public", "server", "package.json"])
      cpSync(join(root, name), join(dir, name), { recursive: true });
    cpSync(join(root, "server.js"), join(dir, "server.js"));
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    const site = join(dir, "app/config/site.ts");
    const text = readFileSync(site, "utf8");
    expect(text).toContain('place: "phone",');
    writeFileSync(
      site,
      text.replace('place: "phone",', 'place: "https://meet.example.com/teton",'),
    );

    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const server = await serve({ SMTP_URL: smtp.url }, dir);
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    const page = await (await fetch(dana.link)).text();
    expect(slotsOf(page).length).toBeGreaterThan(0);
    expect(page).not.toContain('name="phone"');
    const res = await fetch(`${server.url}/book`, {
      method: "POST",
      body: new URLSearchParams({ t: tokenOf(dana.link), slot: String(slotsOf(page)[0]) }),
    });
    expect(statusOf(await res.text())).toMatch(/^Thank you!/);
    const request = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    expect(request.mail.text).not.toContain("Phone:");
    expect(await confirm(server, linkIn(request, "confirm"))).toMatch(/^Confirmed/);
    const ours = eventIn(await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/));
    expect(ours.location).toBe("https://meet.example.com/teton");
  });
});
