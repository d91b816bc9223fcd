import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { loadConfig, TUNING } from "../../server/config.ts";
import { routingOf } from "../../server/contact/delivery/routing.ts";
import { erase } from "../../server/contact/erasure.ts";
import { createMetrics } from "../../server/contact/metrics.ts";
import { performAction } from "../../server/contact/review/page.ts";
import { type Promised, wallClock } from "../../server/contact/review/promise.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import type { Database } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { Receiver } from "../support/receiver.ts";
import { TestSmtp } from "../support/smtp.ts";

/**
 * The reply promise as it runs (ADR 0020): the outbox's worker (started as the server starts it)
 * with a controlled clock, across a weekend and a public holiday, a real SMTP
 * server receiving the reminder, and two instances on one PostgreSQL database that never both send one.
 *
 * The scenario needs the company's hours as they are (weekdays 9–18, Saturday 10–14, Sunday closed,
 * America/Denver: app/config/site.ts) and a Monday holiday: a lead on the Saturday before it at 13:00
 * has 1 business hour that day, none on Sunday and the holiday, and its 4 hours are up on Tuesday at
 * 12:00. The holiday is the test's own (the company's calendar with `holidays` its one day, given to
 * the pipeline and its metrics as their facts), so the scenario works in any year, whatever
 * site.holidays lists.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The instant of a wall-clock time in the office's zone (Denver: UTC-7 in winter, UTC-6 in summer). */
function office(date: string, time: string): number {
  for (const offset of ["-07:00", "-06:00"]) {
    const at = Date.parse(`${date}T${time}:00${offset}`);
    const hour = new Intl.DateTimeFormat("en-US", {
      timeZone: site.timeZone,
      hour: "2-digit",
      hourCycle: "h23",
    });
    if (hour.format(at) === time.slice(0, 2)) return at;
  }
  throw new Error(`no such time in ${site.timeZone}: ${date} ${time}`);
}
const dayAfter = (date: string, days: number) =>
  new Date(Date.parse(date) + days * DAY).toISOString().slice(0, 10);

/**
 * The scenario's holiday: the first Monday 17 days or more ahead; its weekend is the one before it.
 */
const holiday = (() => {
  const day = new Date(Date.now() + 17 * DAY);
  day.setUTCDate(day.getUTCDate() + ((8 - day.getUTCDay()) % 7));
  return day.toISOString().slice(0, 10);
})();
/** The company's hours and promise, with the scenario's holiday as its only one. */
const facts: Promised = { ...site, holidays: [{ date: holiday, name: "The scenario's holiday" }] };

/**
 * The at-risk scenario's weekend: the first one 17 days or more ahead whose Sunday the office's clock
 * changes (daylight saving time, on or off), with its Monday the company's holiday.
 */
const dstSunday = (() => {
  const offset = (at: number) => wallClock(at, site.timeZone).offsetMs;
  const day = new Date(Date.now() + 17 * DAY);
  day.setUTCDate(day.getUTCDate() + ((7 - day.getUTCDay()) % 7));
  while (offset(day.getTime() - DAY) === offset(day.getTime() + DAY))
    day.setUTCDate(day.getUTCDate() + 7);
  return day.toISOString().slice(0, 10);
})();
const dstFacts: Promised = {
  ...site,
  holidays: [{ date: dayAfter(dstSunday, 1), name: "The at-risk scenario's holiday" }],
};

const lead = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  email: `${name.toLowerCase().replace(/\W+/g, ".")}@example.org`,
  company: "",
  service: "AI Consulting",
  message: "We would like to talk about a model audit next month.",
  ...extra,
});

type Instance = Awaited<ReturnType<typeof createContactPipeline>> & {
  config: ReturnType<typeof loadConfig>;
  metrics: ReturnType<typeof createMetrics>;
};

const logs: Array<Record<string, unknown>> = [];
const log = pino({ level: "info" }, { write: (line: string) => logs.push(JSON.parse(line)) });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  logs.length = 0;
});

/** The time every instance's scheduled work reads; set by the test. */
let now = 0;

const WEBHOOK_SECRET = `whsec_${Buffer.from("reply-promise-test-secret-32-bytes!").toString("base64")}`;

