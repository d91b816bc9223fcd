import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { queueRequest } from "../../server/booking/messages.ts";
import { openSlots, slotMs } from "../../server/booking/slots.ts";
import { ask, move, settleMove } from "../../server/booking/store.ts";
import { loadConfig } from "../../server/config.ts";
import { routingOf } from "../../server/contact/delivery/routing.ts";
import { performAction } from "../../server/contact/review/page.ts";
import type { Promised } from "../../server/contact/review/promise.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import type { Database } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { TestSmtp } from "../support/smtp.ts";

/**
 * The reminder of a consultation request nobody answered (issue 54), through the outbox's schedule
 * on a controlled clock, as reply-promise.test.ts runs the lead's: a real SMTP server, SQLite across
 * a weekend, the test's own Monday holiday and the end of daylight saving time (Sunday 1 November
 * 2026, MDT to MST), a restart; then two instances on one PostgreSQL database. Requests are made
 * by the booking's own `ask` and `queueRequest`, for times the booking page offers on those facts.
 */

const HOLIDAY = "2026-11-02";
const facts: Promised = { ...site, holidays: [{ date: HOLIDAY, name: "The scenario's holiday" }] };
const slotFacts = { ...site, holidays: facts.holidays };
/** Office time: October in MDT (UTC-6), November in MST (UTC-7). */
const at = (date: string, time: string) =>
  Date.parse(`${date}T${time}:00${date < "2026-11-01" ? "-06:00" : "-07:00"}`);

const logs: Array<Record<string, unknown>> = [];
const log = pino({ level: "info" }, { write: (line: string) => logs.push(JSON.parse(line)) });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  logs.length = 0;
});

let now = 0;

async function instance(db: Database, smtp: TestSmtp, dataDir: string) {
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      SITE_URL: "http://127.0.0.1",
      CONTACT_TO: "inbox@example.com",
      CONTACT_ROUTES: JSON.stringify({ "AI Consulting": { to: "ai-partner@example.com" } }),
      LEAD_ESCALATION_TO: "owner@example.com",
      RATE_LIMIT_PER_MINUTE: "1000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
      SPAM_FILTER: "off",
    },
    { OUTBOX_POLL_MS: 25 },
  );
  const keys = testKeys();
  const made = await createContactPipeline(config, log, { keys, db, clock: () => now, facts });
  made.pipeline.worker.start();
  cleanups.push(() => made.close());
  const parts = { config, links: keys.links, routing: routingOf(config) };
  return { ...made, config, parts };
}
type Instance = Awaited<ReturnType<typeof instance>>;

async function wholeTurn(...instances: Instance[]) {
  for (const i of instances) {
    await i.pipeline.worker.pass();
    await i.pipeline.worker.settled();
  }
}

/** A message received at `receivedAt`, and its visitor's pick of `startsAt` at `askedAt`. */
async function request(
  p: Instance,
  name: string,
  receivedAt: number,
  startsAt: number,
  extra: Record<string, unknown> = {},
) {
  now = receivedAt;
  const outcome = await p.pipeline.submit({
    body: {
      name,
      email: `${name.toLowerCase().replace(/\W+/g, ".")}@example.org`,
      company: "",
      service: "AI Consulting",
      message: "Could we talk about a model audit?",
      ...extra,
    },
    source: "api",
    ip: "203.0.113.9",
    userAgent: "vitest",
    page: "/contact",
  });
  const id = "id" in outcome ? String(outcome.id) : "";
  const i = await inquiries.get(p.db, id);
  if (!i) throw new Error("no inquiry");
  const pick = {
    inquiryId: id,
    startsAt,
    endsAt: startsAt + slotMs(),
    zone: "America/New_York",
    address: null,
    network: null,
    domain: "example.org",
    holdUntil: startsAt,
    phone: null,
  };
  const asked = await ask(
    p.db,
    pick,
    now,
    async () => openSlots(now, [], slotFacts),
    (tx, made) => queueRequest(p.parts, tx, i, { ...pick, ...made }, now),
  );
  expect(asked).toBe(true);
  return id;
}

