import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { slotsOf, statusOf, tokenOf } from "../support/booking-page.ts";
import { launchChromium } from "../support/chromium.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The emails people read on a phone (issue 54): the lead, the booking's messages and the morning
 * digest, each as the production server sends it to a real SMTP server and mailparser reads it back,
 * then its HTML part opened in Chromium at 390 and 1440 px, light and dark, with axe. The buttons
 * lead where the text part's full links do; no raw link is visible text. The server runs under
 * faketime: on Monday 30 November 2026 before opening the visitors book, then (restarted at 9:05
 * AM, the digest scheduled) the digest tells of the day's call and the request waiting.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
};
const TUNING = { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0, HOUSEKEEPING_TURN_MS: 200 };
// Long enough to overflow a phone's width if it did not wrap, and no hyphen (a place a line may break).
const LONG_EMAIL = "dana.whitfield.consultations.and.planning@example.enterprise.holdings.org";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function inquiry(server: RunningServer, name: string, email: string, extra = {}) {
  const res = await sendAsPage(server.url, {
    name,
    email,
    company: "Whitfield Freight",
    service: "IT Consulting",
    message: "Could we talk about our cloud move?\nWe have two data centers.",
    ...extra,
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; booking: string };
  return { id: body.id, link: `${server.url}${body.booking}` };
}

/** The visitor's pick, from their zone: the `nth` time their page offers. */
async function pick(server: RunningServer, link: string, nth: number) {
  const offered = async () => slotsOf(await (await fetch(link)).text());
  await expect.poll(async () => (await offered()).length, { timeout: 20_000 }).toBeGreaterThan(nth);
  const at = (await offered())[nth] as number;
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    // The consultation is a phone call (site.booking.place): the page asks the number to call.
    body: new URLSearchParams({
      t: tokenOf(link),
      slot: String(at),
      tz: "America/New_York",
      phone: "(303) 555-0142",
    }),
  });
  expect(statusOf(await res.text())).toMatch(/^Thank you!/);
  return at;
}

/** A link of an email pressed: its page, then its button. */
async function press(server: RunningServer, link: string, form: Record<string, string> = {}) {
  const page = await (await fetch(link)).text();
  const slot = /name="slot" value="(\d+)"/.exec(page)?.[1] ?? "";
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    body: new URLSearchParams({ t: tokenOf(link), slot, ...form }),
  });
  return statusOf(await res.text());
}

async function mailTo(smtp: TestSmtp, to: string, subject: RegExp): Promise<Received> {
  const find = () =>
    smtp.received.find(
      (m) => JSON.stringify(m.mail.to ?? "").includes(to) && subject.test(m.mail.subject ?? ""),
    );
  await expect.poll(() => find() !== undefined, { timeout: 20_000 }).toBe(true);
  return find() as Received;
}