async function instance(
  db: Database,
  smtp: TestSmtp,
  dataDir: string,
  hook?: Receiver,
  { slack, calendar = facts }: { slack?: Receiver; calendar?: Promised } = {},
): Promise<Instance> {
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      ...(hook ? { WEBHOOK_URL: hook.url, WEBHOOK_SECRET } : {}),
      ...(slack ? { SLACK_WEBHOOK_URL: slack.url } : {}),
      CONTACT_TO: "inbox@example.com",
      CONTACT_ROUTES: JSON.stringify({ "AI Consulting": { to: "ai-partner@example.com" } }),
      LEAD_ESCALATION_TO: "owner@example.com",
      RATE_LIMIT_PER_MINUTE: "1000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
      SPAM_FILTER: "off",
    },
    { OUTBOX_POLL_MS: 25, OUTBOX_RETRY_BASE_MS: 60_000, OUTBOX_RETRY_MAX_MS: 60_000 },
  );
  const clock = () => now;
  const metrics = createMetrics({ facts: calendar });
  const made = await createContactPipeline(config, log, {
    keys: testKeys(),
    db,
    metrics,
    clock,
    facts: calendar,
  });
  made.pipeline.worker.start();
  made.housekeeping.start();
  cleanups.push(() => made.close());
  return { ...made, config, metrics };
}

/** What each instance's outbox has due at the clock's time now is sent (or put off): anything not sent was not due. */
async function wholeTurn(...instances: Instance[]) {
  for (const i of instances) {
    await i.pipeline.worker.pass();
    await i.pipeline.worker.settled();
  }
}

/** Received at the scenario's time. */
async function submit(
  p: Instance,
  body: Record<string, unknown>,
  receivedAt: number,
): Promise<string> {
  now = receivedAt;
  const outcome = await p.pipeline.submit({
    body,
    source: "api",
    ip: "203.0.113.9",
    userAgent: "vitest",
    page: "/contact",
  });
  const id = "id" in outcome ? String(outcome.id) : "";
  expect(id).not.toBe("");
  return id;
}

/** The leads and reminders received: not the morning digest, which goes at opening on the scenario's days too. */
const leadMails = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-alert") !== "digest");
const reminders = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-reminder") === "reply-promise");
const reminderFor = (smtp: TestSmtp, id: string) =>
  reminders(smtp).filter((m) => m.mail.headers.get("x-inquiry-id") === id);

const atRiskMails = (smtp: TestSmtp, id?: string) =>
  smtp.received.filter(
    (m) =>
      m.mail.headers.get("x-alert") === "at-risk" &&
      (id === undefined || String(m.mail.headers.get("x-inquiry-ids")) === id),
  );
const atRiskSlack = (slack: Receiver) =>
  slack.received
    .map((r) => (JSON.parse(r.body) as { text?: string }).text ?? "")
    .filter((t) => t.startsWith("At risk"));

/** What the CRM's receiver got of one type, by inquiry id. */
const events = (hook: Receiver, type: string) =>
  hook.received
    .map(
      (r) =>
        JSON.parse(r.body) as {
          type: string;
          data: { id: string; reply: Record<string, unknown> };
        },
    )
    .filter((e) => e.type === type);
async function startHook() {
  const hook = await new Receiver().start("/crm");
  cleanups.push(() => hook.stop());
  return hook;
}

