import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { hours } from "../../app/config/derive.ts";
import { site } from "../../app/config/site.ts";
import { loadConfig } from "../../server/config.ts";
import { deadlineOf } from "../../server/contact/review/digest.ts";
import { type Promised, replyOf } from "../../server/contact/review/promise.ts";
import { replyFigures } from "../../server/contact/review/reply-figures.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import type { Database } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { TestSmtp } from "../support/smtp.ts";

/**
 * A lead's "Reply by" stays what its email said (issue 55): it is fixed when the lead is received.
 * The company then changes its office hours and its promise, as docs/editing.md says, and the server
 * starts again with them: the reminder still goes at the first deadline (through the outbox's
 * schedule, with a controlled clock), and the lead page's and digest's line (`deadlineOf`), the
 * CRM's `reply` and the figures still read it. Leads stored before the deadline was kept get the
 * one of the rule in force at the first start, and keep it.
 *
 * Before: weekdays 9:00–18:00, 4 business hours. A lead on a Tuesday at 16:00 (office time) is
 * due on Wednesday at 11:00. After: weekdays 10:00–18:00, 6 business hours: by the new rule it
 * would be due on Wednesday at 14:00. No holidays: the scenario works in any week.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] as const;

const before: Promised = {
  ...site,
  officeHours: [hours([...WEEKDAYS], "09:00", "18:00"), hours(["Saturday", "Sunday"])],
  holidays: [],
  response: { promiseBusinessHours: 4, atRiskShare: 0.75 },
};
const after: Promised = {
  ...before,
  officeHours: [hours([...WEEKDAYS], "10:00", "18:00"), hours(["Saturday", "Sunday"])],
  response: { promiseBusinessHours: 6, atRiskShare: 0.75 },
};

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
/** The first Tuesday a week or more ahead, and the Wednesday after it. */
const tuesday = (() => {
  const day = new Date(Date.now() + 7 * DAY);
  day.setUTCDate(day.getUTCDate() + ((9 - day.getUTCDay()) % 7));
  return day.toISOString().slice(0, 10);
})();
const wednesday = new Date(Date.parse(tuesday) + DAY).toISOString().slice(0, 10);

const logs: Array<Record<string, unknown>> = [];
const log = pino({ level: "info" }, { write: (line: string) => logs.push(JSON.parse(line)) });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  logs.length = 0;
});

/** The time every instance's scheduled work reads; set by the test. */
let now = 0;

/** The server as it starts with `facts` (the company's hours and promise then). */
async function instance(db: Database, smtp: TestSmtp, dir: string, facts: Promised) {
  const config = loadConfig(
    {
      DATA_DIR: dir,
      SMTP_URL: smtp.url,
      CONTACT_TO: "inbox@example.com",
      RATE_LIMIT_PER_MINUTE: "1000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
      SPAM_FILTER: "off",
    },
    { OUTBOX_POLL_MS: 25 },
  );
  const made = await createContactPipeline(config, log, {
    keys: testKeys(),
    db,
    clock: () => now,
    facts,
  });
  made.pipeline.worker.start();
  const close = () => made.close();
  cleanups.push(close);
  return {
    ...made,
    async stop() {
      cleanups.splice(cleanups.indexOf(close), 1);
      await close();
    },
    async turn() {
      await made.pipeline.worker.pass();
      await made.pipeline.worker.settled();
    },
  };
}

async function submit(p: Awaited<ReturnType<typeof instance>>, name: string, at: number) {
  now = at;
  const outcome = await p.pipeline.submit({
    body: {
      name,
      email: `${name.toLowerCase().replace(/\W+/g, ".")}@example.org`,
      company: "",
      service: "IT Consulting",
      message: "We would like to talk about moving our servers next quarter.",
    },
    source: "api",
    ip: "203.0.113.9",
    userAgent: "vitest",
    page: "/contact",
  });
  if (outcome.kind !== "stored") throw new Error(`not stored: ${outcome.kind}`);
  return outcome.id;
}

const reminders = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-reminder") === "reply-promise");

