import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { loadConfig } from "../../server/config.ts";
import { performAction } from "../../server/contact/review/page.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { readSetting } from "../../server/contact/storage/settings.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The weekly numbers through their schedule (server/contact/review/weekly.ts): two instances on one
 * PostgreSQL database, their housekeeping turning as the server's does, with a controlled clock, a
 * real SMTP server receiving the email of the week, once, with counts and nothing of a person in it.
 */

const at = (iso: string) => Date.parse(iso);
const log = pino({ level: "silent" });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let now = 0;

async function instance(
  url: string,
  smtp: TestSmtp,
  dataDir: string,
  figuresTo: Record<string, string> = {
    WEEKLY_FIGURES_TO: "marketer@example.com, Owner@example.com",
  },
) {
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      CONTACT_TO: "inbox@example.com",
      ...figuresTo,
      SPAM_FILTER: "off",
    },
    { OUTBOX_POLL_MS: 25, HOUSEKEEPING_TURN_MS: 50, SCHEDULE: ["weekly-numbers"] },
  );
  const made = await createContactPipeline(config, log, {
    keys: testKeys(),
    db: openPostgres(url),
    clock: () => now,
    facts: site,
  });
  made.pipeline.worker.start();
  made.housekeeping.start();
  cleanups.push(() => made.close());
  return made;
}

const figures = (smtp: TestSmtp) =>
  smtp.received.filter((m) => m.mail.headers.get("x-alert") === "weekly-numbers");

const people = [
  {
    name: "Ada Early",
    email: "ada@example.org",
    company: "Engines Ltd",
    service: "AI Consulting",
    message: "We would like a model audit next month.",
    at: "2027-02-22T10:00:00-07:00",
    taken: "2027-02-22T11:00:00-07:00",
  },
  {
    name: "Grace Hopper",
    email: "grace@example.org",
    company: "Compilers Inc",
    service: "",
    message: "Could you look at our ageing servers?",
    at: "2027-02-24T10:00:00-07:00",
    // The next day: past the four business hours.
    taken: "2027-02-25T10:00:00-07:00",
  },
  {
    name: "Linus Kernel",
    email: "linus@example.org",
    company: "Kernels Co",
    service: "IT Consulting",
    message: "We want a review of our network plan.",
    at: "2027-02-16T14:00:00-07:00",
  },
];

describe("the weekly numbers, through the schedule", { timeout: 90_000 }, () => {
  it("go once at the week's first opening to WEEKLY_FIGURES_TO, counts only, whatever the instances", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const dir = mkdtempSync(join(tmpdir(), "figures-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "figures");
    cleanups.push(pgdb.drop);

    // The leads of February, taken or not, received by an instance that sends no weekly numbers.
    now = at("2027-02-16T08:00:00-07:00");
    const seeding = await instance(pgdb.url, smtp, dir, {});
    for (const p of [...people].sort((x, y) => at(x.at) - at(y.at))) {
      now = at(p.at);
      const { at: _, taken, ...body } = p;
      const outcome = await seeding.pipeline.submit({
        body,
        source: "api",
        ip: "203.0.113.9",
        userAgent: "vitest",
        page: "/contact",
      });
      const id = "id" in outcome ? String(outcome.id) : "";
      if (taken) {
        now = at(taken);
        await performAction(seeding.db, loadConfig({ DATA_DIR: dir }), null, "take", id, now, {
          by: "Dana",
        });
      }
    }
    await seeding.pipeline.worker.settled();
    expect(await readSetting(seeding.db, "weekly_numbers_week")).toBeNull();

    // Monday 1 March 2027, a minute before opening: nothing, however many turns.
    now = at("2027-03-01T08:59:00-07:00");
    const a = await instance(pgdb.url, smtp, dir);
    const b = await instance(pgdb.url, smtp, dir);
    for (const i of [a, b]) expect(await i.housekeeping.weeklyNumbers()).toBe(false);
    expect(await readSetting(a.db, "weekly_numbers_week")).toBeNull();
    // At opening: one email, whichever instance queued it.
    now = at("2027-03-01T09:00:00-07:00");
    await expect.poll(() => figures(smtp).length, { timeout: 10_000 }).toBe(1);
    await Promise.all([a.pipeline.worker.settled(), b.pipeline.worker.settled()]);
    expect(await readSetting(a.db, "weekly_numbers_week")).toBe("2027-03-01");
    // Later that week, on either instance: no second one.
    now = at("2027-03-05T11:00:00-07:00");
    for (const i of [a, b]) expect(await i.housekeeping.weeklyNumbers()).toBe(false);
    // The next Monday's opening: the next week's.
    now = at("2027-03-08T09:00:00-07:00");
    await expect.poll(() => figures(smtp).length, { timeout: 10_000 }).toBe(2);
    await Promise.all([a.pipeline.worker.settled(), b.pipeline.worker.settled()]);
    expect(figures(smtp).map((m) => m.messageId)).toEqual([
      "<weekly-numbers-2027-03-01@www.example.com>",
      "<weekly-numbers-2027-03-08@www.example.com>",
    ]);
    expect(figures(smtp)[1]?.mail.subject).toBe(
      "Weekly numbers, week of Monday, March 1: 0 inquiries, 0 taken within the promise",
    );

    const mail = figures(smtp)[0] as Received;
    expect(mail.mail.to).toMatchObject({ text: "marketer@example.com, Owner@example.com" });
    expect(mail.mail.subject).toBe(
      "Weekly numbers, week of Monday, February 22: 2 inquiries, 1 taken within the promise",
    );
    const text = mail.mail.text ?? "";
    expect(text).toContain("Week of Monday, February 22: 2 inquiries, 1 taken within the promise");
    expect(text).toContain("Week of Monday, February 15: 1 inquiry, 0 taken within the promise");
    expect(text).toContain("Week of Monday, February 1: 0 inquiries, 0 taken within the promise");
    const week22 = text.slice(text.indexOf("Week of Monday, February 22"));
    expect(week22).toMatch(/^- AI Consulting: 1 \(1 within the promise\)$/m);
    expect(week22).toMatch(/^- No service chosen: 1 \(0 within the promise\)$/m);
    expect(week22).toMatch(/^- IT Consulting: 0$/m);
    const week15 = text.slice(
      text.indexOf("Week of Monday, February 15"),
      text.indexOf("Week of Monday, February 22"),
    );
    expect(week15).toMatch(/^- IT Consulting: 1 \(0 within the promise\)$/m);
    // Nothing of a person, anywhere in what was received.
    const received = [mail.raw, mail.mail.subject, text, mail.mail.html || ""].join("\n");
    for (const p of people)
      for (const said of [p.name, p.email, p.company, p.message, p.name.split(" ")[1] as string])
        expect(received.toLowerCase()).not.toContain(said.toLowerCase());
    expect(mail.mail.headers.get("x-inquiry-ids") ?? "").toBe("");
  });
});