async function startSmtp() {
  const smtp = await new TestSmtp().start();
  cleanups.push(() => smtp.stop());
  return smtp;
}
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "reply-promise-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("the reply promise, through the schedule", { timeout: 60_000 }, () => {
  it("reminds once, after 4 business hours across a weekend and a holiday, the route's people and the escalation address; never a held one or a taken one", async () => {
    const smtp = await startSmtp();
    const hook = await startHook();
    const dir = tempDir();
    const saturday = dayAfter(holiday, -2);
    const tuesday = dayAfter(holiday, 1);
    now = office(saturday, "12:00");
    let a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir, hook);

    const received = office(saturday, "13:00");
    const plain = await submit(a, lead("Waiting Lead"), received);
    const suspect = await submit(a, lead("Possible Spam"), received);
    await a.db.query("UPDATE inquiries SET suspect = ? WHERE id = ?", [true, suspect]);
    const held = await submit(a, lead("Held One", { website: "filled" }), received);
    const taken = await submit(a, lead("Taken One"), received);
    expect((await inquiries.get(a.db, held))?.held).toBe(true);
    // The leads themselves went (four minus the held one).
    await expect.poll(() => leadMails(smtp).length, { timeout: 10_000 }).toBe(3);

    // Sunday noon (closed), the holiday afternoon, Tuesday 11:58: 1 h, 1 h, 3 h 58 min of business time.
    for (const [date, time] of [
      [dayAfter(saturday, 1), "12:00"],
      [holiday, "15:00"],
      [tuesday, "11:58"],
    ] as const) {
      now = office(date, time);
      await wholeTurn(a);
      expect(reminders(smtp)).toEqual([]);
    }
    // Someone takes one on Tuesday morning, through the action the page and the CLI use.
    const took = await performAction(
      a.db,
      a.config,
      routingOf(a.config),
      "take",
      taken,
      office(tuesday, "10:30"),
      {
        by: "Dana",
      },
    );
    expect(took).toMatchObject({ kind: "taken", taken: { first: true } });
    // A held message taken (after Spam, say) is no lead: the CRM, which never had it, is told nothing.
    await performAction(
      a.db,
      a.config,
      routingOf(a.config),
      "take",
      held,
      office(tuesday, "10:31"),
      { by: "Dana" },
    );
    expect(await a.db.query("SELECT kind FROM deliveries WHERE inquiry_id = ?", [held])).toEqual(
      [],
    );
    // Likewise a reminder that was going out as someone pressed Spam: its report is not queued.
    const report = {
      id: "report-of-held",
      channel: "webhook",
      messageId: "<r@x>",
      target: "",
      kind: "inquiry.reminded" as const,
    };
    await inquiries.recordReminded(a.db, held, office(tuesday, "10:32"), [report]);
    expect(await a.db.query("SELECT kind FROM deliveries WHERE inquiry_id = ?", [held])).toEqual(
      [],
    );

    // Tuesday 12:01: 4 h 1 min. The waiting lead and the possible spam go again, once each.
    now = office(tuesday, "12:01");
    await expect.poll(() => reminders(smtp).length, { timeout: 10_000 }).toBe(2);
    const [reminder] = reminderFor(smtp, plain);
    expect(reminder?.mail.subject).toBe(
      "Nobody has taken this lead for 4 h 1 min: New inquiry: AI Consulting — Waiting Lead",
    );
    const to = [reminder?.mail.to].flat().flatMap((t) => t?.value.map((v) => v.address));
    expect(to.sort()).toEqual(["ai-partner@example.com", "owner@example.com"]);
    expect(reminder?.mail.text).toContain("this lead has waited 4 h 1 min of business time");
    expect(reminder?.mail.text).toMatch(
      /I'm on it \(records that you are answering it[^\n]*\):\nhttp:\/\/127\.0\.0\.1\/lead\?t=/,
    );
    // Its links act on the lead, so a reply stays with its recipients (ADR 0019); the visitor is one click away.
    expect((reminder?.mail.replyTo?.value ?? []).map((v) => v.address).sort()).toEqual(to);
    expect(reminder?.mail.headerLines.map((h) => h.line).join("\n")).not.toContain(
      "waiting.lead@example.org",
    );
    expect(reminder?.mail.text).toContain(
      "Reply to Waiting Lead (a new message to them, without this email's links):\nmailto:waiting.lead@example.org?subject=Re%3A%20",
    );
    expect(reminderFor(smtp, suspect)[0]?.mail.subject).toContain("[Possible spam] New inquiry");
    expect(reminderFor(smtp, held)).toEqual([]);
    expect(reminderFor(smtp, taken)).toEqual([]);

    // More turns, a restart, a clock that jumps a day ahead and back: never again.
    await wholeTurn(a);
    await a.close();
    cleanups.pop();
    a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir, hook);
    now = office(dayAfter(tuesday, 1), "12:00");
    await wholeTurn(a);
    now = office(tuesday, "12:02");
    await wholeTurn(a);
    expect(reminders(smtp)).toHaveLength(2);

    // What the company's people and its tools read.
    expect(await inquiries.get(a.db, plain)).toMatchObject({
      remindedAt: office(tuesday, "12:01"),
      takenAt: null,
    });
    expect(await inquiries.get(a.db, taken)).toMatchObject({
      takenBy: "Dana",
      takenAt: office(tuesday, "10:30"),
    });
    const sent = logs.filter(
      (l) => l.msg === "reply promise: reminder sent for a lead nobody took",
    );
    expect(sent.map((l) => l.inquiryId).sort()).toEqual([plain, suspect].sort());
    // The CRM was told, once each: who took which lead after how much business time, and which were reminded.
    const tookEvents = events(hook, "inquiry.taken");
    expect(tookEvents.map((e) => e.data.id)).toEqual([taken]);
    // Saturday 13:00–14:00 and Tuesday 9:00–10:30: 2 h 30 min, within the promise.
    expect(tookEvents[0]?.data.reply).toMatchObject({
      promiseBusinessHours: 4,
      dueAt: new Date(office(tuesday, "12:00")).toISOString(),
      takenBy: "Dana",
      businessSecondsToTake: 9000,
      missed: false,
    });
    const remindedEvents = events(hook, "inquiry.reminded");
    expect(remindedEvents.map((e) => e.data.id).sort()).toEqual([plain, suspect].sort());
    expect(remindedEvents[0]?.data.reply).toMatchObject({ takenAt: null, missed: true });
  });

  it("loses no reminder: a relay that refuses it, and an instance that claimed it and died, are followed by one that sends it", async () => {
    const smtp = await startSmtp();
    const dir = tempDir();
    const tuesday = dayAfter(holiday, 1);
    now = office(tuesday, "09:00");
    const a = await instance(openSqlite(join(dir, "inquiries.sqlite")), smtp, dir);
    const refused = await submit(a, lead("Refused Once"), office(tuesday, "09:00"));
    const orphan = await submit(a, lead("Claimed Then Died"), office(tuesday, "09:00"));
    await expect.poll(() => leadMails(smtp).length, { timeout: 10_000 }).toBe(2);
    // Another instance claimed this one's reminder at 13:00 and died before sending it.
    await a.db.query(
      "UPDATE deliveries SET status = 'sending', claimed_by = 'worker-dead', claimed_until = ? WHERE inquiry_id = ? AND kind = 'reminder'",
      [office(tuesday, "13:00") + TUNING.OUTBOX_LEASE_MS, orphan],
    );
    smtp.rejectNext = 1; // the relay answers 451 to the next message: the first reminder
    now = office(tuesday, "13:00");
    await wholeTurn(a);
    await wholeTurn(a);
    expect(reminders(smtp)).toEqual([]);
    expect(smtp.rejected).toHaveLength(1);
    expect(
      logs.some((l) => l.msg === "reply promise: could not send a reminder; tried again later"),
    ).toBe(true);
    // Once the dead worker's lease has ended and the retry is due, each goes, once.
    now = office(tuesday, "13:00") + TUNING.OUTBOX_LEASE_MS + 60_000;
    await expect.poll(() => reminders(smtp).length, { timeout: 10_000 }).toBe(2);
    expect(reminderFor(smtp, refused)).toHaveLength(1);
    expect(reminderFor(smtp, orphan)).toHaveLength(1);
    await wholeTurn(a);
    expect(reminders(smtp)).toHaveLength(2);
  });
});

