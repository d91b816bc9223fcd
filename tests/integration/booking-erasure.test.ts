import ICAL from "ical.js";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { statusOf, tokenOf } from "../support/booking-page.ts";
import { inquiriesCli } from "../support/cli.ts";
import { engineEnv } from "../support/engines.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * Erasing an inquiry takes its confirmed call still ahead out of both calendars (issue 54): a
 * METHOD:CANCEL of the invitation's UID, at a higher SEQUENCE, to the visitor and to the company,
 * through the outbox, once, whether `forget` erases it (twice at once here) or the retention pass
 * does; a call already held sends nothing. The production server on a controlled clock (faketime)
 * with its retention scheduled, the operator's CLI on its own clock, a real SMTP server, SQLite and
 * PostgreSQL; invitations read back with ical.js.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
};
// Monday 23 November 2026, 9:05 AM MST: the office hours alone decide the times offered.
const START = "@2026-11-23 16:05:00";
const MST = (day: number, hh: number, mm = 0) => Date.UTC(2026, 10, day, hh + 7, mm);
const DAY = 86_400_000;
const PHONE = "(303) 555-0142";

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
const linkIn = (m: Received, action: string) =>
  new RegExp(`(http://127\\.0\\.0\\.1:\\d+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1] ?? "";

function eventIn(m: Received) {
  const part = m.mail.attachments.find((a) => a.contentType === "text/calendar");
  const cal = new ICAL.Component(ICAL.parse(part?.content.toString("utf8") ?? ""));
  const event = new ICAL.Event(cal.getFirstSubcomponent("vevent") ?? undefined);
  return {
    method: cal.getFirstPropertyValue("method"),
    uid: event.uid,
    sequence: event.sequence,
    start: event.startDate.toJSDate().getTime(),
    organizer: String(event.organizer),
    attendees: event.attendees.map((a) => String(a.getFirstValue()).toLowerCase()),
  };
}

describe.each(["sqlite", "postgres"] as const)(
  "erasing a booked inquiry on %s",
  { timeout: 180_000 },
  (engine) => {
    it("cancels a confirmed call still ahead in both calendars, once, by forget or retention; a call already held sends nothing", async () => {
      const { env: data, cleanup } = await engineEnv(engine, "booking_erasure");
      cleanups.push(cleanup);
      const smtp = await new TestSmtp().start();
      cleanups.push(() => smtp.stop());
      const port = await freePort();
      // What the server and the operator's CLI both read (its .env): the invitations' UIDs name the site.
      const env: Record<string, string> = { ...data, SITE_URL: `http://127.0.0.1:${port}` };
      const server = await startServer(
        {
          ...env,
          ...FAKETIME,
          FAKETIME: START,
          SPAM_FILTER: "off",
          SMTP_URL: smtp.url,
        },
        port,
        { OUTBOX_POLL_MS: 50, SCHEDULE: ["retention"], RETENTION_INTERVAL_MS: 500 },
      );
      cleanups.push(() => server.stop());
      const db = openDatabase({
        dataDir: env.DATA_DIR ?? "",
        DATABASE_URL: env.DATABASE_URL || undefined,
      });
      cleanups.push(() => db.close());

      /** A visitor who sent a message, picked `at`, and was confirmed: their invitation, read back. */
      const booked = async (name: string, email: string, at: number) => {
        const res = await sendAsPage(server.url, { name, email, message: "Could we talk?" });
        expect(res.status).toBe(201);
        const { id, booking } = (await res.json()) as { id: string; booking: string };
        const form = { t: tokenOf(`${server.url}${booking}`), slot: String(at), phone: PHONE };
        const post = (body: Record<string, string>) =>
          fetch(`${server.url}/book`, { method: "POST", body: new URLSearchParams(body) });
        expect(statusOf(await (await post(form)).text())).toMatch(/^Thank you!/);
        const request = await mailTo(smtp, "hello@example.com", new RegExp(`^${name} asks for`));
        const confirm = new URL(linkIn(request, "confirm")).searchParams.get("t") ?? "";
        expect(statusOf(await (await post({ t: confirm, slot: String(at) })).text())).toMatch(
          /^Confirmed/,
        );
        const invitation = eventIn(await mailTo(smtp, email, /^Your free consultation/));
        expect(invitation).toMatchObject({ method: "REQUEST", sequence: 0, start: at });
        return { id, invitation };
      };
      /** The cancellation each calendar got: the same event, a higher SEQUENCE, for the same attendee. */
      const cancelled = async (email: string, at: number, uid: string) => {
        const theirs = eventIn(await mailTo(smtp, email, /^Cancelled: your consultation/));
        const ours = eventIn(
          await mailTo(smtp, "hello@example.com", /^Cancelled: the consultation of .*was erased/),
        );
        for (const event of [theirs, ours])
          expect(event).toEqual({
            method: "CANCEL",
            uid,
            sequence: 1,
            start: at,
            organizer: "mailto:hello@example.com",
            attendees: [`mailto:${email}`],
          });
      };

      const dana = await booked("Dana Whitfield", "dana@example.org", MST(24, 9));
      const pat = await booked("Pat Early", "pat@example.org", MST(23, 11, 30));
      const ray = await booked("Ray Older", "ray@example.org", MST(24, 10));

      // Dana asks to be forgotten, and two operators run it at once: one cancellation each way.
      const forget = (email: string, at: string) =>
        inquiriesCli({ ...env, ...FAKETIME, FAKETIME: at }, "forget", "--email", email);
      const both = await Promise.all([
        forget("dana@example.org", START),
        forget("dana@example.org", START),
      ]);
      expect(both.map((r) => r.code)).toEqual([0, 0]);
      expect(
        both.filter((r) => r.out.includes("1 confirmed consultation still ahead")),
      ).toHaveLength(1);
      await cancelled("dana@example.org", MST(24, 9), dana.invitation.uid);

      // Pat's call was at 11:30 AM: forgotten at noon, nothing goes (the company deletes the event by hand).
      const patForgotten = await forget("pat@example.org", "@2026-11-23 19:00:00");
      expect(patForgotten.code).toBe(0);
      expect(patForgotten.out).not.toContain("still ahead");
      expect(await db.query("SELECT id FROM inquiries WHERE id = ?", [pat.id])).toEqual([]);

      // Ray's message reaches the end of the retention period before the call: the server's pass cancels it.
      await db.query("UPDATE inquiries SET received_at = received_at - ? WHERE id = ?", [
        400 * DAY,
        ray.id,
      ]);
      await cancelled("ray@example.org", MST(24, 10), ray.invitation.uid);
      expect(await db.query("SELECT id FROM inquiries WHERE id = ?", [ray.id])).toEqual([]);

      // Everything queued has gone: each cancellation once, none for Pat, and the outbox keeps no address.
      await expect
        .poll(
          async () =>
            (await db.query("SELECT id FROM deliveries WHERE status IN ('pending', 'sending')"))
              .length,
          { timeout: 20_000 },
        )
        .toBe(0);
      expect(mailsTo(smtp, "dana@example.org", /^Cancelled/)).toHaveLength(1);
      expect(mailsTo(smtp, "ray@example.org", /^Cancelled/)).toHaveLength(1);
      expect(mailsTo(smtp, "pat@example.org", /^Cancelled/)).toHaveLength(0);
      expect(mailsTo(smtp, "hello@example.com", /was erased/)).toHaveLength(2);
      const rows = JSON.stringify(await db.query("SELECT * FROM deliveries"));
      for (const email of ["dana@example.org", "pat@example.org", "ray@example.org"])
        expect(rows).not.toContain(email);
      expect(rows).not.toContain("Dana Whitfield");
      // Their bookings went with them, the numbers to call too.
      expect(await db.query("SELECT phone FROM bookings")).toEqual([]);
    });
  },
);