/** The full link of the text part after `label`, on its line or the next ("Confirm (…): URL", "Spam (…):\nURL"). */
function textLink(m: Received, label: string) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const url = new RegExp(`${escaped}[^\\n]*?\\n?[^\\n]*?(https?://\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1];
  expect(url, `${label} in the text part`).toBeDefined();
  return url as string;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/**
 * The HTML part as a mail app shows it: each button (its words) leads to the text part's link,
 * nothing wider than the screen, no raw link in the words, dark in the dark scheme, axe clean, and
 * nothing fetched from anywhere.
 */
async function readable(m: Received, buttons: Record<string, string>) {
  const html = String(m.mail.html || "");
  expect(html, m.mail.subject).toMatch(/^<!doctype html>/);
  expect(m.mail.text).toBeTruthy();
  for (const colorScheme of ["light", "dark"] as const)
    for (const width of [390, 1440]) {
      // JavaScript on for axe alone: the emails carry no script (a mail app would run none).
      const context = await browser.newContext({
        colorScheme,
        viewport: { width, height: 800 },
      });
      const requests: string[] = [];
      context.on("request", (r) => requests.push(r.url()));
      const page = await context.newPage();
      await page.setContent(html);
      const where = `${m.mail.subject} at ${width} px, ${colorScheme}`;
      const shown = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        text: document.body.textContent,
        background: getComputedStyle(document.querySelector(".page") as Element).backgroundColor,
      }));
      expect(shown.scrollWidth, where).toBeLessThanOrEqual(width);
      expect(shown.text, where).not.toMatch(/https?:\/\/|www\.|\?t=/);
      expect(shown.background, where).toBe(
        colorScheme === "dark" ? "rgb(15, 23, 42)" : "rgb(255, 255, 255)",
      );
      for (const [label, url] of Object.entries(buttons))
        expect(await page.getByRole("link", { name: label, exact: true }).getAttribute("href"), {
          message: `${where}: ${label}`,
        } as never).toBe(url);
      const axe = await new AxeBuilder({ page: page as never })
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
        .analyze();
      expect(
        axe.violations.map((v) => v.id),
        where,
      ).toEqual([]);
      expect(requests.filter((u) => u !== "about:blank")).toEqual([]);
      await context.close();
    }
}

describe("emails people read on a phone", { timeout: 240_000 }, () => {
  it("the lead, the request, the confirmations, the decline and the digest are HTML with buttons and a text part", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const dir = mkdtempSync(join(tmpdir(), "email-html-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const env = {
      ...FAKETIME,
      SITE_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "1000",
      DATA_DIR: dir,
    };
    // Monday 30 November 2026, 8:00 AM MST: the office opens at 9:00, the digest is not scheduled.
    const early = await startServer({ ...env, FAKETIME: "@2026-11-30 15:00:00" }, port, TUNING);
    cleanups.push(() => early.stop());

    // The lead itself.
    const dana = await inquiry(early, "Dana Whitfield", LONG_EMAIL);
    const lead = await mailTo(smtp, "hello@example.com", /^New inquiry: IT Consulting/);
    await readable(lead, {
      "Reply to Dana Whitfield": String(/mailto:\S+/.exec(lead.mail.text ?? "")?.[0]),
      "I'm on it": textLink(lead, "I'm on it"),
      Spam: textLink(lead, "Spam ("),
    });

    // Her request, for today, from New York: Confirm and Decline as buttons, her own time in words.
    await pick(early, dana.link, 0);
    const asks = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for Mon, Nov 30/);
    const confirm = textLink(asks, "Confirm");
    expect(confirm).toMatch(/\/book\?t=[0-9a-f-]{36}\.confirm\./);
    expect(String(asks.mail.html)).toContain(
      "Dana Whitfield asks for Mon, Nov 30, 11:00–11:30 AM MST</h1>",
    );
    expect(String(asks.mail.html)).toContain("(their time: Mon, Nov 30, 1:00–1:30 PM EST)");
    await readable(asks, {
      Confirm: confirm,
      Decline: textLink(asks, "Decline"),
      "I'm on it": textLink(asks, "I'm on it"),
    });

    // Confirmed: her invitation and the company's copy, the calendar part as before.
    expect(await press(early, confirm, { by: "Sam Ortega" })).toMatch(/^Confirmed/);
    const invited = await mailTo(smtp, LONG_EMAIL, /^Your free consultation/);
    const booked = await mailTo(smtp, "hello@example.com", /^Booked: Dana Whitfield/);
    for (const m of [invited, booked])
      expect(m.mail.attachments.map((a) => a.contentType)).toContain("text/calendar");
    await readable(invited, { "Cancel the consultation": textLink(invited, "Cancel here") });
    await readable(booked, {});

    // Eve asks for a time nobody answers before the digest; Frank's, tomorrow, is declined.
    const eve = await inquiry(early, "Eve Second", "eve@example.org", { company: "" });
    await pick(early, eve.link, 1);
    const eveAsks = await mailTo(smtp, "hello@example.com", /^Eve Second asks for/);
    const frank = await inquiry(early, "Frank Third", "frank@example.org");
    const slots = slotsOf(await (await fetch(frank.link)).text());
    await pick(
      early,
      frank.link,
      slots.findIndex((at) => at > Date.UTC(2026, 11, 1, 7)),
    );
    const frankAsks = await mailTo(smtp, "hello@example.com", /^Frank Third asks for Tue/);
    expect(
      await press(early, textLink(frankAsks, "Decline"), { note: "We are out that morning." }),
    ).toMatch(/^Declined/);
    const declined = await mailTo(smtp, "frank@example.org", /^About your consultation/);
    expect(declined.mail.text).toContain("We are out that morning.");
    await readable(declined, { "Pick another time": textLink(declined, "Please pick") });
    // A message held as spam (its honeypot filled): its pick is in no digest's requests.
    const bot = await inquiry(early, "Held Visitor", "held@example.org", {
      website: "http://spam.example",
    });
    await pick(early, bot.link, 2);
    await early.stop();

    // 9:05 AM, the digest scheduled: the day's call first, then Eve's request, then the leads.
    const opening = await startServer({ ...env, FAKETIME: "@2026-11-30 16:05:00" }, port, {
      ...TUNING,
      SCHEDULE: ["digest"],
    });
    cleanups.push(() => opening.stop());
    const digest = await mailTo(smtp, "hello@example.com", /^Leads, Mon, Nov 30/);
    const text = digest.mail.text ?? "";
    const lines = [
      "Calls today: 1",
      `- Mon, Nov 30, 11:00–11:30 AM MST: Dana Whitfield (Whitfield Freight) <${LONG_EMAIL}>, IT Consulting (their time: Mon, Nov 30, 1:00–1:30 PM EST); confirmed by Sam Ortega`,
      "Consultation requests waiting for Confirm or Decline: 1",
      "- Eve Second <eve@example.org> asks for",
      "Every open lead",
      "New since",
      "Held as spam since",
      "- Held Visitor <held@example.org>",
    ];
    for (const line of lines) expect(text).toContain(line);
    const order = lines.map((line) => text.indexOf(line));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).not.toContain("Frank Third asks");
    expect(text).not.toContain("Held Visitor asks");
    const overview = /^(http:\/\/127\.0\.0\.1:\d+\/overview\?t=\S+)$/m.exec(text)?.[1] ?? "";
    expect(overview).not.toBe("");
    const eveConfirm = /- Eve Second[^\n]*\n {2}Confirm: (\S+)/.exec(text)?.[1] ?? "";
    expect(eveConfirm).toMatch(new RegExp(`t=${eve.id}\\.confirm\\.`));
    await readable(digest, {
      "Open every open lead": overview,
      Confirm: eveConfirm,
      "Not spam": textLink(digest, "  Not spam"),
    });
    // The digest's Confirm acts like the request's own.
    expect(await press(opening, eveConfirm)).toMatch(/^Confirmed/);
    expect(eveAsks.mail.text).toContain("Confirm (");
  });
});
