import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import AxeBuilder from "@axe-core/playwright";
import ICAL from "ical.js";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { slotsOf, statusOf, tokenOf } from "../support/booking-page.ts";
import { launchChromium } from "../support/chromium.ts";
import { inquiriesCli } from "../support/cli.ts";
import { engineEnv } from "../support/engines.ts";
import { freePort } from "../support/ports.ts";
import { Receiver } from "../support/receiver.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The consultation booking as it runs (issue 48): the production server on a controlled clock
 * (Debian's faketime), a real SMTP server, a real HTTP server publishing the company's calendar (a
 * weekly meeting set in the office's summer time, met after the change to winter time), Chromium
 * with JavaScript on and off; two instances on one PostgreSQL racing for one time.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
};
// Housekeeping every 200 ms: the calendar is read every 15th turn, every 3 s.
const TUNING = { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0, HOUSEKEEPING_TURN_MS: 200 };
const ZONE = `BEGIN:VTIMEZONE
TZID:America/Denver
BEGIN:DAYLIGHT
TZOFFSETFROM:-0700
TZOFFSETTO:-0600
TZNAME:MDT
DTSTART:19700308T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0600
TZOFFSETTO:-0700
TZNAME:MST
DTSTART:19701101T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
END:STANDARD
END:VTIMEZONE`;
/** Every Tuesday 10–11 AM office time since October (MDT), so 17:00–18:00 UTC in November (MST); a free block. */
const CALENDAR = `BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//calendar//EN\r
${ZONE.replaceAll("\n", "\r\n")}\r
BEGIN:VEVENT\r
UID:weekly@test\r
DTSTAMP:20261001T000000Z\r
DTSTART;TZID=America/Denver:20261006T100000\r
DTEND;TZID=America/Denver:20261006T110000\r
RRULE:FREQ=WEEKLY;BYDAY=TU\r
SUMMARY:Team meeting\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:free@test\r
DTSTAMP:20261001T000000Z\r
DTSTART:20261124T200000Z\r
DTEND:20261124T210000Z\r
TRANSP:TRANSPARENT\r
SUMMARY:Reading time\r
END:VEVENT\r
END:VCALENDAR\r
`;

/** A calendar published over HTTP; `status` other than 200 makes it unreadable, `oversized` a valid one past the 5 MB cap. */
class Feed {
  status = 200;
  oversized = false;
  reads = 0;
  private server: Server | null = null;
  url = "";
  async start() {
    const port = await freePort();
    this.server = createServer((_req, res) => {
      this.reads += 1;
      res.writeHead(this.status, { "content-type": "text/calendar" });
      if (this.status !== 200) return res.end();
      if (!this.oversized) return res.end(CALENDAR);
      const [head, tail] = CALENDAR.split("END:VCALENDAR");
      res.write(head);
      for (let i = 0; i < 6_000; i++) res.write(`X-PAD:${"x".repeat(1_000)}\r\n`);
      res.end(`END:VCALENDAR${tail}`);
    });
    await new Promise<void>((r) => this.server?.listen(port, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${port}/calendar.ics`;
    return this;
  }
  stop = () => new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(env: Record<string, string>, tuning = TUNING, port?: number) {
  const p = port ?? (await freePort());
  const server = await startServer(
    {
      SITE_URL: `http://127.0.0.1:${p}`,
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "1000",
      ...env,
    },
    p,
    tuning,
  );
  cleanups.push(() => server.stop());
  return server;
}

/** A message sent as the page's script sends it (from `ip`, through the loopback proxy): the answer, with the visitor's booking link. */
async function inquiry(
  server: RunningServer,
  name: string,
  email: string,
  extra: Record<string, string> = {},
  ip = "127.0.0.1",
) {
  const res = await sendAsPage(
    server.url,
    { name, email, message: "Could we talk about our cloud move?", ...extra },
    { headers: { "x-forwarded-for": ip } },
  );
  expect(res.status).toBe(201);
  const body = (await res.json()) as { ok: boolean; id: string; booking: string };
  expect(body.booking).toMatch(/^\/book\?t=/);
  return { id: body.id, link: `${server.url}${body.booking}` };
}

/** The number a visitor gives for the call (site.booking.place is "phone"). */
const PHONE = "303-555-0142";

async function pick(
  server: RunningServer,
  link: string,
  at: number,
  zone = "America/Denver",
  ip = "127.0.0.1",
) {
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    headers: { "x-forwarded-for": ip },
    body: new URLSearchParams({ t: tokenOf(link), slot: String(at), tz: zone, phone: PHONE }),
  });
  expect(res.status).toBe(200);
  return statusOf(await res.text());
}

/** A company or visitor link pressed: its page, then its button (for the time the page shows). */
async function press(server: RunningServer, link: string, form: Record<string, string> = {}) {
  const page = await fetch(link);
  expect(page.status).toBe(200);
  const slot = /name="slot" value="(\d+)"/.exec(await page.text())?.[1] ?? "";
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    body: new URLSearchParams({ t: tokenOf(link), slot, ...form }),
  });
  return statusOf(await res.text());
}

const mailsTo = (smtp: TestSmtp, to: string, subject: RegExp) =>
  smtp.received.filter(
    (m) =>
      m.mail.to && JSON.stringify(m.mail.to).includes(to) && subject.test(m.mail.subject ?? ""),
  );