async function started() {
  const smtp = await new TestSmtp().start();
  cleanups.push(() => smtp.stop());
  const dir = mkdtempSync(join(tmpdir(), "reply-by-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { smtp, dir };
}

describe("a lead's Reply by, after the office hours change", { timeout: 60_000 }, () => {
  it("stays what its email said: the reminder, the lead page's line, the CRM's reply and the figures", async () => {
    const { smtp, dir } = await started();
    const file = join(dir, "inquiries.sqlite");
    now = office(tuesday, "15:00");
    const a = await instance(openSqlite(file), smtp, dir, before);
    const id = await submit(a, "Waiting Lead", office(tuesday, "16:00"));
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(1);
    const said = /^Reply by .*\(4 business hours\)/m.exec(smtp.received[0]?.mail.text ?? "")?.[0];
    expect(said).toMatch(/^Reply by Wed, .* 11:00 AM M[SD]T \(4 business hours\)$/);
    await a.stop();

    // The company's new hours and promise; the server starts again with them.
    now = office(wednesday, "08:00");
    const b = await instance(openSqlite(file), smtp, dir, after);
    const lead = await inquiries.get(b.db, id);
    if (!lead) throw new Error("the lead is gone");
    expect(deadlineOf(lead, now, after)?.replyBy).toBe(said);
    expect(replyOf(lead, now, after)).toMatchObject({
      promiseBusinessHours: 4,
      dueAt: new Date(office(wednesday, "11:00")).toISOString(),
      replyBy: said,
    });

    // 10:59: before the deadline it was given, nothing; 11:01: the reminder, an hour into the new day.
    now = office(wednesday, "10:59");
    await b.turn();
    expect(reminders(smtp)).toEqual([]);
    // The at-risk warning of 10:00 says the lead's own promise too, not the new 6 hours.
    const risk = smtp.received.find((m) => /^At risk/.test(m.mail.subject ?? ""));
    expect(risk?.mail.text).toContain("of the 4 business hours we promised this visitor");
    expect(risk?.mail.text).toContain(said);
    now = office(wednesday, "11:01");
    await expect.poll(() => reminders(smtp).length, { timeout: 10_000 }).toBe(1);
    const reminder = reminders(smtp)[0]?.mail.text ?? "";
    expect(reminder).toContain(said);
    // Its 4 hours, and the minute since (10:00 to 11:01 by the new hours would say 3 h 1 min).
    expect(reminder).toContain(
      "this lead has waited 4 h 1 min of business time and nobody has pressed",
    );
    expect(reminder).toContain("We promise visitors a reply within 4 business hours.");
    // Counted against its own promise: missed, though the new rule would give it until 14:00.
    expect(await replyFigures(b.db, 0, now, after)).toMatchObject({ overdue: 1, missed: 1 });
  });

  it("fixes the leads stored before it was kept from the rule in force at the first start, two instances at once, and keeps it (PostgreSQL)", async () => {
    const { smtp, dir } = await started();
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "reply_by");
    cleanups.push(pgdb.drop);
    now = office(tuesday, "15:00");
    const a = await instance(openPostgres(pgdb.url), smtp, dir, before);
    const old = await submit(a, "Old Lead", office(tuesday, "16:00"));
    // As a lead stored before migration 007 is: no promise of its own.
    await a.db.query("UPDATE inquiries SET reply_due_at = NULL, reply_hours = NULL WHERE id = ?", [
      old,
    ]);
    await a.stop();

    const [b, c] = await Promise.all([
      instance(openPostgres(pgdb.url), smtp, dir, before),
      instance(openPostgres(pgdb.url), smtp, dir, before),
    ]);
    const [row] = await b.db.query("SELECT reply_due_at, reply_hours FROM inquiries WHERE id = ?", [
      old,
    ]);
    expect(row).toEqual({ reply_due_at: office(wednesday, "11:00"), reply_hours: 4 });
    const filled = logs.filter(
      (l) => l.msg === "reply promises fixed for leads received before they were kept",
    );
    // Filled once, by whichever instance came first.
    expect(filled.map((l) => l.filled)).toEqual([1]);
    await b.stop();
    await c.stop();

    const d = await instance(openPostgres(pgdb.url), smtp, dir, after);
    const lead = await inquiries.get(d.db, old);
    expect(lead).toMatchObject({ replyDueAt: office(wednesday, "11:00"), replyHours: 4 });
    expect(deadlineOf(lead as NonNullable<typeof lead>, now, after)?.replyBy).toMatch(
      /^Reply by Wed, .* 11:00 AM M[SD]T \(4 business hours\)$/,
    );
  });
});
