import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { buildMail, smtpMailer } from "../../server/contact/delivery/email.ts";
import { jsonAnswer } from "../../server/contact/http/endpoint.ts";
import type { ContactPipeline } from "../../server/contact/intake/pipeline.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { testKeys } from "../support/keys.ts";
import { TestSmtp } from "../support/smtp";

/**
 * The connections to the SMTP relay (nodemailer's pooled transport, server/contact/delivery/email.ts) against a real SMTP server:
 * logging in with SMTP_URL's credentials, carrying on when the relay closes idle connections, and
 * never leaving a send waiting when the pool is closed.
 */

const valid = {
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "Analytical Engines",
  service: "AI Consulting",
  message: "We need a model audit.",
};

describe("the SMTP relay's connections", () => {
  let smtp: TestSmtp;
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function pipeline(
    smtpUrl: string,
    env: Record<string, string> = {},
  ): Promise<ContactPipeline> {
    const dir = mkdtempSync(join(tmpdir(), "smtp-"));
    const config = loadConfig(
      {
        DATA_DIR: dir,
        SMTP_URL: smtpUrl,
        SPAM_FILTER: "off",
        ...env,
      },
      { OUTBOX_POLL_MS: 20, OUTBOX_RETRY_BASE_MS: 50, OUTBOX_RETRY_MAX_MS: 100 },
    );
    const made = await createContactPipeline(config, pino({ level: "silent" }), {
      keys: testKeys(),
      db: openSqlite(join(dir, "inquiries.sqlite")),
    });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => made.close());
    made.pipeline.worker.start();
    return made.pipeline;
  }
  const submit = async (p: ContactPipeline, message = valid.message) =>
    String(
      jsonAnswer(
        await p.submit({
          body: { ...valid, message },
          source: "api",
          ip: "203.0.113.5",
          userAgent: "vitest",
        }),
      ).body.id,
    );
  const delivery = async (p: ContactPipeline, id: string) =>
    (await inquiries.get(p.db, id))?.deliveries[0];

  it("logs in with SMTP_URL's user and password where the relay asks for AUTH", async () => {
    smtp = await new TestSmtp({ auth: { user: "site", pass: "s3cret:/@" } }).start();
    cleanups.push(() => smtp.stop());
    const p = await pipeline(
      `smtp://site:${encodeURIComponent("s3cret:/@")}@127.0.0.1:${smtp.port}`,
    );
    const id = await submit(p);
    await expect
      .poll(async () => (await delivery(p, id))?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(smtp.received.map((r) => r.mail.headers.get("x-inquiry-id"))).toEqual([id]);
  });

  it("keeps a lead pending, with the relay's answer, while the password is wrong", async () => {
    smtp = await new TestSmtp({ auth: { user: "site", pass: "right" } }).start();
    cleanups.push(() => smtp.stop());
    const p = await pipeline(`smtp://site:wrong@127.0.0.1:${smtp.port}`);
    const id = await submit(p);
    await expect
      .poll(async () => (await delivery(p, id))?.attempts ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(1);
    const d = await delivery(p, id);
    expect(d?.status).toMatch(/pending|sending/);
    expect(d?.lastError).toMatch(/Invalid username or password/);
    expect(smtp.received).toHaveLength(0);
  });

  it("fails a lead at once, with the relay's answer, when the relay refuses it for good (550)", async () => {
    smtp = await new TestSmtp().start();
    smtp.unknownRecipients.add("nobody@example.com");
    cleanups.push(() => smtp.stop());
    const p = await pipeline(smtp.url, { CONTACT_TO: "nobody@example.com" });
    const id = await submit(p);
    // A wrong CONTACT_TO is noticed now, not after a day of retries.
    await expect
      .poll(async () => (await delivery(p, id))?.status, { timeout: 10_000 })
      .toBe("failed");
    const d = await delivery(p, id);
    expect(d?.attempts).toBe(1);
    expect(d?.lastError).toMatch(/550.*User unknown/);
  });

  it("opens a new connection when the relay has closed an idle one, without a failed attempt", async () => {
    smtp = await new TestSmtp().start();
    cleanups.push(() => smtp.stop());
    const p = await pipeline(smtp.url);
    const first = await submit(p, "First message.");
    await expect
      .poll(async () => (await delivery(p, first))?.status, { timeout: 10_000 })
      .toBe("sent");
    await smtp.dropConnections();
    const second = await submit(p, "Second message.");
    await expect
      .poll(async () => (await delivery(p, second))?.status, { timeout: 10_000 })
      .toBe("sent");
    expect((await delivery(p, second))?.attempts).toBe(1);
    expect(smtp.received).toHaveLength(2);
  });

  it("fails a send in flight when the pool is closed, rather than leaving it waiting", async () => {
    // A relay that takes the message and never answers its end.
    let dataStarted = false;
    const stalling = createServer((socket) => {
      socket.write("220 stalling ESMTP\r\n");
      socket.on("data", (chunk) => {
        for (const line of chunk.toString().split("\r\n")) {
          if (dataStarted) return;
          if (/^(EHLO|HELO)/i.test(line)) socket.write("250 stalling\r\n");
          else if (/^(MAIL|RCPT)/i.test(line)) socket.write("250 OK\r\n");
          else if (/^DATA/i.test(line)) {
            dataStarted = true;
            socket.write("354 go ahead\r\n");
          }
        }
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => stalling.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise<void>((r) => stalling.close(() => r())));
    const port = (stalling.address() as { port: number }).port;
    const mailer = smtpMailer(`smtp://127.0.0.1:${port}`);
    const inquiry = {
      ...valid,
      id: "i1",
      receivedAt: Date.now(),
      page: null,
      userAgent: null,
      ipHash: null,
    };
    const mail = buildMail(
      { ...inquiry, source: "api", held: false },
      {
        from: "site@example.com",
        to: "sales@example.com",
        messageId: "<inquiry-i1@www.example.com>",
        links: [],
      },
    );
    const sent = mailer.send(mail);
    await expect.poll(() => dataStarted).toBe(true);
    mailer.close();
    const stillWaiting = new Promise((r) => setTimeout(() => r("still waiting"), 3_000));
    await expect(Promise.race([sent, stillWaiting])).rejects.toThrow(/closed|connection/i);
  });
});