async function mailTo(smtp: TestSmtp, to: string, subject: RegExp): Promise<Received> {
  await expect
    .poll(() => mailsTo(smtp, to, subject).length, { timeout: 20_000 })
    .toBeGreaterThan(0);
  return mailsTo(smtp, to, subject).at(-1) as Received;
}
const linkIn = (m: Received, action: string) =>
  new RegExp(`(http://127\\.0\\.0\\.1:\\d+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1] ?? "";

/** The invitation in a received email, read back with ical.js. */
function invitationIn(m: Received) {
  const part = m.mail.attachments.find((a) => a.contentType === "text/calendar");
  const cal = new ICAL.Component(ICAL.parse(part?.content.toString("utf8") ?? ""));
  const event = new ICAL.Event(cal.getFirstSubcomponent("vevent") ?? undefined);
  return {
    method: cal.getFirstPropertyValue("method"),
    organizer: String(event.organizer),
    attendees: event.attendees.map((a) => String(a.getFirstValue())),
    start: event.startDate.toJSDate().getTime(),
    end: event.endDate.toJSDate().getTime(),
    utc: event.startDate.zone?.tzid,
    sequence: event.sequence,
    uid: event.uid,
  };
}

const root = new URL("../../", import.meta.url).pathname;

// Mon Nov 30 2026 in the tests below is after Thanksgiving; Tue Nov 24 has the weekly meeting.
const MST = (day: number, hh: number, mm = 0) => Date.UTC(2026, 10, day, hh + 7, mm);

describe("the booking, from the answer to the invitation", { timeout: 180_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("offers open times around holidays and the calendar, holds one, and sends the invitation once confirmed", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const feed = await new Feed().start();
    cleanups.push(feed.stop);
    // Monday 23 November 2026, 9:05 AM MST; Thursday and Friday are holidays (app/config/site.ts).
    const server = await site({
      ...FAKETIME,
      FAKETIME: "@2026-11-23 16:05:00",
      SMTP_URL: smtp.url,
      BOOKING_FEEDS: feed.url,
      LEAD_ESCALATION_TO: "boss@example.com",
    });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    const pageOf = async (link: string) => (await fetch(link)).text();
    await expect
      .poll(async () => slotsOf(await pageOf(dana.link)).length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    const page = await pageOf(dana.link);
    const slots = slotsOf(page);
    // Not within the next 2 business hours: from 11:05 AM.
    expect(slots[0]).toBe(MST(23, 11, 30));
    // The weekly meeting, set in summer time, still 10–11 AM in winter: 9:00 and 11:00 open, 10:00 and 10:30 not.
    expect(slots).toEqual(
      expect.arrayContaining([MST(24, 9), MST(24, 9, 30), MST(24, 11), MST(24, 13)]),
    );
    expect(slots).not.toContain(MST(24, 10));
    expect(slots).not.toContain(MST(24, 10, 30));
    // Thanksgiving and the day after: closed. Saturday's short hours and Monday: open.
    expect(slots.filter((at) => at >= MST(26, 0) && at < MST(28, 0))).toEqual([]);
    expect(slots).toEqual(
      expect.arrayContaining([MST(28, 10), MST(28, 13, 30), MST(30, 9), MST(30, 17, 30)]),
    );
    expect(slots).not.toContain(MST(28, 14));
    expect(page).toContain("Tuesday, November 24");

    // The form without JavaScript: the 303 carries the link, and /contact/sent offers it.
    const html = await (await fetch(`${server.url}/contact`)).text();
    const form = new URLSearchParams({
      name: "Eve Second",
      email: "eve@example.org",
      company: "",
      service: "",
      message: "We would like to hear about AI consulting.",
      form_token: /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "",
    });
    const posted = await fetch(`${server.url}/contact`, {
      method: "POST",
      body: form,
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    const sent = await fetch(new URL(posted.headers.get("location") ?? "", server.url));
    const sentPage = await sent.text();
    expect(sentPage).toContain("Message Sent Successfully!");
    expect(sent.headers.get("cache-control")).toBe("no-store");
    const eve = {
      link: `${server.url}${/href="(\/book\?t=[^"]+)"/.exec(sentPage)?.[1]?.replaceAll("&amp;", "&")}`,
    };
    expect(sentPage).toContain("Book your free 30-minute consultation");

    // Dana asks for Tuesday 11:00 AM: the company hears of it, Dana gets nothing yet.
    expect(await pick(server, dana.link, MST(24, 11), "America/New_York")).toMatch(
      /^Thank you! You asked for Tue, Nov 24, 1:00–1:30 PM EST\./,
    );
    const request = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    expect(request.mail.subject).toBe("Dana Whitfield asks for Tue, Nov 24, 11:00–11:30 AM MST");
    expect(request.mail.text).toContain("their time: Tue, Nov 24, 1:00–1:30 PM EST");
    expect(request.mail.text).toMatch(/I'm on it: http/);
    // Eve cannot have it: it is neither offered nor taken.
    expect(slotsOf(await (await fetch(eve.link)).text())).not.toContain(MST(24, 11));
    expect(await pick(server, eve.link, MST(24, 11))).toMatch(/no longer open/);

    // Confirm acts on the time its page showed alone (a page left open over a newer pick changes nothing).
    expect(await press(server, linkIn(request, "confirm"), { slot: String(MST(24, 9)) })).toMatch(
      /^Nothing changed/,
    );
    // Confirm: both get the invitation, read back with ical.js.
    expect(await press(server, linkIn(request, "confirm"))).toMatch(/^Confirmed/);
    const invited = await mailTo(smtp, "dana@example.org", /^Your free consultation/);
    expect(mailsTo(smtp, "dana@example.org", /./)).toHaveLength(1);
    const invitation = invitationIn(invited);
    expect(invitation).toMatchObject({
      method: "REQUEST",
      organizer: "mailto:hello@example.com",
      start: MST(24, 11),
      end: MST(24, 11, 30),
      utc: "UTC",
      sequence: 0,
    });
    expect(invitation.attendees.map((a) => a.toLowerCase())).toEqual(["mailto:dana@example.org"]);
    expect(
      invitationIn(await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/)).method,
    ).toBe("REQUEST");
    // The lead is taken, through the one take path.
    const shown = JSON.parse(
      (await inquiriesCli({ DATA_DIR: server.dataDir }, "show", dana.id ?? "", "--json")).out,
    );
    expect(shown.takenAt).not.toBeNull();

    // Cancel from the invitation: METHOD:CANCEL to both, and the time is open again.
    expect(await press(server, linkIn(invited, "cancel"))).toMatch(/is free again/);
    const cancelled = invitationIn(await mailTo(smtp, "dana@example.org", /^Cancelled/));
    expect(cancelled).toMatchObject({
      method: "CANCEL",
      start: MST(24, 11),
      sequence: 1,
      uid: invitation.uid,
    });
    expect(invitationIn(await mailTo(smtp, "hello@example.com", /^Cancelled: Dana/)).method).toBe(
      "CANCEL",
    );
    expect(slotsOf(await (await fetch(eve.link)).text())).toContain(MST(24, 11));

    // Decline with a line: Eve gets the line and a new link that works.
    expect(await pick(server, eve.link, MST(24, 11))).toMatch(/^Thank you!/);
    const eveRequest = await mailTo(smtp, "hello@example.com", /^Eve Second asks for/);
    expect(
      await press(server, linkIn(eveRequest, "decline"), {
        note: "We are all at a customer that morning.",
      }),
    ).toMatch(/^Declined/);
    const declined = await mailTo(smtp, "eve@example.org", /^About your consultation/);
    expect(declined.mail.text).toContain("We are all at a customer that morning.");
    const again = linkIn(declined, "book");
    expect(slotsOf(await (await fetch(again)).text())).toContain(MST(24, 11));

    // Held as spam: the same answer and page, but its pick holds no time and reaches nobody until "Not spam".
    const bot = await inquiry(server, "Held Visitor", "held@example.org", {
      website: "http://spam.example",
    });
    expect(await pick(server, bot.link, MST(24, 11, 30))).toMatch(/^Thank you! You asked for/);
    expect(await pick(server, dana.link, MST(24, 11, 30))).toMatch(/^Thank you!/);
    // Dana's request, made after the held one's, arrived: the held one's did not go.
    const danaAsks = await mailTo(
      smtp,
      "hello@example.com",
      /^Dana Whitfield asks for Tue, Nov 24, 11:30/,
    );
    expect(mailsTo(smtp, "hello@example.com", /^Held Visitor asks/)).toHaveLength(0);
    expect((await inquiriesCli({ DATA_DIR: server.dataDir }, "not-spam", bot.id)).code).toBe(0);
    await mailTo(smtp, "hello@example.com", /^Held Visitor asks for Tue, Nov 24, 11:30/);
    // A lead marked spam after its pick holds its time no more: the next visitor gets it.
    const sam = await inquiry(server, "Sam Later", "sam@example.org");
    expect(await pick(server, sam.link, MST(24, 12))).toMatch(/^Thank you!/);
    expect(slotsOf(await pageOf(dana.link))).not.toContain(MST(24, 12));
    expect((await inquiriesCli({ DATA_DIR: server.dataDir }, "spam", sam.id)).code).toBe(0);
    expect(slotsOf(await pageOf(dana.link))).toContain(MST(24, 12));
    expect(await pick(server, dana.link, MST(24, 12))).toMatch(/^Thank you!/);

    // Chromium, JavaScript off then on, phone and desktop: the page works, passes axe, and with
    // JavaScript shows the browser's time zone; nothing is requested from another origin.
    for (const javaScriptEnabled of [false, true])
      for (const width of [390, 1440]) {
        const context = await browser.newContext({
          javaScriptEnabled,
          timezoneId: "America/Chicago",
          viewport: { width, height: 900 },
        });
        const tab = await context.newPage();
        const elsewhere: string[] = [];
        tab.on("request", (r) => {
          if (!r.url().startsWith(server.url)) elsewhere.push(r.url());
        });
        await tab.goto(again);
        // Without JavaScript: the office's zone, or the one the visitor chose last; with it, the browser's.
        const zone = () => tab.locator("#book-zone").inputValue();
        if (javaScriptEnabled) await expect.poll(zone, { timeout: 15_000 }).toBe("America/Chicago");
        else expect(await zone()).not.toBe("America/Chicago");
        // axe runs in the page: with JavaScript on (the markup is the same server-rendered page).
        if (javaScriptEnabled) {
          const axe = await new AxeBuilder({ page: tab as never })
            .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
            .analyze();
          expect(axe.violations.map((v) => v.id)).toEqual([]);
        }
        if (!javaScriptEnabled) {
          await tab.selectOption("#book-zone", "Pacific/Honolulu");
          await tab.getByRole("button", { name: "Show times" }).click();
          await expect
            .poll(() => tab.locator("legend").first().textContent(), { timeout: 15_000 })
            .toBeTruthy();
          expect(await tab.locator("#book-zone").inputValue()).toBe("Pacific/Honolulu");
        }
        const width2 = await tab.evaluate(() => document.documentElement.scrollWidth);
        expect(width2).toBeLessThanOrEqual(width);
        await tab.locator("#book-phone").fill(PHONE);
        await tab.locator('button[name="slot"]').first().click();
        await expect
          .poll(() => tab.getByRole("status").textContent(), { timeout: 15_000 })
          .toMatch(/You asked for/);
        expect(elsewhere).toEqual([]);
        await context.close();
      }

    // Erasing the inquiry erases its booking: Eve's time is free again, and her link finds nothing.
    const eveAsked = await fetch(again).then((r) => r.text());
    const asked = /You asked for ([^.]+)\./.exec(statusOf(eveAsked))?.[1];
    expect(asked).toBeTruthy();
    const before = slotsOf(await (await fetch(dana.link)).text()).length;
    expect(
      (await inquiriesCli({ DATA_DIR: server.dataDir }, "forget", "--email", "eve@example.org"))
        .code,
    ).toBe(0);
    expect((await fetch(again)).status).toBe(404);
    expect(slotsOf(await (await fetch(dana.link)).text()).length).toBe(before + 1);

    // Booked again after her cancellation: a new event (its own UID), not an older version of the cancelled one.
    // Her 12:00 request waits five minutes after her 11:30 one, unanswered; the Confirm link of that one
    // shows her request as it stands now, 12:00.
    expect(await press(server, linkIn(danaAsks, "confirm"))).toMatch(/^Confirmed/);
    const invitations = () => mailsTo(smtp, "dana@example.org", /^Your free consultation/);
    await expect.poll(() => invitations().length, { timeout: 20_000 }).toBe(2);
    const rebooked = invitationIn(invitations().at(-1) as Received);
    expect(rebooked).toMatchObject({ method: "REQUEST", start: MST(24, 12), sequence: 0 });
    expect(rebooked.uid).not.toBe(invitation.uid);

    // An older Cancel link opened on a time asked for and not yet confirmed: the email the page speaks of goes.
    const cancellations = () => mailsTo(smtp, "dana@example.org", /^Cancelled/);
    expect(await press(server, linkIn(invitations().at(-1) as Received, "cancel"))).toMatch(
      /is free again/,
    );
    await expect.poll(() => cancellations().length, { timeout: 20_000 }).toBe(2);
    expect(await pick(server, dana.link, MST(24, 13))).toMatch(/^Thank you!/);
    expect(await press(server, linkIn(invited, "cancel"))).toMatch(/1:00.*is free again/);
    await expect.poll(() => cancellations().length, { timeout: 20_000 }).toBe(3);
    expect(cancellations().at(-1)?.mail.text).toMatch(/Tue, Nov 24, 1:00/);
  });

  it("without JavaScript, the zone comes first and every time says its zone, to the eye and to a screen reader (issue 54)", async () => {
    // Monday 23 November 2026, 9:05 AM MST; office hours alone decide.
    const server = await site({ ...FAKETIME, FAKETIME: "@2026-11-23 16:05:00" });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    // Each slot's accessible name, as Chromium computes it for assistive technology.
    const slotNames = async (tab: Page) => {
      const tree = await tab.locator("form[method=post]").ariaSnapshot();
      const names = [...tree.matchAll(/^\s*- button "([^"]*)"/gm)].map((m) => m[1] ?? "");
      expect(names).toHaveLength(await tab.locator('button[name="slot"]').count());
      expect(names.length).toBeGreaterThan(10);
      return names;
    };
    for (const colorScheme of ["light", "dark"] as const)
      for (const width of [390, 1440]) {
        const context = await browser.newContext({
          javaScriptEnabled: false,
          colorScheme,
          timezoneId: "America/Chicago",
          viewport: { width, height: 900 },
        });
        const tab = await context.newPage();
        await tab.goto(dana.link);
        // The first thing to fill in is the zone, with the sentence that says which one the times are in.
        const controls = tab.locator(
          'main :is(select, button, textarea, input:not([type="hidden"]))',
        );
        expect(await controls.first().getAttribute("id")).toBe("book-zone");
        expect(
          (await tab.locator("main form").first().textContent())?.replace(/\s+/g, " "),
        ).toMatch(
          /^Times are shown in Mountain Time \(MST\), our office's time zone\. Not your time zone\? Choose yours:/,
        );
        for (const name of await slotNames(tab)) expect(name).toMatch(/^\d{1,2}:\d\d [AP]M MST$/);
        expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          width,
        );
        // Another zone chosen: its times say HST, the office's under each says MST.
        await tab.selectOption("#book-zone", "Pacific/Honolulu");
        await tab.getByRole("button", { name: "Show times" }).click();
        await expect
          .poll(() => tab.locator("main form strong").first().textContent(), { timeout: 15_000 })
          .toBe("Hawaii-Aleutian Standard Time (HST)");
        for (const name of await slotNames(tab))
          expect(name).toMatch(/^\d{1,2}:\d\d [AP]M HST \(\d{1,2}:\d\d [AP]M MST\)$/);
        expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          width,
        );
        await context.close();
        // The same page with JavaScript (the browser's zone, one reload), in this scheme and width: axe.
        const withScript = await browser.newContext({
          colorScheme,
          timezoneId: "America/Chicago",
          viewport: { width, height: 900 },
        });
        const page = await withScript.newPage();
        await page.goto(dana.link);
        await expect
          .poll(() => page.locator("main form strong").first().textContent(), { timeout: 15_000 })
          .toBe("Central Time (CST)");
        for (const name of await slotNames(page))
          expect(name).toMatch(/^\d{1,2}:\d\d [AP]M CST \(\d{1,2}:\d\d [AP]M MST\)$/);
        const axe = await new AxeBuilder({ page: page as never })
          .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
          .analyze();
        expect(axe.violations.map((v) => v.id)).toEqual([]);
        await withScript.close();
      }
  });

  it("without JavaScript, the invitation's link to another time opens the page with other times; a pick is a move, the call kept until the company confirms it (issue 54)", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    // Monday 23 November 2026, 9:05 AM MST.
    const server = await site({
      ...FAKETIME,
      FAKETIME: "@2026-11-23 16:05:00",
      SMTP_URL: smtp.url,
    });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    expect(await pick(server, dana.link, MST(24, 10))).toMatch(/^Thank you!/);
    const request = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    expect(await press(server, linkIn(request, "confirm"))).toMatch(/^Confirmed/);
    const invited = await mailTo(smtp, "dana@example.org", /^Your free consultation/);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const tab = await context.newPage();
    await tab.goto(linkIn(invited, "book"));
    expect(await tab.getByRole("status").textContent()).toBe(
      "Your consultation is booked for Tue, Nov 24, 10:00–10:30 AM MST. To move it, pick another time below: it stays booked until we confirm the new one. To cancel it, use the Cancel link in the email we sent you.",
    );
    // Its own time is not offered; Wednesday 11:00 is, and picking it asks for the move.
    expect(await tab.locator(`button[value="${MST(24, 10)}"]`).count()).toBe(0);
    await tab.locator(`button[value="${MST(25, 11)}"]`).click();
    await expect
      .poll(() => tab.getByRole("status").textContent(), { timeout: 15_000 })
      .toBe(
        "Your consultation is booked for Tue, Nov 24, 10:00–10:30 AM MST. Thank you! You asked to move it to Wed, Nov 25, 11:00–11:30 AM MST: we confirm that by email, and until then Tue, Nov 24, 10:00–10:30 AM MST stays booked. Picking another time replaces the request.",
      );
    await context.close();
    const move = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks to move/);
    // The company's Confirm page names both times; its button moves the call.
    const confirmPage = await (await fetch(linkIn(move, "confirm"))).text();
    expect(confirmPage).toContain(
      "Dana Whitfield &lt;dana@example.org&gt; asks to move their consultation from Tue, Nov 24, 10:00–10:30 AM MST to Wed, Nov 25, 11:00–11:30 AM MST",
    );
    expect(await press(server, linkIn(move, "confirm"))).toMatch(/^Confirmed/);
    const moved = await mailTo(smtp, "dana@example.org", /^Moved: /);
    expect(invitationIn(moved)).toMatchObject({ method: "REQUEST", start: MST(25, 11) });
    expect(mailsTo(smtp, "dana@example.org", /./)).toHaveLength(2);
  });

  it("tells the company on the lead's own route: its inbox and its Slack, not the general ones", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const general = await new Receiver().start("/services/T000/B000/GENERAL");
    const ai = await new Receiver().start("/services/T000/B000/AI");
    cleanups.push(
      () => general.stop(),
      () => ai.stop(),
    );
    const server = await site({
      ...FAKETIME,
      FAKETIME: "@2026-11-23 16:05:00",
      SMTP_URL: smtp.url,
      SLACK_WEBHOOK_URL: general.url,
      CONTACT_ROUTES: JSON.stringify({
        "AI Consulting": { to: "ai-partner@example.com", slack: ai.url },
      }),
    });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org", {
      service: "AI Consulting",
    });
    // The lead went to the route's Slack: the booking's message follows it there.
    await expect.poll(() => ai.received.length, { timeout: 20_000 }).toBe(1);
    expect(await pick(server, dana.link, MST(24, 11))).toMatch(/^Thank you!/);
    await expect.poll(() => ai.received.length, { timeout: 20_000 }).toBe(2);
    expect(JSON.parse(ai.received[1]?.body ?? "{}").text).toMatch(
      /^Dana Whitfield asks for Tue, Nov 24, 11:00–11:30 AM MST/,
    );
    const request = await mailTo(smtp, "ai-partner@example.com", /^Dana Whitfield asks for/);
    expect(request.mail.text).toMatch(/Confirm \(.*\): http/);
    expect(general.received).toEqual([]);
    expect(mailsTo(smtp, "hello@example.com", /asks for/)).toEqual([]);
  });

  it("offers no time while a calendar cannot be read, alerts once, and keeps the last good copy over a restart", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const feed = await new Feed().start();
    cleanups.push(feed.stop);
    feed.status = 500;
    const env = {
      SMTP_URL: smtp.url,
      BOOKING_FEEDS: feed.url,
      LEAD_ESCALATION_TO: "boss@example.com",
    };
    const port = await freePort();
    const first = await site(env, TUNING, port);
    const visitor = await inquiry(first, "Frank Feed", "frank@example.org");
    const alert = await mailTo(smtp, "boss@example.com", /^The booking page offers no times/);
    expect(alert.mail.text).toMatch(
      /could not read one of our calendars \(feed [0-9a-f]{8}\) at all/,
    );
    const closed = await (await fetch(visitor.link)).text();
    expect(closed).toContain("We cannot check our calendar just now");
    expect(slotsOf(closed)).toEqual([]);
    expect(await pick(first, visitor.link, slotsOf(closed)[0] ?? Date.now() + 86_400_000)).toMatch(
      /no longer open/,
    );

    feed.status = 200;
    await expect
      .poll(async () => slotsOf(await (await fetch(visitor.link)).text()).length, {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    feed.oversized = true;
    await first.stop();
    const second = await site({ ...env, DATA_DIR: first.dataDir }, TUNING, port);
    const reads = feed.reads;
    await expect.poll(() => feed.reads, { timeout: 20_000 }).toBeGreaterThan(reads);
    await expect
      .poll(async () => (await second.logged()).includes("calendar feed not read"), {
        timeout: 20_000,
      })
      .toBe(true);
    expect(slotsOf(await (await fetch(visitor.link)).text()).length).toBeGreaterThan(0);
    expect(mailsTo(smtp, "boss@example.com", /^The booking page offers no times/)).toHaveLength(1);
  });
});

