import ICAL from "ical.js";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KeyRing } from "../../server/contact/keys.ts";
import { leadLinks } from "../../server/contact/review/links.ts";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { launchChromium } from "../support/chromium.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * Where the sales team works (issue 54): the lead page shows the consultation with Confirm and
 * Decline right there, the overview lists the requests waiting and today's and tomorrow's calls,
 * and Confirm asks the confirmer's name, which the visitor's email and invitation carry. The
 * production server on Debian's faketime (Monday 23 November 2026, 9:05 AM MST), a real SMTP
 * server, Chromium with JavaScript off.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
  FAKETIME: "@2026-11-23 16:05:00",
};
const MST = (day: number, hh: number, mm = 0) => Date.UTC(2026, 10, day, hh + 7, mm);

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const mailsTo = (smtp: TestSmtp, to: string, subject: RegExp) =>
  smtp.received.filter(
    (m) => JSON.stringify(m.mail.to ?? "").includes(to) && subject.test(m.mail.subject ?? ""),
  );
async function mailTo(smtp: TestSmtp, to: string, subject: RegExp): Promise<Received> {
  await expect
    .poll(() => mailsTo(smtp, to, subject).length, { timeout: 20_000 })
    .toBeGreaterThan(0);
  return mailsTo(smtp, to, subject).at(-1) as Received;
}

describe("the consultation on the lead page and the overview", { timeout: 120_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("shows the request with Confirm and Decline, confirms it under the confirmer's name, and lists it", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const port = await freePort();
    const server = await startServer(
      {
        ...FAKETIME,
        SITE_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: smtp.url,
        SPAM_FILTER: "off",
        RATE_LIMIT_PER_MINUTE: "1000",
      },
      port,
      { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0 },
    );
    cleanups.push(() => server.stop());

    const res = await sendAsPage(server.url, {
      name: "Dana Whitfield",
      email: "dana@example.org",
      message: "Could we talk about our cloud move?",
    });
    expect(res.status).toBe(201);
    const { booking } = (await res.json()) as { booking: string };
    const token = new URL(booking, server.url).searchParams.get("t") ?? "";
    // Tomorrow 9:00 AM MST, picked in the visitor's Eastern time.
    const picked = await fetch(`${server.url}/book`, {
      method: "POST",
      body: new URLSearchParams({
        t: token,
        slot: String(MST(24, 9)),
        tz: "America/New_York",
        phone: "(303) 555-0142",
      }),
    });
    expect(await picked.text()).toContain("Thank you! You asked for");
    const asks = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    const leadLink = /I'm on it: (http\S+)/.exec(asks.mail.text ?? "")?.[1] ?? "";
    expect(leadLink).toContain("/lead?t=");

    // The overview a morning digest links to, signed with the server's own key.
    const db = openDatabase({ dataDir: server.dataDir });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const overview = leadLinks(ring, { SITE_URL: server.url, INQUIRY_LINK_DAYS: 30 }).overview()
      .url;

    const context = await browser.newContext({ javaScriptEnabled: false });
    cleanups.push(() => context.close());
    const tab = await context.newPage();
    const elsewhere: string[] = [];
    tab.on("request", (r) => {
      if (!r.url().startsWith(server.url)) elsewhere.push(r.url());
    });
    const section = (title: RegExp) =>
      tab.locator("h2", { hasText: title }).locator("xpath=following-sibling::ul[1]");

    await tab.goto(overview);
    const waiting = section(/^Requests waiting for an answer \(1\)$/);
    expect(await waiting.textContent()).toContain(
      "Consultation: Asked for Tue, Nov 24, 9:00–9:30 AM MST (their time: Tue, Nov 24, 11:00–11:30 AM EST): waiting for your answer.",
    );
    expect(
      await tab.getByRole("heading", { name: /^Today's and tomorrow's calls \(0\)$/ }).count(),
    ).toBe(1);

    // The lead page: the consultation, with Confirm and Decline right there.
    await tab.goto(leadLink);
    const part = tab.getByRole("region", { name: "Free consultation" });
    expect(await part.locator("p").first().textContent()).toBe(
      "Asked for Tue, Nov 24, 9:00–9:30 AM MST (their time: Tue, Nov 24, 11:00–11:30 AM EST): waiting for your answer.",
    );
    expect(await part.getByRole("button").allTextContents()).toEqual(["Confirm", "Decline"]);
    await part.getByLabel(/^Your name/).fill("Sam Ortiz");
    await part.getByRole("button", { name: "Confirm" }).click();
    expect(await tab.getByRole("status").textContent()).toMatch(/^Confirmed:/);

    // The visitor reads whom they will meet, in the email and the invitation.
    const invited = await mailTo(smtp, "dana@example.org", /^Your free consultation/);
    expect(invited.mail.text).toContain(
      "is booked for Tue, Nov 24, 11:00–11:30 AM EST. You will meet Sam Ortiz.",
    );
    const ics = invited.mail.attachments.find((a) => a.contentType === "text/calendar");
    const event = new ICAL.Component(
      ICAL.parse(ics?.content.toString("utf8") ?? ""),
    ).getFirstSubcomponent("vevent");
    expect(event?.getFirstProperty("organizer")?.getParameter("cn")).toBe(
      "Sam Ortiz (Teton Digital)",
    );
    expect(String(event?.getFirstPropertyValue("description"))).toContain(
      "You will meet Sam Ortiz.",
    );
    expect(
      (await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/)).mail.text,
    ).toContain("Confirmed by Sam Ortiz.");

    // The lead page now: confirmed by whom, the lead taken by them, no buttons left.
    await tab.goto(leadLink);
    expect(await part.locator("p").first().textContent()).toBe(
      "Confirmed by Sam Ortiz for Tue, Nov 24, 9:00–9:30 AM MST (their time: Tue, Nov 24, 11:00–11:30 AM EST).",
    );
    expect(await part.getByRole("button").count()).toBe(0);
    expect(await tab.locator("dd", { hasText: /^Taken by Sam Ortiz at / }).count()).toBe(1);

    // The overview: no request waits; tomorrow's call is listed.
    await tab.goto(overview);
    expect(
      await tab.getByRole("heading", { name: /^Requests waiting for an answer \(0\)$/ }).count(),
    ).toBe(1);
    expect(await section(/^Today's and tomorrow's calls \(1\)$/).textContent()).toContain(
      "Consultation: Confirmed by Sam Ortiz for Tue, Nov 24, 9:00–9:30 AM MST",
    );
    expect(elsewhere).toEqual([]);
  });
});
