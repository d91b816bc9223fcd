import ICAL from "ical.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusOf, tokenOf } from "../support/booking-page.ts";
import { engineEnv } from "../support/engines.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * Every button of the booking pressed at the same moment on two production-server instances on one
 * PostgreSQL (issue 52), many rounds each: after each round the database, the lead's taken mark,
 * the emails the real SMTP server received (invitations by their UID) and the pages all tell one
 * story. Each client is its own address on its own network (X-Forwarded-For from the loopback proxy),
 * and each visitor's email its own domain, so the holds' caps (site.booking) never decide here.
 */

const ROUNDS = 8;
const TUNING = { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0 };

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let smtp: TestSmtp;
let a: RunningServer;
let b: RunningServer;
let db: pg.Client;
let slots: number[];

let clients = 0;
/** A client of its own: a fresh address on a /24 network of its own. */
const client = () => ({
  "x-forwarded-for": `10.${Math.floor(++clients / 250)}.${clients % 250}.7`,
});

async function instance(dir: string) {
  const port = await freePort();
  return startServer(
    {
      ...env,
      DATA_DIR: `${env.DATA_DIR}/${dir}`,
      SITE_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      SPAM_FILTER: "off",
    },
    port,
    TUNING,
  );
}

beforeAll(async () => {
  ({ env, cleanup } = await engineEnv("postgres", "booking_races"));
  smtp = await new TestSmtp().start();
  a = await instance("a");
  b = await instance("b");
  db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const first = await visitor("Slot Reader");
  slots = [
    ...(await (await fetch(first.link)).text()).matchAll(/<button type="submit" value="(\d{13})"/g),
  ].map((m) => Number(m[1]));
}, 120_000);
afterAll(async () => {
  await db?.end();
  await Promise.all([a?.stop(), b?.stop()]);
  await smtp?.stop();
  await cleanup?.();
});

let visitors = 0;
/** A message sent on instance a, from its own client, with an email on a domain of its own. */
async function visitor(name: string) {
  const n = ++visitors;
  const email = `v${n}@d${n}.example`;
  const res = await sendAsPage(
    a.url,
    { name, email, message: "Could we talk about our cloud move?" },
    { headers: client() },
  );
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; booking: string };
  return { id: body.id, email, link: `${a.url}${body.booking}` };
}

// The first times offered at the start may fall within the notice while the test runs: two hours on.
let next = 4;
/** A time no round used before. */
const fresh = () => {
  const at = slots[next++];
  if (at === undefined) throw new Error("out of open times");
  return at;
};

const post = async (server: RunningServer, form: Record<string, string>) => {
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    headers: client(),
    body: new URLSearchParams(form),
  });
  expect(res.status).toBe(200);
  return statusOf(await res.text());
};
const pick = (server: RunningServer, link: string, at: number) =>
  post(server, { t: tokenOf(link), slot: String(at), tz: "America/Denver", phone: "3035550142" });
/** A button's page opened: what its POST sends (the time the page shows). */
async function opened(server: RunningServer, link: string, form: Record<string, string> = {}) {
  const url = new URL(link);
  const page = await fetch(`${server.url}${url.pathname}${url.search}`, { headers: client() });
  expect(page.status).toBe(200);
  const slot = /name="slot" value="(\d+)"/.exec(await page.text())?.[1] ?? "";
  return { t: tokenOf(link), slot, ...form };
}

const mailsTo = (to: string, subject: RegExp) =>
  smtp.received.filter(
    (m) => JSON.stringify(m.mail.to ?? "").includes(to) && subject.test(m.mail.subject ?? ""),
  );