/** The bookings and the company's booking messages as the server recorded them (SQLite, read beside it). */
function recorded<T>(server: RunningServer, sql: string, ...params: Array<string | number>): T[] {
  const db = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"), { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
// The time a status line names, left out: what else the visitor reads.
const words = (status: string) => status.replace(/for [^.]+\./, "for <time>.");
const AT = (utc: string) => ({ ...FAKETIME, FAKETIME: `@${utc}` });

describe("holds a bot cannot hoard (issue 52)", { timeout: 180_000 }, () => {
  it("caps the times one address, one network and one email domain hold; a pick over a cap still reaches the company, and reads the same", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const server = await site({ ...AT("2026-11-23 16:05:00"), SMTP_URL: smtp.url });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org", {}, "198.51.100.9");
    const open = async () => slotsOf(await (await fetch(dana.link)).text());
    const as = async (ip: string, email: string, at: number) => {
      const v = await inquiry(server, `Visitor ${email.split("@")[0]}`, email, {}, ip);
      return pick(server, v.link, at, "America/Denver", ip);
    };
    // One address, five messages within the form's limits, each on a domain of its own: two hold.
    const bot = [MST(24, 9), MST(24, 9, 30), MST(24, 11), MST(24, 11, 30), MST(24, 12)];
    const said: string[] = [];
    for (const [n, at] of bot.entries())
      said.push(await as("203.0.113.7", `bot${n}@b${n}.example`, at));
    expect(new Set(said.map(words))).toEqual(new Set([words(said[0] ?? "")]));
    expect(said[0]).toMatch(/^Thank you! You asked for/);
    let offered = await open();
    expect(bot.filter((at) => !offered.includes(at))).toEqual(bot.slice(0, 2));
    // All five reached the company; those holding nothing say so.
    await expect
      .poll(() => mailsTo(smtp, "hello@example.com", /^Visitor bot\d asks for/).length, {
        timeout: 20_000,
      })
      .toBe(5);
    const third = await mailTo(smtp, "hello@example.com", /^Visitor bot2 asks for/);
    expect(third.mail.text).toContain("The time is not kept for them");
    expect((await mailTo(smtp, "hello@example.com", /^Visitor bot0 asks for/)).mail.text).toMatch(
      /The time is kept for them until Tue, Nov 24, 9:00 AM/,
    );

    // Its neighbours on the network: one more holds (three on the network), the next does not.
    expect(await as("203.0.113.8", "n1@n1.example", MST(24, 13))).toMatch(/^Thank you!/);
    expect(await as("203.0.113.9", "n2@n2.example", MST(24, 13, 30))).toMatch(/^Thank you!/);
    // One email domain from four networks: three hold.
    const domain = [MST(24, 14), MST(24, 14, 30), MST(24, 15), MST(24, 15, 30)];
    for (const [n, at] of domain.entries()) await as(`198.18.${n}.1`, `d${n}@hoard.example`, at);
    offered = await open();
    expect([MST(24, 13), MST(24, 13, 30), ...domain].filter((at) => !offered.includes(at))).toEqual(
      [MST(24, 13), ...domain.slice(0, 3)],
    );

    // Webmail is nobody's office: four Gmail visitors from four networks each hold their time.
    const webmail = [MST(25, 9), MST(25, 9, 30), MST(25, 10), MST(25, 10, 30)];
    for (const [n, at] of webmail.entries()) await as(`198.19.${n}.1`, `g${n}@gmail.com`, at);
    const afterWebmail = await open();
    expect(webmail.filter((at) => afterWebmail.includes(at))).toEqual([]);

    // A request holding nothing can still be confirmed while its time is free.
    expect(await press(server, linkIn(third, "confirm"))).toMatch(/^Confirmed/);
    expect(await open()).not.toContain(MST(24, 11));
  });

  it("holds a time 16 business hours on the office's clock, and never past the time itself", async () => {
    const port = await freePort();
    const first = await site(AT("2026-11-23 16:05:00"), TUNING, port);
    // Monday 9:05 AM: one address asks for Monday 11:30 AM and for Saturday 10:00 AM (its two holds).
    const ip = "203.0.113.40";
    const soon = await inquiry(first, "Sam Soon", "sam@soon.example", {}, ip);
    const later = await inquiry(first, "Lee Later", "lee@later.example", {}, ip);
    const other = await inquiry(first, "Olga Other", "olga@other.example", {}, "198.51.100.41");
    expect(await pick(first, soon.link, MST(23, 11, 30), "America/Denver", ip)).toMatch(
      /^Thank you!/,
    );
    expect(await pick(first, later.link, MST(28, 10), "America/Denver", ip)).toMatch(/^Thank you!/);
    await first.stop();
    const at = async (utc: string) => {
      const server = await site({ ...AT(utc), DATA_DIR: first.dataDir }, TUNING, port);
      return {
        server,
        open: async () => slotsOf(await (await fetch(other.link)).text()),
        stop: server.stop,
      };
    };

    // Monday 11:40 AM: the 11:30 request holds no more (its time came), so the address may hold another.
    const monday = await at("2026-11-23 18:40:00");
    const third = await inquiry(monday.server, "Tia Third", "tia@third.example", {}, ip);
    expect(await pick(monday.server, third.link, MST(24, 9), "America/Denver", ip)).toMatch(
      /^Thank you!/,
    );
    expect(await monday.open()).not.toContain(MST(24, 9));
    await monday.stop();
    // Tuesday 4:00 PM: 8 h 55 min on Monday and 7 h on Tuesday are not yet 16 business hours.
    const before = await at("2026-11-24 23:00:00");
    expect(await before.open()).not.toContain(MST(28, 10));
    await before.stop();
    // Tuesday 4:10 PM: they are, and Saturday 10:00 AM is open again.
    const after = await at("2026-11-24 23:10:00");
    expect(await after.open()).toContain(MST(28, 10));
  });

  it("sends the company one request per five minutes while a visitor keeps picking, the last with the newest time", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const port = await freePort();
    const env = { SMTP_URL: smtp.url };
    const first = await site({ ...AT("2026-11-23 16:05:00"), ...env }, TUNING, port);
    const dana = await inquiry(first, "Dana Whitfield", "dana@example.org");
    const requests = () => mailsTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    const [a, b] = [MST(24, 9), MST(24, 11)];
    expect(await pick(first, dana.link, a)).toMatch(/^Thank you!/);
    // The first goes at once.
    await expect.poll(() => requests().length, { timeout: 20_000 }).toBe(1);
    type Row = {
      status: string;
      sent_at: number | null;
      next_attempt_at: number;
      payload: string | null;
    };
    const rows = () =>
      recorded<Row>(
        first,
        "SELECT status, sent_at, next_attempt_at, payload FROM deliveries WHERE inquiry_id = ? AND kind = 'booking' AND channel = 'email' ORDER BY created_at",
        dana.id,
      );
    const waiting = () =>
      JSON.parse(rows().find((r) => r.status === "pending")?.payload ?? "{}").subject;
    for (let n = 2; n <= 9; n++) {
      expect(await pick(first, dana.link, n % 2 === 0 ? b : a)).toMatch(/^Thank you!/);
      // The message waiting says the newest time.
      expect(waiting()).toBe(
        `Dana Whitfield asks for ${n % 2 === 0 ? "Tue, Nov 24, 11:00–11:30 AM" : "Tue, Nov 24, 9:00–9:30 AM"} MST`,
      );
    }
    const [sent, next] = rows();
    expect(rows()).toHaveLength(2);
    expect(sent?.status).toBe("sent");
    expect(next?.next_attempt_at).toBe(Number(sent?.sent_at) + 5 * 60_000);
    expect(requests()).toHaveLength(1);
    await first.stop();
    // Six minutes on: the second goes, with the newest time; none is left to go.
    const second = await site(
      { ...AT("2026-11-23 16:11:30"), ...env, DATA_DIR: first.dataDir },
      TUNING,
      port,
    );
    await expect.poll(() => requests().length, { timeout: 20_000 }).toBe(2);
    expect(requests()[1]?.mail.subject).toBe(
      "Dana Whitfield asks for Tue, Nov 24, 9:00–9:30 AM MST",
    );
    await expect
      .poll(() =>
        recorded<Row>(
          second,
          "SELECT status FROM deliveries WHERE inquiry_id = ? AND kind = 'booking' AND status <> 'sent'",
          dana.id,
        ),
      )
      .toEqual([]);
    expect(requests()).toHaveLength(2);
  });

  it("a pick of a message held as spam holds its time once someone presses Not spam, unless another visitor took it meanwhile", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const server = await site({ ...AT("2026-11-23 16:05:00"), SMTP_URL: smtp.url });
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    const open = async () => slotsOf(await (await fetch(dana.link)).text());
    const held = await inquiry(server, "Held Visitor", "held@example.net", {
      website: "http://spam.example",
    });
    expect(await pick(server, held.link, MST(24, 9))).toMatch(/^Thank you!/);
    expect(await open()).toContain(MST(24, 9));
    expect((await inquiriesCli({ DATA_DIR: server.dataDir }, "not-spam", held.id)).code).toBe(0);
    expect(await open()).not.toContain(MST(24, 9));
    expect(await pick(server, dana.link, MST(24, 9))).toMatch(/no longer open/);

    // Another held message asks for 9:30 AM; Dana takes it meanwhile: it stays hers after "Not spam".
    const late = await inquiry(server, "Late Release", "late@example.net", {
      website: "http://spam.example",
    });
    expect(await pick(server, late.link, MST(24, 9, 30))).toMatch(/^Thank you!/);
    expect(await pick(server, dana.link, MST(24, 9, 30))).toMatch(/^Thank you!/);
    expect((await inquiriesCli({ DATA_DIR: server.dataDir }, "not-spam", late.id)).code).toBe(0);
    const request = await mailTo(
      smtp,
      "hello@example.com",
      /^Late Release asks for Tue, Nov 24, 9:30/,
    );
    expect(await press(server, linkIn(request, "confirm"))).toMatch(
      /^Another visitor holds this time/,
    );
    // Dana moves on: 9:30 is open again, the released request never held it.
    expect(await pick(server, dana.link, MST(24, 10))).toMatch(/^Thank you!/);
    expect(await open()).toContain(MST(24, 9, 30));
  });

  it("a time held at another length blocks every start it overlaps", async () => {
    const port = await freePort();
    const first = await site(AT("2026-11-23 16:05:00"), TUNING, port);
    const long = await inquiry(first, "Lou Long", "lou@example.org");
    const dana = await inquiry(first, "Dana Whitfield", "dana@example.org");
    expect(await pick(first, long.link, MST(24, 11))).toMatch(/^Thank you!/);
    await first.stop();
    // As if Lou had picked while consultations were an hour long (site.ts consultationMinutes: 60).
    const db = new DatabaseSync(join(first.dataDir, "inquiries.sqlite"));
    db.prepare("UPDATE bookings SET ends_at = starts_at + 3600000 WHERE inquiry_id = ?").run(
      long.id,
    );
    db.close();
    const server = await site(
      { ...AT("2026-11-23 16:06:00"), DATA_DIR: first.dataDir },
      TUNING,
      port,
    );
    const offered = slotsOf(await (await fetch(dana.link)).text());
    expect(offered).toEqual(expect.arrayContaining([MST(24, 10, 30), MST(24, 12)]));
    expect(offered).not.toContain(MST(24, 11));
    expect(offered).not.toContain(MST(24, 11, 30));
    expect(await pick(server, dana.link, MST(24, 11, 30))).toMatch(/no longer open/);
  });

  it("the visitor's booking link works 14 days from their message, then says it expired", async () => {
    const port = await freePort();
    const first = await site(AT("2026-11-23 16:05:00"), TUNING, port);
    const dana = await inquiry(first, "Dana Whitfield", "dana@example.org");
    await first.stop();
    const openAt = async (utc: string) => {
      const server = await site({ ...AT(utc), DATA_DIR: first.dataDir }, TUNING, port);
      const page = await fetch(dana.link);
      const result = { status: page.status, html: await page.text() };
      await server.stop();
      return result;
    };
    const before = await openAt("2026-12-07 16:03:00");
    expect(before.status).toBe(200);
    expect(slotsOf(before.html).length).toBeGreaterThan(0);
    const after = await openAt("2026-12-07 16:07:00");
    expect(after.status).toBe(410);
    expect(after.html).toContain("This link has expired");
    expect(slotsOf(after.html)).toEqual([]);
  });

  it("Confirm changes nothing while another visitor holds a time that overlaps it from another start", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const port = await freePort();
    const first = await site({ ...AT("2026-11-23 16:05:00"), SMTP_URL: smtp.url }, TUNING, port);
    const long = await inquiry(first, "Lou Long", "lou@example.org");
    const kim = await inquiry(first, "Kim Later", "kim@example.org");
    expect(await pick(first, long.link, MST(24, 11))).toMatch(/^Thank you!/);
    expect(await pick(first, kim.link, MST(24, 11, 30))).toMatch(/^Thank you!/);
    const request = await mailTo(smtp, "hello@example.com", /^Kim Later asks for Tue, Nov 24/);
    await first.stop();
    // Lou's time as if picked while consultations were an hour long: 11:00–12:00, over Kim's 11:30.
    const db = new DatabaseSync(join(first.dataDir, "inquiries.sqlite"));
    db.prepare("UPDATE bookings SET ends_at = starts_at + 3600000 WHERE inquiry_id = ?").run(
      long.id,
    );
    db.close();
    const server = await site(
      { ...AT("2026-11-23 16:06:00"), SMTP_URL: smtp.url, DATA_DIR: first.dataDir },
      TUNING,
      port,
    );
    expect(await press(server, linkIn(request, "confirm"))).toMatch(
      /^Another visitor holds this time/,
    );
    const states = recorded<{ inquiry_id: string; state: string }>(
      server,
      "SELECT inquiry_id, state FROM bookings ORDER BY starts_at",
    );
    expect(states).toEqual([
      { inquiry_id: long.id, state: "asked" },
      { inquiry_id: kim.id, state: "asked" },
    ]);
    expect(mailsTo(smtp, "kim@example.org", /Confirmed|invitation/i)).toEqual([]);
  });
});