describe("the at-risk warning, through the schedule", { timeout: 60_000 }, () => {
  it("warns the route once by email and Slack at three quarters of the promise, the office open, across a closing time, a weekend with the clock change and a holiday; never a taken, held or erased lead", async () => {
    const smtp = await startSmtp();
    const slack = await new Receiver().start("/slack");
    cleanups.push(() => slack.stop());
    const dir = tempDir();
    const file = join(dir, "inquiries.sqlite");
    const [friday, saturday, holiday, tuesday] = [-2, -1, 1, 2].map((n) =>
      dayAfter(dstSunday, n),
    ) as [string, string, string, string];
    const start = () =>
      instance(openSqlite(file), smtp, dir, undefined, { slack, calendar: dstFacts });
    now = office(friday, "14:00");
    let a = await start();
    // Friday 15:00: its three hours are up at closing time, 18:00; at risk when the office opens.
    const closing = await submit(a, lead("Closing Time"), office(friday, "15:00"));
    now = office(friday, "18:00");
    await wholeTurn(a);
    expect(atRiskMails(smtp)).toEqual([]);
    // Put off to the opening, as the outbox records it: one per channel of the route.
    const waiting = await a.db.query<{ channel: string; next: number }>(
      `SELECT channel, next_attempt_at AS next FROM deliveries WHERE kind = 'at-risk' AND inquiry_id = ? ORDER BY channel`,
      [closing],
    );
    expect(waiting.map((w) => [w.channel, Number(w.next)])).toEqual([
      ["email", office(saturday, "10:00")],
      ["slack", office(saturday, "10:00")],
    ]);

    now = office(saturday, "10:00");
    await expect.poll(() => atRiskMails(smtp).length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => atRiskSlack(slack).length, { timeout: 10_000 }).toBe(1);
    const [mail] = atRiskMails(smtp, closing);
    expect(mail?.mail.subject).toBe("At risk, 1 h left: AI Consulting — Closing Time");
    expect([mail?.mail.to].flat().flatMap((t) => t?.value.map((v) => v.address))).toEqual([
      "ai-partner@example.com",
    ]);
    const due = `Reply by Sat, ${new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: site.timeZone }).format(office(saturday, "11:00"))}, 11:00 AM`;
    expect(mail?.mail.text).toContain(
      'Nobody has pressed "I\'m on it" for this lead yet: 1 h of business time is left of the 4 business hours',
    );
    expect(mail?.mail.text).toContain(due);
    expect(mail?.mail.text).toMatch(
      /press "I'm on it" so the others know:\nhttp:\/\/127\.0\.0\.1\/lead\?t=/,
    );
    expect(atRiskSlack(slack)[0]).toContain(due);

    // Saturday 13:00: 1 h that day, none on Sunday (the clock changes) or the holiday, 2 h on Tuesday.
    const weekend = await submit(a, lead("Weekend Lead"), office(saturday, "13:00"));
    const taken = await submit(a, lead("Taken Lead"), office(saturday, "13:00"));
    const held = await submit(
      a,
      lead("Held Lead", { website: "filled" }),
      office(saturday, "13:00"),
    );
    const erased = await submit(a, lead("Erased Lead"), office(saturday, "13:00"));
    expect((await inquiries.get(a.db, held))?.held).toBe(true);

    // Sunday noon, the holiday, Tuesday 10:59 (the new offset): 1 h, 1 h, 2 h 59 min of business time.
    await erase(
      a.db,
      join(dir, "mail"),
      { email: "erased.lead@example.org" },
      {
        waitMs: 0,
        now: office(saturday, "13:30"),
        calendar: { config: a.config, routing: routingOf(a.config) },
      },
    );
    for (const [date, time] of [
      [dstSunday, "12:00"],
      [holiday, "15:00"],
      [tuesday, "10:59"],
    ] as const) {
      now = office(date, time);
      await wholeTurn(a);
      expect(atRiskMails(smtp)).toHaveLength(1);
    }
    await performAction(
      a.db,
      a.config,
      routingOf(a.config),
      "take",
      taken,
      office(tuesday, "10:00"),
      { by: "Dana" },
    );

    now = office(tuesday, "11:00");
    await expect.poll(() => atRiskMails(smtp).length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => atRiskSlack(slack).length, { timeout: 10_000 }).toBe(2);
    const [second] = atRiskMails(smtp, weekend);
    expect(second?.mail.subject).toBe("At risk, 1 h left: AI Consulting — Weekend Lead");
    expect(second?.mail.text).toContain(
      `Reply by Tue, ${new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: site.timeZone }).format(office(tuesday, "12:00"))}, 12:00 PM`,
    );

    // More turns, a restart: never again, and never for the others.
    await wholeTurn(a);
    await a.close();
    cleanups.pop();
    a = await start();
    now = office(tuesday, "11:30");
    await wholeTurn(a);
    expect(
      atRiskMails(smtp)
        .map((m) => m.mail.headers.get("x-inquiry-ids"))
        .sort(),
    ).toEqual([closing, weekend].sort());
    expect(atRiskSlack(slack)).toHaveLength(2);
    const sent = logs.filter(
      (l) => l.msg === "reply promise: at-risk warning sent for a lead nobody took",
    );
    expect(sent.map((l) => `${l.inquiryId} ${l.channel}`).sort()).toEqual(
      [closing, weekend].flatMap((id) => [`${id} email`, `${id} slack`]).sort(),
    );
    expect(
      await a.db.query("SELECT kind FROM deliveries WHERE kind = 'at-risk' AND status <> 'sent'"),
    ).toEqual([]);
    for (const id of [taken, held, erased]) expect(atRiskMails(smtp, id)).toEqual([]);
  });
});