async function mailTo(to: string, subject: RegExp): Promise<Received> {
  await expect.poll(() => mailsTo(to, subject).length, { timeout: 20_000 }).toBeGreaterThan(0);
  return mailsTo(to, subject).at(-1) as Received;
}
const linkIn = (m: Received, action: string) =>
  new RegExp(`(http://127\\.0\\.0\\.1:\\d+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1] ?? "";
function calendarOf(m: Received) {
  const part = m.mail.attachments.find((x) => x.contentType === "text/calendar");
  if (!part) return null;
  const cal = new ICAL.Component(ICAL.parse(part.content.toString("utf8")));
  const event = new ICAL.Event(cal.getFirstSubcomponent("vevent") ?? undefined);
  return {
    method: String(cal.getFirstPropertyValue("method")),
    uid: event.uid,
    start: event.startDate.toJSDate().getTime(),
  };
}

/** Nothing left to send now for the inquiry (a request spaced five minutes on is not due): all it sent was received. */
async function settled(id: string) {
  await expect
    .poll(
      async () =>
        (
          await db.query(
            "SELECT COUNT(*)::int AS n FROM deliveries WHERE inquiry_id = $1 AND (status = 'sending' OR (status = 'pending' AND next_attempt_at <= $2))",
            [id, Date.now()],
          )
        ).rows[0].n,
      { timeout: 20_000 },
    )
    .toBe(0);
}

async function stored(id: string) {
  const { rows } = await db.query(
    "SELECT b.state, b.starts_at, i.taken_at FROM bookings b JOIN inquiries i ON i.id = b.inquiry_id WHERE b.inquiry_id = $1",
    [id],
  );
  return {
    state: String(rows[0]?.state),
    startsAt: Number(rows[0]?.starts_at),
    taken: rows[0]?.taken_at != null,
  };
}

/** What the visitor's own page says of their request now. */
const visitorSays = async (link: string) =>
  statusOf(await (await fetch(link, { headers: client() })).text());

/** A visitor who asked for a fresh time, and the company's request email about it. */
async function asked(name: string) {
  const v = await visitor(name);
  const at = fresh();
  expect(await pick(a, v.link, at)).toMatch(/^Thank you!/);
  const request = await mailTo("hello@example.com", new RegExp(`^${name} asks for`));
  return { ...v, at, request };
}

const CONFIRMED = /^Confirmed/;
const UNCHANGED = /^Nothing changed/;

describe("two instances on one PostgreSQL, every button pressed at once", {
  timeout: 300_000,
}, () => {
  it("Confirm and Decline: one wins, and the calendar, the lead, the emails and the pages agree", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await asked(`Decline Race ${round}`);
      const forms = await Promise.all([
        opened(a, linkIn(v.request, "confirm")),
        opened(b, linkIn(v.request, "decline"), { note: "Not that morning." }),
      ]);
      const [confirm, decline] = await Promise.all([post(a, forms[0]), post(b, forms[1])]);
      const confirmed = CONFIRMED.test(confirm);
      expect([confirm, decline]).toEqual(
        confirmed
          ? [expect.stringMatching(CONFIRMED), expect.stringMatching(UNCHANGED)]
          : [expect.stringMatching(UNCHANGED), expect.stringMatching(/^Declined/)],
      );
      await settled(v.id);
      expect(await stored(v.id)).toEqual({
        state: confirmed ? "confirmed" : "declined",
        startsAt: v.at,
        taken: confirmed,
      });
      expect(mailsTo(v.email, /^Your free consultation/)).toHaveLength(confirmed ? 1 : 0);
      expect(mailsTo(v.email, /^About your consultation/)).toHaveLength(confirmed ? 0 : 1);
      expect(
        mailsTo("hello@example.com", new RegExp(`^Booked: Decline Race ${round},`)),
      ).toHaveLength(confirmed ? 1 : 0);
      expect(await visitorSays(v.link)).toMatch(confirmed ? /^Your consultation is booked/ : /^$/);
    }
  });

  it("Confirm on both instances: one invitation, one UID", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await asked(`Double Confirm ${round}`);
      const link = linkIn(v.request, "confirm");
      const forms = await Promise.all([opened(a, link), opened(b, link)]);
      const said = await Promise.all([post(a, forms[0]), post(b, forms[1])]);
      expect(said.filter((s) => CONFIRMED.test(s))).toHaveLength(1);
      expect(said.filter((s) => UNCHANGED.test(s))).toHaveLength(1);
      await settled(v.id);
      expect(await stored(v.id)).toEqual({ state: "confirmed", startsAt: v.at, taken: true });
      const invitations = mailsTo(v.email, /^Your free consultation/).map(calendarOf);
      expect(invitations).toEqual([{ method: "REQUEST", uid: expect.any(String), start: v.at }]);
      const copies = mailsTo(
        "hello@example.com",
        new RegExp(`^Booked: Double Confirm ${round},`),
      ).map(calendarOf);
      expect(copies.map((c) => c?.uid)).toEqual([invitations[0]?.uid]);
    }
  });

  it("Confirm and the visitor's Cancel: a cancelled booking, and a calendar that knows of every invitation that went", async () => {
    // A Cancel link from a booking confirmed before: it cancels whatever the visitor asked for since.
    const v = await asked("Cancel Race");
    expect(await post(a, await opened(a, linkIn(v.request, "confirm")))).toMatch(CONFIRMED);
    const cancel = linkIn(await mailTo(v.email, /^Your free consultation/), "cancel");
    expect(await post(b, await opened(b, cancel))).toMatch(/is free again/);
    await settled(v.id);
    for (let round = 1; round <= ROUNDS; round++) {
      const before = {
        invitations: mailsTo(v.email, /^Your free/).length,
        cancels: mailsTo(v.email, /^Cancelled/).length,
      };
      const at = fresh();
      expect(await pick(a, v.link, at)).toMatch(/^Thank you!/);
      const forms = await Promise.all([opened(a, linkIn(v.request, "confirm")), opened(b, cancel)]);
      expect(forms.map((f) => Number(f.slot))).toEqual([at, at]);
      const [confirm, cancelled] = await Promise.all([post(a, forms[0]), post(b, forms[1])]);
      expect(cancelled).toMatch(/is free again/);
      const confirmed = CONFIRMED.test(confirm);
      if (!confirmed) expect(confirm).toMatch(UNCHANGED);
      await settled(v.id);
      expect(await stored(v.id)).toMatchObject({ state: "cancelled", startsAt: at });
      const invitations = mailsTo(v.email, /^Your free/)
        .slice(before.invitations)
        .map(calendarOf);
      const cancels = mailsTo(v.email, /^Cancelled/)
        .slice(before.cancels)
        .map(calendarOf);
      expect(cancels).toHaveLength(1);
      // Confirmed first: the cancellation withdraws that event, and the invitation, unless the
      // cancellation replaced it before it went, named the same one. Else no calendar heard of it.
      expect(cancels[0]).toEqual(
        confirmed ? { method: "CANCEL", uid: expect.any(String), start: at } : null,
      );
      expect(invitations).toEqual(
        confirmed
          ? invitations.map(() => ({ method: "REQUEST", uid: cancels[0]?.uid, start: at }))
          : [],
      );
      expect(invitations.length).toBeLessThanOrEqual(1);
      expect(await visitorSays(v.link)).toBe("");
    }
  });

  it("Confirm and a new pick: the time confirmed is the one the invitation names, or the newer request stands", async () => {
    const v = await asked("Pick Race");
    const confirmLink = linkIn(v.request, "confirm");
    let cancel = "";
    let at = v.at;
    for (let round = 1; round <= ROUNDS; round++) {
      const invitations = mailsTo(v.email, /^Your free/).length;
      const form = await opened(a, confirmLink);
      expect(Number(form.slot)).toBe(at);
      const newer = fresh();
      const [confirm, picked] = await Promise.all([post(a, form), pick(b, v.link, newer)]);
      const confirmed = CONFIRMED.test(confirm);
      // Confirmed first: the pick changes nothing and the page says the booking; else the newer request stands.
      expect([confirm, picked]).toEqual(
        confirmed
          ? [
              expect.stringMatching(CONFIRMED),
              expect.stringMatching(/^Your consultation is booked/),
            ]
          : [expect.stringMatching(UNCHANGED), expect.stringMatching(/^Thank you!/)],
      );
      await settled(v.id);
      expect(await stored(v.id)).toMatchObject({
        state: confirmed ? "confirmed" : "asked",
        startsAt: confirmed ? at : newer,
      });
      const sent = mailsTo(v.email, /^Your free/)
        .slice(invitations)
        .map(calendarOf);
      expect(sent).toEqual(
        confirmed ? [{ method: "REQUEST", uid: expect.any(String), start: at }] : [],
      );
      expect(await visitorSays(v.link)).toMatch(
        confirmed ? /^Your consultation is booked/ : /^You asked for/,
      );
      if (confirmed) {
        // Cancelled, and asked again: the next round starts from a request.
        cancel ||= linkIn(mailsTo(v.email, /^Your free/).at(-1) as Received, "cancel");
        expect(await post(b, await opened(b, cancel))).toMatch(/is free again/);
        at = fresh();
        expect(await pick(a, v.link, at)).toMatch(/^Thank you!/);
      } else at = newer;
    }
  });

  it("Confirm and the lead's take are one: a take that cannot be made confirms nothing", async () => {
    const v = await asked("Take Fails");
    const form = await opened(a, linkIn(v.request, "confirm"));
    // Another transaction keeps the lead's row past the server's lock wait (5 s): no take can be made.
    const other = new pg.Client({ connectionString: env.DATABASE_URL });
    await other.connect();
    await other.query("BEGIN");
    await other.query("SELECT 1 FROM inquiries WHERE id = $1 FOR NO KEY UPDATE", [v.id]);
    const res = await fetch(`${a.url}/book`, {
      method: "POST",
      headers: client(),
      body: new URLSearchParams(form),
    });
    await other.query("ROLLBACK");
    await other.end();
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("Nothing was changed.");
    expect(await stored(v.id)).toEqual({ state: "asked", startsAt: v.at, taken: false });
    await settled(v.id);
    expect(mailsTo(v.email, /^Your free/)).toEqual([]);
    // Pressed again: confirmed and taken together.
    expect(await post(a, form)).toMatch(CONFIRMED);
    expect(await stored(v.id)).toEqual({ state: "confirmed", startsAt: v.at, taken: true });
  });

  it("A move's Confirm and the visitor's Cancel: cancelled at the old time, or moved and the Cancel changes nothing; the calendar hears one story", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await asked(`Move Race ${round}`);
      expect(await post(a, await opened(a, linkIn(v.request, "confirm")))).toMatch(CONFIRMED);
      const invitation = await mailTo(v.email, /^Your free consultation/);
      const newer = fresh();
      expect(await pick(b, v.link, newer)).toMatch(
        /^Your consultation is booked .* You asked to move it/,
      );
      const request = await mailTo(
        "hello@example.com",
        new RegExp(`^Move Race ${round} asks to move`),
      );
      const forms = await Promise.all([
        opened(a, linkIn(request, "confirm")),
        opened(b, linkIn(invitation, "cancel")),
      ]);
      expect(forms.map((f) => Number(f.slot))).toEqual([newer, v.at]);
      const [confirm, cancel] = await Promise.all([post(a, forms[0]), post(b, forms[1])]);
      const moved = CONFIRMED.test(confirm);
      // Moved first: the Cancel page showed the old time, and changes nothing; else the move finds
      // no confirmed call.
      expect([confirm, cancel]).toEqual(
        moved
          ? [expect.stringMatching(CONFIRMED), expect.stringMatching(/^$/)]
          : [expect.stringMatching(UNCHANGED), expect.stringMatching(/is free again/)],
      );
      await settled(v.id);
      expect(await stored(v.id)).toMatchObject(
        moved ? { state: "confirmed", startsAt: newer } : { state: "cancelled", startsAt: v.at },
      );
      const calendars = mailsTo(v.email, /./).map(calendarOf).filter(Boolean);
      const uid = calendarOf(invitation)?.uid;
      expect(calendars).toEqual(
        moved
          ? [
              { method: "REQUEST", uid, start: v.at },
              { method: "REQUEST", uid, start: newer },
            ]
          : [
              { method: "REQUEST", uid, start: v.at },
              { method: "CANCEL", uid, start: v.at },
            ],
      );
    }
  });

  it("A move's Confirm on both instances: one update, one SEQUENCE on", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await asked(`Move Twice ${round}`);
      expect(await post(a, await opened(a, linkIn(v.request, "confirm")))).toMatch(CONFIRMED);
      const newer = fresh();
      expect(await pick(a, v.link, newer)).toMatch(/You asked to move it/);
      const link = linkIn(
        await mailTo("hello@example.com", new RegExp(`^Move Twice ${round} asks to move`)),
        "confirm",
      );
      const forms = await Promise.all([opened(a, link), opened(b, link)]);
      const said = await Promise.all([post(a, forms[0]), post(b, forms[1])]);
      expect(said.filter((s) => CONFIRMED.test(s))).toHaveLength(1);
      expect(said.filter((s) => UNCHANGED.test(s))).toHaveLength(1);
      await settled(v.id);
      expect(await stored(v.id)).toMatchObject({ state: "confirmed", startsAt: newer });
      const { rows } = await db.query("SELECT sequence FROM bookings WHERE inquiry_id = $1", [
        v.id,
      ]);
      expect(rows[0]?.sequence).toBe(1);
      expect(mailsTo(v.email, /^Moved: /).map(calendarOf)).toEqual([
        {
          method: "REQUEST",
          uid: calendarOf(mailsTo(v.email, /^Your free/)[0] as Received)?.uid,
          start: newer,
        },
      ]);
    }
  });

  it("never hold one time for two visitors", async () => {
    const one = await visitor("Ann Race");
    const two = await visitor("Ben Race");
    for (let round = 0; round < 6; round++) {
      const at = fresh();
      const said = await Promise.all([pick(a, one.link, at), pick(b, two.link, at)]);
      expect(said.filter((s) => s.startsWith("Thank you!"))).toHaveLength(1);
      expect(said.filter((s) => s.includes("no longer open"))).toHaveLength(1);
    }
    const { rows } = await db.query(
      "SELECT starts_at FROM bookings WHERE inquiry_id IN ($1, $2) AND state = 'asked' AND hold_until > $3",
      [one.id, two.id, Date.now()],
    );
    // One request each (a pick replaces the one before), never the same time.
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => String(r.starts_at))).size).toBe(rows.length);
  });
});