describe.each(["sqlite", "postgres"] as const)("an upgrade from 1.1.1 (%s)", (engine) => {
  it("keeps every time 1.1.1 held, and a Cancel link cancels the very event its invitation made", {
    timeout: 120_000,
  }, async () => {
    const { env, cleanup } = await engineEnv(engine, "booking_upgrade");
    cleanups.push(cleanup);
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    // The database as 1.1.1 left it: release 1.0.0's (tests/fixtures/v1.0.0), then 002_bookings.sql.
    const now = Date.UTC(2026, 10, 23, 16, 5);
    const [sent, waiting, held] = ["1", "2", "3"].map(
      (n) => `0190a000-0000-7000-8000-00000000000${n}`,
    ) as [string, string, string];
    const confirmedAt = now - 3_600_000;
    const statements = [
      readFileSync(join(root, `tests/fixtures/v1.0.0/schema.${engine}.sql`), "utf8"),
      ...readFileSync(join(root, "tests/fixtures/v1.0.0/data.sql"), "utf8")
        .replace(/^--.*$/gm, "")
        .replaceAll(":now", String(now))
        .split(";")
        .map((r) => r.trim())
        .filter(Boolean),
      readFileSync(join(root, `db/migrations/${engine}/002_bookings.sql`), "utf8"),
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (2, '002_bookings.sql', ${now - 1000})`,
      `INSERT INTO bookings (inquiry_id, starts_at, zone, state, slot, changed_at) VALUES ('${sent}', ${MST(24, 11)}, 'America/Denver', 'confirmed', ${MST(24, 11)}, ${confirmedAt})`,
      `INSERT INTO bookings (inquiry_id, starts_at, zone, state, slot, changed_at) VALUES ('${waiting}', ${MST(24, 13)}, 'America/Denver', 'asked', ${MST(24, 13)}, ${now - 1000})`,
      `INSERT INTO bookings (inquiry_id, starts_at, zone, state, slot, changed_at) VALUES ('${held}', ${MST(24, 14)}, 'America/Denver', 'asked', NULL, ${now - 1000})`,
    ];
    if (engine === "sqlite") {
      const db = new DatabaseSync(join(env.DATA_DIR ?? "", "inquiries.sqlite"));
      for (const s of statements) db.exec(s);
      db.close();
    } else {
      const client = new pg.Client(env.DATABASE_URL);
      await client.connect();
      for (const s of statements) await client.query(s);
      await client.end();
    }
    const port = await freePort();
    const server = await site(
      { ...AT("2026-11-23 16:05:00"), ...env, SMTP_URL: smtp.url },
      TUNING,
      port,
    );
    // Links signed with 1.0.0's key, as the emails of 1.1.1 carried them.
    const key = Buffer.from(
      "6c696e6b732d6b65792d6f662d72656c656173652d312e302e302d666978747572",
      "hex",
    );
    const link = (id: string, action: string) => {
      const payload = `${id}.${action}.${Math.ceil((now + 86_400_000) / 1000).toString(36)}.k1`;
      return `${server.url}/book?t=${payload}.${createHmac("sha256", key).update(payload).digest("base64url")}`;
    };
    const open = async () => slotsOf(await (await fetch(link(held, "book"))).text());
    // The confirmed time and the time asked for still hold; 30 minutes each, as 1.1.1 offered them.
    const offered = await open();
    expect(offered).not.toContain(MST(24, 11));
    expect(offered).not.toContain(MST(24, 13));
    expect(offered).toEqual(
      expect.arrayContaining([MST(24, 11, 30), MST(24, 13, 30), MST(24, 14)]),
    );
    // The visitor cancels: their calendar gets the cancellation of the event 1.1.1 invited them to.
    expect(await press(server, link(sent, "cancel"))).toMatch(/is free again/);
    const cancelled = invitationIn(await mailTo(smtp, "sent@example.org", /^Cancelled/));
    expect(cancelled).toMatchObject({
      method: "CANCEL",
      start: MST(24, 11),
      end: MST(24, 11, 30),
      uid: `booking-${sent}-${confirmedAt}@127.0.0.1`,
    });
    expect(await open()).toContain(MST(24, 11));
  });
});
