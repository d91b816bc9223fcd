import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { loadConfig, type Tuning } from "../../server/config.ts";
import { jsonAnswer } from "../../server/contact/http/endpoint.ts";
import type { ContactPipeline } from "../../server/contact/intake/pipeline.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import type { Database } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import * as outbox from "../../server/contact/storage/outbox.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { counts } from "../support/counts.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres";
import { Receiver } from "../support/receiver";
import { TestSmtp } from "../support/smtp";

/**
 * Every lead to every configured channel — email, a Standard Webhooks receiver, Slack —
 * each delivery with its own attempts, backoff and status, against real receivers.
 */

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const valid = {
  name: "Ada <!channel> Lovelace",
  email: "ada@example.org",
  company: "Engines & Co",
  service: "AI Consulting",
  message: "Hello <@U123> *bold* <https://evil.example|click>",
};

type Engine = { open: () => Database; url?: string; cleanup: () => Promise<void>; file?: string };

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), "channels-"));
  const file = join(dir, "inquiries.sqlite");
  return {
    open: () => openSqlite(file),
    file,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
async function postgresEngine(): Promise<Engine> {
  const db = await createTestDatabase(inject("pgAdminUrl"), "channels");
  return { open: () => openPostgres(db.url), url: db.url, cleanup: db.drop };
}

describe.each([
  ["sqlite", sqliteEngine],
  ["postgres", postgresEngine],
] as const)("delivery channels on %s", (name, makeEngine) => {
  let engine: Engine;
  let smtp: TestSmtp;
  let hook: Receiver;
  let slack: Receiver;
  const logs: Array<Record<string, unknown>> = [];
  const open: Array<{ close: () => Promise<void> }> = [];
  const log = pino({ level: "trace" }, { write: (line: string) => logs.push(JSON.parse(line)) });

  async function pipeline(
    env: Record<string, string> = {},
    tuning: Partial<Tuning> = {},
  ): Promise<ContactPipeline> {
    const config = loadConfig(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "channels-data-")),
        SMTP_URL: smtp.url,
        WEBHOOK_URL: hook.url,
        WEBHOOK_SECRET: SECRET,
        SLACK_WEBHOOK_URL: slack.url,
        RATE_LIMIT_PER_MINUTE: "10000",
        RATE_LIMIT_NETWORK_PER_MINUTE: "10000",
        SPAM_FILTER: "off",
        ...env,
      },
      {
        OUTBOX_POLL_MS: 20,
        OUTBOX_RETRY_BASE_MS: 50,
        OUTBOX_RETRY_MAX_MS: 200,
        DELIVERY_TIMEOUT_MS: 500,
        ...tuning,
      },
    );
    const made = await createContactPipeline(config, log, { keys: testKeys(), db: engine.open() });
    open.push(made);
    return made.pipeline;
  }
  // As the JSON endpoint answers it (server/contact/http/endpoint.ts).
  const submit = async (p: ContactPipeline, body: unknown = valid) =>
    jsonAnswer(
      await p.submit({
        body,
        source: "api",
        ip: "203.0.113.9",
        userAgent: "vitest",
        page: "/contact",
      }),
    );
  const deliveries = async (p: ContactPipeline, id: string) =>
    Object.fromEntries(
      ((await inquiries.get(p.db, id))?.deliveries ?? []).map((d) => [d.channel, d]),
    );

  beforeEach(async () => {
    engine = await makeEngine();
    smtp = await new TestSmtp().start();
    hook = await new Receiver().start();
    slack = await new Receiver().start("/services/T000/B000/XXXX");
    logs.length = 0;
  });
  afterEach(async () => {
    for (const p of open.splice(0)) await p.close();
    await smtp.stop();
    await hook.stop();
    await slack.stop();
    await engine.cleanup();
  });

  it("delivers one inquiry to email, a signed webhook and Slack, each once", async () => {
    const p = await pipeline();
    const id = String((await submit(p)).body.id);
    p.worker.start();
    await expect
      .poll(async () => (await inquiries.get(p.db, id))?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(smtp.received).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
    expect(slack.received).toHaveLength(1);

    // The webhook verifies with the same library and secret, and carries the inquiry.
    const [w] = hook.received;
    const event = new Webhook(SECRET).verify(
      w?.body ?? "",
      w?.headers as Record<string, string>,
    ) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(event.type).toBe("inquiry.received");
    expect(event.data).toMatchObject({
      id,
      name: valid.name,
      email: valid.email,
      message: valid.message,
    });
    expect(event.data).not.toHaveProperty("ipHash");
    expect(w?.headers["webhook-id"]).toBe(`msg_${id}`);
    // A tampered body does not verify.
    expect(() =>
      new Webhook(SECRET).verify(
        (w?.body ?? "").replace("Ada", "Eve"),
        w?.headers as Record<string, string>,
      ),
    ).toThrow();

    // Slack: markup off, the three control characters escaped, the fields as plain text.
    const message = JSON.parse(slack.received[0]?.body ?? "{}");
    expect(message.mrkdwn).toBe(false);
    expect(message.text).toContain("Ada &lt;!channel&gt; Lovelace");
    expect(message.text).not.toMatch(/<!channel>|<@/);
    const texts = JSON.stringify(message.blocks);
    expect(
      message.blocks.every((b: { type: string }) =>
        ["header", "section", "context", "actions"].includes(b.type),
      ),
    ).toBe(true);
    // Its two buttons: the signed "I'm on it" and "Spam" links to the site (link buttons: Slack opens them, the page acts).
    const actions = message.blocks.find((b: { type: string }) => b.type === "actions");
    const button = (action: string) =>
      expect.objectContaining({
        type: "button",
        action_id: `lead-${action}`,
        url: expect.stringMatching(new RegExp(`^https?://[^/]+/lead\\?t=[^.]+\\.${action}\\.`)),
      });
    expect(actions.elements).toEqual([button("take"), button("spam")]);
    expect(texts).not.toContain('"mrkdwn"');
    expect(texts).toContain("<https://evil.example|click>"); // shown as typed: plain_text is never parsed
    expect(
      JSON.stringify(message.blocks.map((b: { text?: { type: string } }) => b.text?.type)),
    ).not.toContain("mrkdwn");
  });

  it("retries a 500 with the same webhook-id, then delivers", async () => {
    hook.respond = (_r, n) => ({ status: n === 1 ? 500 : 200 });
    const p = await pipeline();
    const id = String((await submit(p)).body.id);
    p.worker.start();
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(hook.received).toHaveLength(2);
    expect(hook.received[0]?.headers["webhook-id"]).toBe(hook.received[1]?.headers["webhook-id"]);
    // Each channel finishes on its own: the email is not held back by the webhook, nor waited for.
    await expect
      .poll(async () => (await deliveries(p, id)).email?.status, { timeout: 10_000 })
      .toBe("sent");
    const d = await deliveries(p, id);
    expect(d.webhook).toMatchObject({ attempts: 2, status: "sent" });
    expect(d.email).toMatchObject({ attempts: 1, status: "sent" });
    expect(
      logs.some((l) => l.msg === "inquiry delivery failed; will retry" && l.reason === "HTTP 500"),
    ).toBe(true);
  });

  it("rotates the signing secret without losing a lead: signed with both while it changes, a 401 tried again", async () => {
    const NEW = `whsec_${randomBytes(32).toString("base64")}`;
    let receiverSecret = SECRET; // the receiver still has the old one
    hook.respond = (r) => {
      try {
        new Webhook(receiverSecret).verify(r.body, r.headers as Record<string, string>);
        return { status: 204 };
      } catch {
        return { status: 401 };
      }
    };
    // As documented: the new secret first, the old one beside it, until the receiver has the new one.
    const p = await pipeline({ WEBHOOK_SECRET: `${NEW} ${SECRET}` });
    p.worker.start();
    const first = String((await submit(p)).body.id);
    await expect
      .poll(async () => (await deliveries(p, first)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
    receiverSecret = NEW;
    const second = String(
      (await submit(p, { ...valid, message: "After the receiver switched" })).body.id,
    );
    await expect
      .poll(async () => (await deliveries(p, second)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(
      hook.received.map((r) => String(r.headers["webhook-signature"]).split(" ").length),
    ).toEqual([2, 2]);
    // Done in the wrong order (the server has only the new one, the receiver the old): refused with
    // 401, tried again, delivered once the receiver has it — never failed for good.
    receiverSecret = SECRET;
    const q = await pipeline({ WEBHOOK_SECRET: NEW });
    q.worker.start();
    const third = String(
      (await submit(q, { ...valid, message: "Sent in the middle of a rotation" })).body.id,
    );
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBeGreaterThan(2);
    expect((await deliveries(q, third)).webhook?.status).not.toBe("failed");
    receiverSecret = NEW;
    await expect
      .poll(async () => (await deliveries(q, third)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
  });

  it("fails a 410 at once, logs it as fatal, and reports it through email and Slack", async () => {
    hook.respond = () => ({ status: 410 });
    const p = await pipeline();
    const id = String((await submit(p)).body.id);
    p.worker.start();
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.status, { timeout: 10_000 })
      .toBe("failed");
    expect(hook.received).toHaveLength(1);
    expect((await deliveries(p, id)).webhook).toMatchObject({ attempts: 1, lastError: "HTTP 410" });
    expect(
      logs.filter((l) => l.level === 60 && String(l.msg).includes("WEBHOOK DELIVERY FAILED")),
    ).toHaveLength(1);
    // The alert reaches the people through the channels that work.
    await expect.poll(() => smtp.received.length, { timeout: 5_000 }).toBe(2);
    const alert = smtp.received.find((m) => m.mail.subject?.startsWith("Lead delivery failed"));
    expect(alert?.mail.subject).toBe(`Lead delivery failed: webhook for inquiry ${id}`);
    expect(alert?.mail.headers.get("x-alert")).toBe("delivery-failed");
    // Its Message-ID is the alert delivery's, the same on every attempt.
    expect(alert?.messageId).toMatch(/^<alert_[\w-]+_failed@www\.example\.com>$/);
    expect(alert?.mail.text).toContain("HTTP 410");
    await expect.poll(() => slack.received.length, { timeout: 5_000 }).toBe(2);
    expect(JSON.parse(slack.received[1]?.body ?? "{}").text).toContain(`webhook for inquiry ${id}`);
    // And the operator can queue it again once the receiver is fixed.
    hook.respond = () => ({ status: 204 });
    expect(await outbox.retryFailed(p.db, Date.now(), "webhook")).toBe(1);
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
  });

  it("retries a receiver that does not answer in time, and honours a 429's Retry-After", async () => {
    hook.respond = (_r, n) =>
      n === 1 ? { status: 200, delayMs: 2_000 } : { status: 429, headers: { "retry-after": "3" } };
    const p = await pipeline();
    const id = String((await submit(p)).body.id);
    p.worker.start();
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.attempts, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(logs.some((l) => String(l.reason).startsWith("no answer within 500 ms"))).toBe(true);
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.lastError, { timeout: 5_000 })
      .toBe("HTTP 429");
    const retried = hook.received.length;
    const at = hook.received.at(-1)?.at ?? 0;
    // Backoff alone would try again within 200 ms; the receiver asked for 3 s, and the outbox holds it until then.
    const [next] = await p.db.query<{ at: number }>(
      "SELECT next_attempt_at AS at FROM deliveries WHERE inquiry_id = ? AND channel = 'webhook'",
      [id],
    );
    expect(Number(next?.at) - at).toBeGreaterThanOrEqual(2_900);
    expect(hook.received.length).toBe(retried);
    hook.respond = () => ({ status: 200 });
    await expect
      .poll(async () => (await deliveries(p, id)).webhook?.status, { timeout: 10_000 })
      .toBe("sent");
    expect((hook.received.at(-1)?.at ?? 0) - at).toBeGreaterThanOrEqual(2_900);
  }, 20_000);

  it("delivers each lead on its own: a receiver taking its time holds no other delivery", async () => {
    // The first webhook call takes 4 s (within DELIVERY_TIMEOUT_MS); every other answers at once.
    hook.respond = (_r, n) => ({ status: 200, delayMs: n === 1 ? 4_000 : 0 });
    const p = await pipeline({}, { DELIVERY_TIMEOUT_MS: 10_000 });
    p.worker.start();
    const first = String((await submit(p)).body.id);
    await expect.poll(() => hook.received.length).toBe(1);
    const started = Date.now();
    const second = String(
      (await submit(p, { ...valid, message: "Another lead, sent while the first waits." })).body.id,
    );
    await expect
      .poll(async () => (await inquiries.get(p.db, second))?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await deliveries(p, first)).webhook?.status).toBe("sending");
    await expect
      .poll(async () => (await inquiries.get(p.db, first))?.status, { timeout: 10_000 })
      .toBe("sent");
  });

  it("routes each lead by service line: its own inbox, Slack and webhook, the general ones for the rest", async () => {
    const aiSlack = await new Receiver().start("/services/T000/B000/AI");
    const noServiceHook = await new Receiver().start("/crm/none");
    try {
      const p = await pipeline({
        CONTACT_TO: "sales@example.com",
        CONTACT_ROUTES: JSON.stringify({
          "AI Consulting": { to: "ai-partner@example.com", slack: aiSlack.url },
          none: { webhook: noServiceHook.url },
        }),
      });
      p.worker.start();
      const ai = String((await submit(p, { ...valid, service: "AI Consulting" })).body.id);
      const general = String(
        (await submit(p, { ...valid, service: "", message: "No service chosen." })).body.id,
      );
      await expect
        .poll(async () => (await inquiries.get(p.db, ai))?.status, { timeout: 10_000 })
        .toBe("sent");
      await expect
        .poll(async () => (await inquiries.get(p.db, general))?.status, { timeout: 10_000 })
        .toBe("sent");
      const to = (id: string) =>
        smtp.received
          .filter((m) => m.mail.headers.get("x-inquiry-id") === id)
          .map((m) => (m.mail.to && "text" in m.mail.to ? m.mail.to.text : ""));
      // The AI lead reaches only the AI recipients; the other, only the general ones.
      expect(to(ai)).toEqual(["ai-partner@example.com"]);
      expect(to(general)).toEqual(["sales@example.com"]);
      expect(aiSlack.received.map((r) => r.body)).toEqual([expect.stringContaining(ai)]);
      expect(slack.received.map((r) => r.body)).toEqual([expect.stringContaining(general)]);
      // The AI route names no webhook: the general one. "none" has its own: only there, signed as any.
      expect(hook.received.map((r) => r.body)).toEqual([expect.stringContaining(ai)]);
      expect(noServiceHook.received.map((r) => r.body)).toEqual([expect.stringContaining(general)]);
      const [own] = noServiceHook.received;
      expect(() =>
        new Webhook(SECRET).verify(own?.body ?? "", own?.headers as Record<string, string>),
      ).not.toThrow();
      // Where each lead went, as `inquiries show` and `stats` read it.
      expect(
        Object.fromEntries(
          (await deliveries(p, ai)) &&
            Object.entries(await deliveries(p, ai)).map(([c, d]) => [c, d.target]),
        ),
      ).toEqual({
        email: "ai-partner@example.com",
        slack: "AI Consulting",
        webhook: "default",
      });
      const stats = await inquiries.stats(p.db, 0);
      expect(stats.deliveries).toEqual(
        expect.arrayContaining([
          { channel: "email", target: "ai-partner@example.com", status: "sent", count: 1 },
          { channel: "email", target: "sales@example.com", status: "sent", count: 1 },
        ]),
      );
      expect((await deliveries(p, general)).webhook?.target).toBe("none");
    } finally {
      await aiSlack.stop();
      await noServiceHook.stop();
    }
  });

  it("delivers nothing of an inquiry held as spam", async () => {
    const p = await pipeline();
    const id = String((await submit(p, { ...valid, website: "http://spam.example" })).body.id);
    const genuine = String(
      (await submit(p, { ...valid, message: "A genuine lead, after it" })).body.id,
    );
    p.worker.start();
    // The worker has run: the genuine lead, stored after the held one, reached every channel.
    await expect
      .poll(async () => Object.values(await deliveries(p, genuine)).map((d) => d.status), {
        timeout: 10_000,
      })
      .toEqual(["sent", "sent", "sent"]);
    expect(await deliveries(p, id)).toEqual({});
    expect(hook.received).toHaveLength(1);
    expect(slack.received).toHaveLength(1);
    // No lead email for it (the held-spam summary may name it: that is for review, not a lead).
    const leads = smtp.received.filter((m) => m.mail.subject?.startsWith("New inquiry"));
    expect(leads).toHaveLength(1);
    expect(leads.filter((m) => m.raw.includes(id))).toEqual([]);
  });

  it.skipIf(name !== "postgres")(
    "delivers each channel exactly once with two workers on one database",
    async () => {
      const writer = await pipeline();
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++)
        ids.add(String((await submit(writer, { ...valid, message: `Lead ${i}` })).body.id));
      // A receiver slow on a busy machine is not a duplicate claim: the timeout is not under test here.
      const a = await pipeline({}, { OUTBOX_POLL_MS: 5, DELIVERY_TIMEOUT_MS: 10_000 });
      const b = await pipeline({}, { OUTBOX_POLL_MS: 5, DELIVERY_TIMEOUT_MS: 10_000 });
      a.worker.start();
      b.worker.start();
      await expect.poll(async () => (await counts(writer.db)).sent, { timeout: 30_000 }).toBe(120);
      const hookIds = hook.received.map((r) => String(r.headers["webhook-id"]));
      expect(hookIds).toHaveLength(40);
      expect(new Set(hookIds)).toEqual(new Set([...ids].map((id) => `msg_${id}`)));
      expect(slack.received).toHaveLength(40);
      expect(new Set(smtp.received.map((r) => r.messageId)).size).toBe(40);
      expect(smtp.received).toHaveLength(40);
    },
    40_000,
  );
});
