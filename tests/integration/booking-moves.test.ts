import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ICAL from "ical.js";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import type { BookingView } from "../../app/contact/booking.ts";
import { bookingLink } from "../../server/booking/messages.ts";
import { bookingPage } from "../../server/booking/page.ts";
import { bookingsToList } from "../../server/booking/store.ts";
import { type Config, loadConfig } from "../../server/config.ts";
import { digestWords } from "../../server/contact/review/digest.ts";
import type { LeadLinks } from "../../server/contact/review/links.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The visitor's reminder and the move of a confirmed call (server/booking/), through the schedule:
 * two instances on one PostgreSQL database, their housekeeping and outbox turning as the server's do,
 * on a controlled clock from Thursday 11 March 2027, across Sunday, the daylight-saving change
 * (Sunday 14 March), and the scenario's holiday (Monday 15 March); a third instance started later.
 * A real SMTP server receives each reminder once; invitations are read with ical.js.
 */

const facts = {
  ...site,
  holidays: [{ date: "2027-03-15", name: "The scenario's holiday" }],
};
const at = (iso: string) => Date.parse(iso);
/** The number a visitor gives for the call (site.booking.place is "phone"). */
const PHONE = "303-555-0142";
const log = pino({ level: "silent" });

/** The time every instance reads; set by the test. */
let now = 0;
let smtp: TestSmtp;
let dir: string;
let pgdb: Awaited<ReturnType<typeof createTestDatabase>>;
type Instance = Awaited<ReturnType<typeof createContactPipeline>> & {
  booking: ReturnType<typeof bookingPage>;
  config: Config;
  links: LeadLinks;
};
const instances: Instance[] = [];

async function instance(): Promise<Instance> {
  const config = loadConfig(
    {
      DATA_DIR: dir,
      SMTP_URL: smtp.url,
      CONTACT_TO: "inbox@example.com",
      SPAM_FILTER: "off",
    },
    { OUTBOX_POLL_MS: 25, HOUSEKEEPING_TURN_MS: 50, SCHEDULE: ["booking-reminders"] },
  );
  const keys = testKeys();
  const made = await createContactPipeline(config, log, {
    keys,
    db: openPostgres(pgdb.url),
    clock: () => now,
    facts,
  });
  made.pipeline.worker.start();
  made.housekeeping.start();
  const booking = bookingPage({
    pipeline: () => made.pipeline,
    links: keys.links,
    config,
    log,
    clock: () => now,
    facts,
  });
  const self = { ...made, booking, config, links: keys.links };
  instances.push(self);
  return self;
}