const alerts = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-alert") === "booking-unanswered");
const alertsFor = (smtp: TestSmtp, id: string) =>
  alerts(smtp).filter((m) => m.mail.headers.get("x-inquiry-ids") === id);
const addressesOf = (m: (typeof TestSmtp.prototype.received)[number]) =>
  [m.mail.to]
    .flat()
    .flatMap((t) => t?.value.map((v) => v.address))
    .sort();

async function startSmtp() {
  const smtp = await new TestSmtp().start();
  cleanups.push(() => smtp.stop());
  return smtp;
}
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "booking-reminder-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("a consultation request nobody answered", { timeout: 60_000 }, () => {
  it("reminds the route and the escalation address once, at the promise or the booking notice, across a weekend, a holiday and the change of clock", async () => {
    const smtp = await startSmtp();
    const dir = tempDir();
    now = at("2026-10-31", "12:00");
    let a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir);

    // Saturday 13:00 MDT, for Wednesday 15:00 MST: 1 business hour on Saturday, none Sunday nor on
    // the holiday, so the 4-hour promise is up Tuesday 12:00 MST, before the notice (Wed 13:00).
    const late = await request(
      a,
      "Promise Passes",
      at("2026-10-31", "13:00"),
      at("2026-11-04", "15:00"),
    );
    // Saturday 13:30 MDT, for Tuesday 11:30 MST: less than 2 business hours are left from Tuesday
    // 9:30, before its promise (Tuesday 12:30).
    const near = await request(
      a,
      "Time Comes Close",
      at("2026-10-31", "13:30"),
      at("2026-11-03", "11:30"),
    );
    // Answered in time, held by the filter, and replaced by a newer pick: never reminded (the newer one is).
    const confirmed = await request(
      a,
      "Confirmed One",
      at("2026-10-31", "13:40"),
      at("2026-11-04", "16:00"),
    );
    const declined = await request(
      a,
      "Declined One",
      at("2026-10-31", "13:41"),
      at("2026-11-04", "16:30"),
    );
    const held = await request(
      a,
      "Held One",
      at("2026-10-31", "13:42"),
      at("2026-11-04", "17:00"),
      {
        website: "filled",
      },
    );
    expect((await inquiries.get(a.db, held))?.held).toBe(true);
    const repicked = await request(
      a,
      "Picks Again",
      at("2026-10-31", "13:43"),
      at("2026-11-05", "09:00"),
    );
    now = at("2026-11-03", "09:10");
    await move(
      a.db,
      confirmed,
      ["asked"],
      at("2026-11-04", "16:00"),
      "confirmed",
      now,
      async () => {},
      "Dana",
    );
    await move(
      a.db,
      declined,
      ["asked"],
      at("2026-11-04", "16:30"),
      "declined",
      now,
      async () => {},
    );
    // Tuesday 10:00 MST: the visitor picks another time; its promise runs from now (due 14:00).
    now = at("2026-11-03", "10:00");
    const i = await inquiries.get(a.db, repicked);
    const newer = at("2026-11-05", "10:00");
    const pick = {
      inquiryId: repicked,
      startsAt: newer,
      endsAt: newer + slotMs(),
      zone: site.timeZone,
      address: null,
      network: null,
      domain: "example.org",
      holdUntil: newer,
      phone: null,
    };
    await ask(
      a.db,
      pick,
      now,
      async () => openSlots(now, [], slotFacts),
      (tx, made) =>
        queueRequest(a.parts, tx, i as NonNullable<typeof i>, { ...pick, ...made }, now),
    );

    // Sunday noon, the holiday afternoon, Tuesday 9:29 MST (10:29 on the summer clock): nothing yet.
    for (const t of [at("2026-11-01", "12:00"), at(HOLIDAY, "15:00"), at("2026-11-03", "09:29")]) {
      now = t;
      await wholeTurn(a);
      expect(alerts(smtp).map((m) => m.mail.subject)).toEqual([]);
    }
    // Tuesday 9:30 MST: the time that comes close is reminded, once, to the route and the escalation address.
    now = at("2026-11-03", "09:30");
    await expect.poll(() => alerts(smtp).length, { timeout: 10_000 }).toBe(1);
    const [close] = alertsFor(smtp, near);
    expect(close?.mail.subject).toBe(
      "No answer yet: Time Comes Close asks for Tue, Nov 3, 11:30 AM–12:00 PM MST",
    );
    expect(addressesOf(close as NonNullable<typeof close>)).toEqual([
      "ai-partner@example.com",
      "owner@example.com",
    ]);
    expect(close?.mail.text).toMatch(
      /^Its time is less than 2 business hours away, and nobody has confirmed or declined it\./,
    );
    expect(close?.mail.text).toContain("(their time: Tue, Nov 3, 1:30–2:00 PM EST)");
    expect(close?.mail.text).toMatch(
      /Confirm \(they get a calendar invitation[^\n]*: http:\/\/127\.0\.0\.1\/book\?t=/,
    );
    // Its HTML part (delivery/layout.ts): the reason first, then the request's Confirm as a button
    // to the text part's link.
    const html = String(close?.mail.html ?? "");
    const confirm = /Confirm \([^\n]*: (http\S+)/.exec(close?.mail.text ?? "")?.[1] ?? "";
    expect(html.indexOf("Its time is less than 2 business hours away")).toBeGreaterThan(0);
    expect(html.indexOf("Its time is less than 2 business hours away")).toBeLessThan(
      html.indexOf(`href="${confirm}"`),
    );
    expect(html).toMatch(new RegExp(`href="${confirm.replace(/[.?]/g, "\\$&")}"[^>]*>Confirm</a>`));

    // Tuesday 11:59 MST (12:59 on the summer clock): the promise has not passed.
    now = at("2026-11-03", "11:59");
    await wholeTurn(a);
    expect(alerts(smtp)).toHaveLength(1);
    now = at("2026-11-03", "12:00");
    await expect.poll(() => alerts(smtp).length, { timeout: 10_000 }).toBe(2);
    expect(alertsFor(smtp, late)[0]?.mail.text).toMatch(
      /^Nobody has confirmed or declined it for 4 h of business time; we promise a reply within 4 business hours\./,
    );

    // A restart: nothing again; the newer pick goes at its own promise (Tuesday 14:00), once.
    await wholeTurn(a);
    await a.close();
    cleanups.pop();
    a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir);
    now = at("2026-11-03", "13:59");
    await wholeTurn(a);
    expect(alerts(smtp)).toHaveLength(2);
    now = at("2026-11-03", "14:00");
    await expect.poll(() => alertsFor(smtp, repicked).length, { timeout: 10_000 }).toBe(1);
    expect(alertsFor(smtp, repicked)[0]?.mail.subject).toContain("Thu, Nov 5, 10:00–10:30 AM MST");
    // A clock a day ahead and back: never again.
    now = at("2026-11-04", "12:00");
    await wholeTurn(a);
    now = at("2026-11-03", "14:01");
    await wholeTurn(a);
    expect(alertsFor(smtp, late)).toHaveLength(1);
    expect(alertsFor(smtp, near)).toHaveLength(1);
    expect(alertsFor(smtp, repicked)).toHaveLength(1);
    for (const id of [confirmed, declined, held]) expect(alertsFor(smtp, id)).toEqual([]);
    // Marked "Not spam" now, the held one's request reminds (its promise passed at Tuesday 12:42), once.
    await performAction(a.db, a.config, routingOf(a.config), "not-spam", held, now);
    await expect.poll(() => alertsFor(smtp, held).length, { timeout: 10_000 }).toBe(1);
    await wholeTurn(a);
    expect(alerts(smtp)).toHaveLength(4);
    const said = logs.filter(
      (l) => l.msg === "booking: reminder sent for a request nobody answered",
    );
    expect(said).toHaveLength(4);
  });
});