describe("on PostgreSQL with two instances", { timeout: 60_000 }, () => {
  it("each lead is reminded exactly once, whichever instance sends it", async () => {
    const smtp = await startSmtp();
    const dir = tempDir();
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "reply_promise");
    cleanups.push(pgdb.drop);
    const tuesday = dayAfter(holiday, 1);
    now = office(tuesday, "08:00");
    const hook = await startHook();
    const a = await instance(openPostgres(pgdb.url), smtp, dir, hook);
    const b = await instance(openPostgres(pgdb.url), smtp, dir, hook);
    const ids: string[] = [];
    for (let n = 0; n < 8; n++)
      ids.push(await submit(n % 2 ? a : b, lead(`Lead ${n}`), office(tuesday, "08:30")));
    await expect.poll(() => leadMails(smtp).length, { timeout: 10_000 }).toBe(8);
    // 12:45: four clock hours after 8:30, when the outbox first offers the reminders, but 3 h 45 min
    // of business time: none goes yet.
    now = office(tuesday, "12:45");
    await wholeTurn(a, b);
    expect(reminders(smtp)).toEqual([]);
    // Three of the four hours were up at 12:00: each lead's route was warned, once, by one instance.
    await expect.poll(() => atRiskMails(smtp).length, { timeout: 10_000 }).toBe(8);
    await wholeTurn(a, b);
    // 9:00 to 13:00 is 4 business hours.
    now = office(tuesday, "13:00");
    await expect.poll(() => reminders(smtp).length, { timeout: 10_000 }).toBe(8);
    await wholeTurn(a, b);
    await wholeTurn(a, b);
    for (const id of ids) expect(reminderFor(smtp, id)).toHaveLength(1);
    for (const id of ids) expect(atRiskMails(smtp, id)).toHaveLength(1);
    expect(reminders(smtp)).toHaveLength(8);
    // The figures every instance reports: from the database the same on each; the reminders each sent add up.
    now = office(tuesday, "13:30");
    // Nobody has taken one yet: no median, no 90th percentile (never 0, "answered at once"), and /metrics says so.
    for (const i of [a, b]) {
      const text = await i.metrics.registry.metrics();
      expect(text).toMatch(/^contact_leads_waiting 8$/m);
      expect(text).not.toMatch(/^contact_lead_take_(median|p90)_business_seconds /m);
    }
    await performAction(b.db, b.config, routingOf(b.config), "take", ids[0] ?? "", now);
    const sample = async (i: Instance, name: string) =>
      (await i.metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value;
    for (const i of [a, b]) {
      expect(await sample(i, "contact_leads_waiting")).toBe(7);
      expect(await sample(i, "contact_lead_take_median_business_seconds")).toBe(4.5 * 3600);
    }
    const sent = [
      await sample(a, "contact_lead_reminders_total"),
      await sample(b, "contact_lead_reminders_total"),
    ];
    expect((sent[0] ?? 0) + (sent[1] ?? 0)).toBe(8);
    // The CRM hears of each reminder once, and of the take once, whichever instance told it.
    await expect.poll(() => events(hook, "inquiry.taken").length, { timeout: 10_000 }).toBe(1);
    await wholeTurn(a, b);
    expect(
      events(hook, "inquiry.reminded")
        .map((e) => e.data.id)
        .sort(),
    ).toEqual([...ids].sort());
    expect(events(hook, "inquiry.taken")[0]?.data.reply).toMatchObject({
      businessSecondsToTake: 4.5 * 3600,
      missed: true,
    });
  });
});