beforeAll(async () => {
  smtp = await new TestSmtp().start();
  dir = mkdtempSync(join(tmpdir(), "booking-moves-"));
  pgdb = await createTestDatabase(inject("pgAdminUrl"), "booking_moves");
}, 60_000);
afterAll(async () => {
  for (const i of instances.splice(0)) await i.close();
  await smtp?.stop();
  await pgdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const mailsTo = (to: string, subject: RegExp) =>
  smtp.received.filter(
    (m) => JSON.stringify(m.mail.to ?? "").includes(to) && subject.test(m.mail.subject ?? ""),
  );
async function mailTo(to: string, subject: RegExp): Promise<Received> {
  await expect.poll(() => mailsTo(to, subject).length, { timeout: 10_000 }).toBeGreaterThan(0);
  return mailsTo(to, subject).at(-1) as Received;
}
const tokenIn = (m: Received, action: string) =>
  new URL(
    new RegExp(`(http\\S+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
      m.mail.text ?? "",
    )?.[1] ?? "http://x/",
  ).searchParams.get("t") ?? "";
function calendarOf(m: Received) {
  const part = m.mail.attachments.find((x) => x.contentType === "text/calendar");
  if (!part) return null;
  const cal = new ICAL.Component(ICAL.parse(part.content.toString("utf8")));
  const e = cal.getFirstSubcomponent("vevent");
  return {
    method: String(cal.getFirstPropertyValue("method")),
    uid: String(e?.getFirstPropertyValue("uid")),
    sequence: Number(e?.getFirstPropertyValue("sequence")),
    start: new ICAL.Event(e ?? undefined).startDate.toJSDate().getTime(),
    organizer: String(e?.getFirstPropertyValue("organizer")).toLowerCase(),
    attendees: e?.getAllProperties("attendee").map((p) => String(p.getFirstValue()).toLowerCase()),
  };
}
const rows = async (id: string) =>
  (
    await instances[0]?.db.query(
      "SELECT state, starts_at, sequence, reminded_at, move_starts_at FROM bookings WHERE inquiry_id = ?",
      [id],
    )
  )?.[0];
const settled = () => Promise.all(instances.map((i) => i.pipeline.worker.settled()));

let visitors = 0;
/** A visitor's message and their pick of `startsAt` in `zone`: a request the company has. */
async function picked(name: string, startsAt: string, zone = site.timeZone) {
  const a = instances[0] as (typeof instances)[0];
  const n = ++visitors;
  const email = `v${n}@d${n}.example`;
  const outcome = await a.pipeline.submit({
    body: { name, email, message: "Could we talk about our cloud move?" },
    source: "api",
    ip: `203.0.113.${n}`,
    userAgent: "vitest",
    page: "/contact",
  });
  const id = "id" in outcome ? String(outcome.id) : "";
  const book = new URL(bookingLink(a, id, now)).searchParams.get("t") ?? "";
  const ip = `198.51.100.${n}`;
  const picked = (await a.booking.act(
    book,
    { slot: String(at(startsAt)), zone, phone: PHONE },
    ip,
  )) as {
    result?: string;
  };
  expect(picked.result, name).toBe("asked");
  return { id, email, book, ip, startsAt: at(startsAt) };
}

/** A visitor's request (`picked`) and the company's Confirm: the call, confirmed. */
async function booked(name: string, startsAt: string, zone = site.timeZone) {
  const v = await picked(name, startsAt, zone);
  const request = await mailTo("inbox@example.com", new RegExp(`^${name} asks for`));
  const b = instances[1] as (typeof instances)[0];
  const done = await b.booking.act(tokenIn(request, "confirm"), { slot: String(v.startsAt) }, v.ip);
  expect(done).toMatchObject({ kind: "company", done: "confirmed" });
  return { ...v, invitation: await mailTo(v.email, /^Your free consultation/) };
}

const reminders = (email: string) => mailsTo(email, /^Reminder: /);
const remindAll = async () => {
  let n = 0;
  for (const i of instances) n += await i.housekeeping.remind();
  return n;
};

describe("the visitor's reminder and the move of a confirmed call", { timeout: 120_000 }, () => {
  it("one reminder each, the business day before, through the schedule of two instances; a move confirmed is one invitation update", async () => {
    // Thursday 11 March 2027, 10:00 AM MST.
    now = at("2027-03-11T10:00:00-07:00");
    await instance();
    await instance();
    // Tuesday after the holiday, in New York's time: Saturday's opening, before the clock change.
    const ann = await booked("Ann Tuesday", "2027-03-16T10:00:00-06:00", "America/New_York");
    // Saturday in Los Angeles' time: Friday's opening.
    const ben = await booked("Ben Saturday", "2027-03-13T11:00:00-07:00", "America/Los_Angeles");
    // Wednesday: Tuesday's opening, 9:00 AM MDT.
    const cal = await booked("Cal Wednesday", "2027-03-17T10:00:00-06:00");
    // Friday morning, confirmed on Thursday after opening (less than a day): none.
    const dee = await booked("Dee Friday", "2027-03-12T09:30:00-07:00");
    // Saturday, cancelled: none.
    const eve = await booked("Eve Cancels", "2027-03-13T12:00:00-07:00");
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const cancelled = await a.booking.act(
      tokenIn(eve.invitation, "cancel"),
      { slot: String(eve.startsAt) },
      eve.ip,
    );
    expect(cancelled).toMatchObject({ kind: "cancel", done: true });

    // Fay's Friday afternoon call moves to Wednesday: the company's request, the old time kept.
    const fay = await booked("Fay Moves", "2027-03-12T14:00:00-07:00");
    const wednesday = at("2027-03-17T11:00:00-06:00");
    const page = (await b.booking.open(fay.book, null, fay.ip)) as Extract<
      BookingView,
      { kind: "book" }
    >;
    const offered = page.days.flatMap((d) => d.slots.map((s) => s.at));
    expect(offered).toContain(wednesday);
    expect(offered).not.toContain(fay.startsAt);
    const moved = await b.booking.act(
      fay.book,
      { slot: String(wednesday), zone: site.timeZone, phone: PHONE },
      fay.ip,
    );
    expect(moved).toMatchObject({
      result: "asked",
      asked: { state: "confirmed", move: expect.stringContaining("Wed, Mar 17") },
    });
    const request = await mailTo("inbox@example.com", /^Fay Moves asks to move /);
    expect(request.mail.subject).toBe(
      "Fay Moves asks to move Fri, Mar 12, 2:00–2:30 PM MST to Wed, Mar 17, 11:00–11:30 AM MDT",
    );
    expect(await rows(fay.id)).toMatchObject({
      state: "confirmed",
      starts_at: fay.startsAt,
      move_starts_at: wednesday,
    });
    // Another visitor cannot take the new time while the move waits.
    const other = (await a.booking.open(ann.book, null, ann.ip)) as Extract<
      BookingView,
      { kind: "book" }
    >;
    expect(other.days.flatMap((d) => d.slots.map((s) => s.at))).not.toContain(wednesday);
    await settled();
    expect(mailsTo(fay.email, /./)).toHaveLength(1);
    // Confirmed: one update of the same event, one SEQUENCE on, to the visitor and the company.
    const confirm = await a.booking.act(
      tokenIn(request, "confirm"),
      { slot: String(wednesday) },
      fay.ip,
    );
    expect(confirm).toMatchObject({ kind: "company", done: "confirmed" });
    const update = await mailTo(fay.email, /^Moved: /);
    await settled();
    const first = calendarOf(fay.invitation);
    const organizer = "mailto:inbox@example.com";
    expect(first).toMatchObject({ method: "REQUEST", sequence: 0, start: fay.startsAt, organizer });
    expect(calendarOf(update)).toEqual({
      ...first,
      sequence: 1,
      start: wednesday,
      attendees: [`mailto:${fay.email}`],
    });
    expect(calendarOf(await mailTo("inbox@example.com", /^Moved: Fay Moves/))).toEqual(
      calendarOf(update),
    );
    expect(mailsTo(fay.email, /./).map((m) => calendarOf(m)?.method)).toEqual([
      "REQUEST",
      "REQUEST",
    ]);
    expect(await rows(fay.id)).toMatchObject({
      starts_at: wednesday,
      sequence: 1,
      move_starts_at: null,
    });

    // Gus's move declined: his call stays, he gets the company's line, no calendar changes.
    const gus = await booked("Gus Stays", "2027-03-12T15:00:00-07:00");
    const thursday = at("2027-03-18T15:00:00-06:00");
    expect(
      await a.booking.act(
        gus.book,
        { slot: String(thursday), zone: site.timeZone, phone: PHONE },
        gus.ip,
      ),
    ).toMatchObject({ result: "asked" });
    const gusRequest = await mailTo("inbox@example.com", /^Gus Stays asks to move /);
    expect(
      await b.booking.act(
        tokenIn(gusRequest, "decline"),
        { slot: String(thursday), note: "We are out that day." },
        gus.ip,
      ),
    ).toMatchObject({ kind: "company", done: "declined" });
    const declined = await mailTo(gus.email, /^About your consultation/);
    expect(declined.mail.text).toContain(
      "We cannot move your consultation to Thu, Mar 18, 3:00–3:30 PM MDT. It stays booked for Fri, Mar 12, 3:00–3:30 PM MST.\n\nWe are out that day.",
    );
    expect(calendarOf(declined)).toBeNull();
    expect(await rows(gus.id)).toMatchObject({
      state: "confirmed",
      starts_at: gus.startsAt,
      sequence: 0,
      move_starts_at: null,
    });

    // Nothing is due on Thursday, nor on Friday before opening.
    expect(await remindAll()).toBe(0);
    now = at("2027-03-12T08:59:00-07:00");
    expect(await remindAll()).toBe(0);
    // Friday 9:00 AM MST: Ben's, once, by whichever instance's turn came first.
    now = at("2027-03-12T09:00:00-07:00");
    const benReminder = await mailTo(ben.email, /^Reminder: /);
    await settled();
    expect(benReminder.mail.subject).toBe(
      "Reminder: your consultation with Teton Digital, Sat, Mar 13, 10:00–10:30 AM PST",
    );
    const text = benReminder.mail.text ?? "";
    expect(text).toContain("(our office's time: Sat, Mar 13, 11:00–11:30 AM MST)");
    expect(text).toContain(
      `Where: By phone: we call you at (303) 555-0142 at the time (our number: ${site.phone.display})`,
    );
    // The reschedule link opens the booking page with other times; the cancel link, the Cancel page.
    const again = (await b.booking.open(tokenIn(benReminder, "book"), null, ben.ip)) as Extract<
      BookingView,
      { kind: "book" }
    >;
    expect(again).toMatchObject({ kind: "book", asked: { state: "confirmed", move: null } });
    expect(again.days.length).toBeGreaterThan(0);
    expect(await a.booking.open(tokenIn(benReminder, "cancel"), null, ben.ip)).toMatchObject({
      kind: "cancel",
      state: "confirmed",
      at: ben.startsAt,
    });

    // Later that day, and on an instance started since: none again.
    now = at("2027-03-12T15:00:00-07:00");
    const c = await instance();
    expect(await remindAll()).toBe(0);
    // Ben moves his call to Tuesday, confirmed on the new instance: reminded again, of the new time.
    const tuesday = at("2027-03-16T11:00:00-06:00");
    expect(
      await c.booking.act(
        ben.book,
        { slot: String(tuesday), zone: "America/Los_Angeles", phone: PHONE },
        ben.ip,
      ),
    ).toMatchObject({ result: "asked" });
    const benMove = await mailTo("inbox@example.com", /^Ben Saturday asks to move /);
    expect(
      await c.booking.act(tokenIn(benMove, "confirm"), { slot: String(tuesday) }, ben.ip),
    ).toMatchObject({ done: "confirmed" });
    await mailTo(ben.email, /^Moved: /);
    expect(await remindAll()).toBe(0);
    // Saturday opens at 10:00 AM MST: Ann's (her Tuesday call, over Sunday and the holiday).
    now = at("2027-03-13T09:59:00-07:00");
    expect(await remindAll()).toBe(0);
    now = at("2027-03-13T10:00:00-07:00");
    const annReminder = await mailTo(ann.email, /^Reminder: /);
    await expect.poll(() => reminders(ben.email).length, { timeout: 10_000 }).toBe(2);
    expect(reminders(ben.email)[1]?.mail.subject).toBe(
      "Reminder: your consultation with Teton Digital, Tue, Mar 16, 10:00–10:30 AM PDT",
    );
    expect(annReminder.mail.subject).toBe(
      "Reminder: your consultation with Teton Digital, Tue, Mar 16, 12:00–12:30 PM EDT",
    );
    // Sunday (the clocks go forward), the holiday, Tuesday before opening: none.
    for (const when of [
      "2027-03-14T12:00:00-06:00",
      "2027-03-15T09:30:00-06:00",
      "2027-03-16T08:59:00-06:00",
    ]) {
      now = at(when);
      expect(await remindAll(), when).toBe(0);
    }
    // Tuesday 9:00 AM MDT: Cal's, and Fay's for her moved time.
    now = at("2027-03-16T09:00:00-06:00");
    await mailTo(cal.email, /^Reminder: /);
    const fayReminder = await mailTo(fay.email, /^Reminder: /);
    expect(fayReminder.mail.subject).toContain("Wed, Mar 17, 11:00–11:30 AM MDT");
    await settled();
    for (const v of [ann, cal, fay]) expect(reminders(v.email), v.email).toHaveLength(1);
    expect(reminders(ben.email)).toHaveLength(2);
    for (const v of [dee, eve]) expect(reminders(v.email), v.email).toHaveLength(0);
    expect(await rows(dee.id)).toMatchObject({ state: "confirmed", reminded_at: null });
  });

  it("a call cancelled and booked again is reminded of its new time; a move gives the number to call; a time begun is confirmed to nobody", async () => {
    if (instances.length < 2) {
      now = at("2027-04-05T10:00:00-06:00");
      await instance();
      await instance();
    }
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    // Monday 5 April 2027: Hal's Wednesday call, reminded on Tuesday's opening.
    now = at("2027-04-05T10:00:00-06:00");
    const hal = await booked("Hal Rebooks", "2027-04-07T10:00:00-06:00");
    now = at("2027-04-06T09:00:00-06:00");
    await expect.poll(() => reminders(hal.email).length, { timeout: 10_000 }).toBe(1);
    // He cancels it, picks Thursday, the company confirms: the new call is reminded on Wednesday.
    now = at("2027-04-06T10:00:00-06:00");
    expect(
      await a.booking.act(
        tokenIn(hal.invitation, "cancel"),
        { slot: String(hal.startsAt) },
        hal.ip,
      ),
    ).toMatchObject({ kind: "cancel", done: true });
    const thursday = at("2027-04-08T10:00:00-06:00");
    expect(
      await a.booking.act(
        hal.book,
        { slot: String(thursday), zone: site.timeZone, phone: PHONE },
        hal.ip,
      ),
    ).toMatchObject({ result: "asked" });
    const again = await mailTo("inbox@example.com", /^Hal Rebooks asks for Thu, Apr 8/);
    expect(
      await b.booking.act(tokenIn(again, "confirm"), { slot: String(thursday) }, hal.ip),
    ).toMatchObject({ kind: "company", done: "confirmed" });
    now = at("2027-04-07T09:00:00-06:00");
    await expect.poll(() => reminders(hal.email).length, { timeout: 10_000 }).toBe(2);
    expect(reminders(hal.email)[1]?.mail.subject).toContain("Thu, Apr 8, 10:00–10:30 AM MDT");

    // He moves it to Friday with another number: the company calls the new one.
    const friday = at("2027-04-09T10:00:00-06:00");
    expect(
      await a.booking.act(
        hal.book,
        { slot: String(friday), zone: site.timeZone, phone: "(720) 555-0199" },
        hal.ip,
      ),
    ).toMatchObject({ result: "asked" });
    const move = await mailTo("inbox@example.com", /^Hal Rebooks asks to move /);
    expect(move.mail.text).toContain("Phone: (720) 555-0199");
    // Waiting, the move is where the company works: the overview's list and the digest's requests.
    const listed = await bookingsToList(a.db, 0, 1, now);
    expect(listed.asked.map((x) => x.inquiryId)).toContain(hal.id);
    const digest = await digestWords(
      a.db,
      a,
      JSON.stringify({ since: now - 86_400_000, until: now }),
      now,
      facts,
    );
    expect(digest.text).toContain(
      `Hal Rebooks <${hal.email}> asks to move Thu, Apr 8, 10:00–10:30 AM MDT to Fri, Apr 9, 10:00–10:30 AM MDT`,
    );
    expect(
      await b.booking.act(tokenIn(move, "confirm"), { slot: String(friday) }, hal.ip),
    ).toMatchObject({ kind: "company", done: "confirmed" });
    const moved = await mailTo("inbox@example.com", /^Moved: Hal Rebooks/);
    expect(moved.mail.text).toContain("Where: By phone: call Hal Rebooks at (720) 555-0199");

    // Ivy's request for Friday 2:00 PM, pressed at 2:05 PM: nothing is sent, nothing changes.
    now = at("2027-04-07T10:00:00-06:00");
    const ivy = await picked("Ivy Waits", "2027-04-09T14:00:00-06:00");
    now = at("2027-04-09T14:05:00-06:00");
    const late = await mailTo("inbox@example.com", /^Ivy Waits asks for/);
    expect(
      await b.booking.act(tokenIn(late, "confirm"), { slot: String(ivy.startsAt) }, ivy.ip),
    ).toMatchObject({ kind: "company", done: "passed" });
    await settled();
    expect(await rows(ivy.id)).toMatchObject({ state: "asked" });
    expect(mailsTo(ivy.email, /./)).toEqual([]);
  });
});