describe("a move of a confirmed call nobody answered", { timeout: 60_000 }, () => {
  it("reminds once at its promise, as a request does; a move answered in time never", async () => {
    const smtp = await startSmtp();
    const dir = tempDir();
    now = at("2026-11-09", "08:00");
    const a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir);
    // Two calls for Wednesday, confirmed on Monday.
    const waiting = await request(
      a,
      "Move Waits",
      at("2026-11-09", "09:00"),
      at("2026-11-11", "15:00"),
    );
    const answered = await request(
      a,
      "Move Answered",
      at("2026-11-09", "09:01"),
      at("2026-11-11", "16:00"),
    );
    now = at("2026-11-09", "09:30");
    for (const [id, startsAt] of [
      [waiting, at("2026-11-11", "15:00")],
      [answered, at("2026-11-11", "16:00")],
    ] as const)
      await move(a.db, id, ["asked"], startsAt, "confirmed", now, async () => {});
    // Tuesday 10:00: each visitor picks another time (a move: the confirmed time stays).
    now = at("2026-11-10", "10:00");
    const moveTo = async (id: string, startsAt: number) => {
      const i = await inquiries.get(a.db, id);
      const pick = {
        inquiryId: id,
        startsAt,
        endsAt: startsAt + slotMs(),
        zone: site.timeZone,
        address: null,
        network: null,
        domain: "example.org",
        holdUntil: startsAt,
        phone: null,
      };
      const moved = await ask(
        a.db,
        pick,
        now,
        async () => openSlots(now, [], slotFacts),
        (tx, made) =>
          queueRequest(a.parts, tx, i as NonNullable<typeof i>, { ...pick, ...made }, now),
      );
      expect(moved).toBe(true);
    };
    await moveTo(waiting, at("2026-11-12", "10:00"));
    await moveTo(answered, at("2026-11-12", "11:00"));
    // The company confirms one move at 11:00; the other waits.
    now = at("2026-11-10", "11:00");
    expect(
      await settleMove(a.db, answered, at("2026-11-12", "11:00"), true, now, async () => {}),
    ).not.toBeNull();
    now = at("2026-11-10", "13:59");
    await wholeTurn(a);
    expect(alerts(smtp)).toEqual([]);
    // Tuesday 14:00, four business hours after the pick: the waiting move is reminded, once.
    now = at("2026-11-10", "14:00");
    await expect.poll(() => alertsFor(smtp, waiting).length, { timeout: 10_000 }).toBe(1);
    expect(alertsFor(smtp, waiting)[0]?.mail.subject).toBe(
      "No answer yet: Move Waits asks to move Wed, Nov 11, 3:00–3:30 PM MST to Thu, Nov 12, 10:00–10:30 AM MST",
    );
    now = at("2026-11-10", "16:00");
    await wholeTurn(a);
    await wholeTurn(a);
    expect(alertsFor(smtp, waiting)).toHaveLength(1);
    expect(alertsFor(smtp, answered)).toEqual([]);
  });
});

describe("on PostgreSQL with two instances", { timeout: 60_000 }, () => {
  it("each unanswered request is reminded exactly once, whichever instance sends it", async () => {
    const smtp = await startSmtp();
    const dir = tempDir();
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "booking_reminder");
    cleanups.push(pgdb.drop);
    now = at("2026-11-03", "08:00");
    const a = await instance(openPostgres(pgdb.url), smtp, dir);
    const b = await instance(openPostgres(pgdb.url), smtp, dir);
    const ids: string[] = [];
    for (let n = 0; n < 6; n++)
      ids.push(
        await request(
          n % 2 ? a : b,
          `Visitor ${n}`,
          at("2026-11-03", "09:00"),
          at("2026-11-05", "09:00") + n * slotMs(),
        ),
      );
    now = at("2026-11-03", "12:59");
    await wholeTurn(a, b);
    expect(alerts(smtp)).toEqual([]);
    now = at("2026-11-03", "13:00");
    await expect.poll(() => alerts(smtp).length, { timeout: 10_000 }).toBe(6);
    await wholeTurn(a, b);
    await wholeTurn(a, b);
    for (const id of ids) expect(alertsFor(smtp, id)).toHaveLength(1);
  });
});
