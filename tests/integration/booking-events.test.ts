import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { TAKEN_BY_FIELD } from "../../app/contact/lead.ts";
import { slotsOf, statusOf, tokenOf } from "../support/booking-page.ts";
import { inquiriesCli } from "../support/cli.ts";
import { freePort } from "../support/ports.ts";
import { Receiver } from "../support/receiver.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The CRM hears of the booking (issue 54): the production server, a real SMTP server for the links
 * people press, and a real HTTP receiver as the CRM's webhook, each event verified with the
 * `standardwebhooks` library. On the real clock: the receiver checks each signature's timestamp.
 */

const SECRET = `whsec_${Buffer.from("booking-events-test-secret-32-bytes").toString("base64")}`;
const BOOKING = /^booking\./;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Event = {
  type: string;
  timestamp: string;
  data: { id: string } & Record<string, unknown>;
};

async function inquiry(server: RunningServer, name: string, email: string, extra = {}) {
  const res = await sendAsPage(server.url, {
    name,
    email,
    message: "Could we talk about our cloud move?",
    ...extra,
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; booking: string };
  return { id: body.id, link: `${server.url}${body.booking}` };
}

/** The visitor's pick: the `nth` time their page offers. */
async function pick(server: RunningServer, link: string, nth = 0) {
  const offered = async () => slotsOf(await (await fetch(link)).text());
  await expect.poll(async () => (await offered()).length, { timeout: 20_000 }).toBeGreaterThan(nth);
  const slots = await offered();
  const at = slots[nth] as number;
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
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

/** A company or visitor link pressed: its page, then its button. */
async function press(server: RunningServer, link: string, by?: string) {
  const page = await (await fetch(link)).text();
  const slot = /name="slot" value="(\d+)"/.exec(page)?.[1] ?? "";
  const res = await fetch(`${server.url}/book`, {
    method: "POST",
    body: new URLSearchParams({ t: tokenOf(link), slot, ...(by ? { [TAKEN_BY_FIELD]: by } : {}) }),
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
const linkIn = (m: Received, action: string) =>
  new RegExp(`(http://127\\.0\\.0\\.1:\\d+/book\\?t=[0-9a-f-]{36}\\.${action}\\.\\S+)`).exec(
    m.mail.text ?? "",
  )?.[1] ?? "";

/** The outbox as the server recorded it (SQLite, read beside it). */
function deliveries(server: RunningServer, inquiryId: string) {
  const db = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"), { readOnly: true });
  try {
    return db
      .prepare(
        "SELECT kind, status, attempts, message_id AS messageId FROM deliveries WHERE inquiry_id = ? AND kind LIKE 'booking.%' ORDER BY created_at",
      )
      .all(inquiryId) as Array<{
      kind: string;
      status: string;
      attempts: number;
      messageId: string;
    }>;
  } finally {
    db.close();
  }
}

describe("booking events to the webhook", { timeout: 120_000 }, () => {
  it("sends booking.requested, booking.confirmed, booking.cancelled and booking.declined once each, signed; none for a held inquiry's pick", async () => {
    const smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const hook = await new Receiver().start("/crm");
    cleanups.push(() => hook.stop());
    const port = await freePort();
    const server = await startServer(
      {
        SITE_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: smtp.url,
        WEBHOOK_URL: hook.url,
        WEBHOOK_SECRET: SECRET,
        SPAM_FILTER: "off",
        RATE_LIMIT_PER_MINUTE: "1000",
      },
      port,
      { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0 },
    );
    cleanups.push(() => server.stop());

    // Held as spam (the honeypot filled): its pick is queued first, and never claimed while held.
    const bot = await inquiry(server, "Held Visitor", "held@example.org", {
      website: "http://spam.example",
    });
    await pick(server, bot.link, 1);

    // Dana picks, the company confirms from its email, Dana cancels from her invitation.
    const dana = await inquiry(server, "Dana Whitfield", "dana@example.org");
    const at = await pick(server, dana.link);
    const asks = await mailTo(smtp, "hello@example.com", /^Dana Whitfield asks for/);
    expect(await press(server, linkIn(asks, "confirm"), "Sam Ortiz")).toMatch(/^Confirmed/);
    const invited = await mailTo(smtp, "dana@example.org", /^Your free consultation/);
    expect(await press(server, linkIn(invited, "cancel"))).toMatch(/is free again/);
    // Eve picks another time, the company declines it.
    const eve = await inquiry(server, "Eve Second", "eve@example.org");
    const eveAt = await pick(server, eve.link, 2);
    const eveAsks = await mailTo(smtp, "hello@example.com", /^Eve Second asks for/);
    expect(await press(server, linkIn(eveAsks, "decline"))).toMatch(/^Declined/);

    const events = () =>
      hook.received.map((r) => ({
        id: String(r.headers["webhook-id"]),
        event: new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Event,
      }));
    const booked = (id: string) =>
      events().filter((e) => BOOKING.test(e.event.type) && e.event.data.id === id);

    /**
     * The product's own record: one delivery per event, sent at the first attempt (recorded once the
     * receiver answered); the receiver got each once, under its delivery's `webhook-id`. The events,
     * by type.
     */
    async function onceEach(id: string, types: string[]) {
      await expect
        .poll(() => deliveries(server, id).map((r) => [r.kind, r.status, r.attempts]), {
          timeout: 20_000,
        })
        .toEqual(types.map((t) => [t, "sent", 1]));
      const rows = deliveries(server, id);
      expect(new Set(rows.map((r) => r.messageId)).size).toBe(types.length);
      for (const r of rows)
        expect(r.messageId).toMatch(new RegExp(`^evt_${r.kind.replace(".", "_")}_${id}_\\d+$`));
      expect(
        booked(id)
          .map((e) => e.id)
          .sort(),
      ).toEqual(rows.map((r) => r.messageId).sort());
      return types.map((t) => booked(id).find((e) => e.event.type === t)?.event as Event);
    }

    const [requested, confirmed, cancelled] = await onceEach(dana.id, [
      "booking.requested",
      "booking.confirmed",
      "booking.cancelled",
    ]);
    const when = (id: string, start: number) => ({
      id,
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(start + 30 * 60_000).toISOString(),
      zone: "America/New_York",
    });
    expect(requested?.data).toEqual({ ...when(dana.id, at), state: "asked" });
    expect(confirmed?.data).toEqual({
      ...when(dana.id, at),
      state: "confirmed",
      confirmedBy: "Sam Ortiz",
    });
    expect(cancelled?.data).toEqual({ ...when(dana.id, at), state: "cancelled" });
    // Each event's time is its change's: in the order they were made.
    const times = [requested, confirmed, cancelled].map((e) => Date.parse(e?.timestamp ?? ""));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const [, declined] = await onceEach(eve.id, ["booking.requested", "booking.declined"]);
    expect(declined?.data).toEqual({ ...when(eve.id, eveAt), state: "declined" });

    // The held inquiry: nothing reached the receiver; its event, due before Dana's, was never claimed.
    expect(events().filter((e) => e.event.data.id === bot.id)).toEqual([]);
    expect(deliveries(server, bot.id)).toEqual([
      expect.objectContaining({ kind: "booking.requested", status: "pending", attempts: 0 }),
    ]);
    // Erased with the inquiry.
    const forget = await inquiriesCli(
      { DATA_DIR: server.dataDir },
      "forget",
      "--email",
      "held@example.org",
    );
    expect(forget.code).toBe(0);
    expect(deliveries(server, bot.id)).toEqual([]);
  });
});
