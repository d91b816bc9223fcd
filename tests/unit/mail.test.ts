import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { buildMail, composeMail } from "../../server/contact/mailer.ts";
import type { NewInquiry } from "../../server/contact/store.ts";

/** The message the relay receives, read back by a real MIME parser (mailparser), as a mail client would. */

const inquiry = (over: Partial<NewInquiry> = {}): NewInquiry => ({
  id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  receivedAt: Date.UTC(2026, 10, 22, 16, 0, 0),
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "Analytical Engines",
  service: "AI Consulting",
  message: "Hello.\nWe would like to talk.",
  page: "https://www.example.com/contact",
  userAgent: "test",
  ipHash: "h",
  source: "api",
  spam: false,
  ...over,
});
const addresses = { from: "Teton Digital Website <no-reply@example.com>", to: "sales@example.com" };

describe("composeMail", () => {
  it("is read back exactly: names, subject and both bodies, whatever the script", async () => {
    const mail = buildMail(
      inquiry({
        name: 'José "Pepe" Müller',
        email: "jose@bücher.example",
        company: "Ünïcode & Co <b>",
        message: `Héllo 👋\nline with trailing spaces   \n.a line that starts with a dot\n${"y".repeat(1500)}`,
      }),
      addresses,
    );
    const { envelope, raw } = composeMail(mail, new Date(Date.UTC(2026, 10, 22, 16, 0, 5)));
    expect(envelope).toEqual({ from: "no-reply@example.com", to: ["sales@example.com"] });

    const parsed = await simpleParser(raw);
    expect(parsed.from?.value[0]).toEqual({ name: "Teton Digital Website", address: "no-reply@example.com" });
    // The domain goes out as ASCII (punycode); a mail client shows it as it was typed.
    expect(raw).toContain("<jose@xn--bcher-kva.example>");
    expect(parsed.replyTo?.value[0]).toEqual({ name: 'José "Pepe" Müller', address: "jose@bücher.example" });
    expect(parsed.subject).toBe(mail.subject);
    expect(parsed.messageId).toBe(mail.messageId);
    expect(parsed.headers.get("x-inquiry-id")).toBe(mail.headers["X-Inquiry-Id"]);
    expect(parsed.date?.toISOString()).toBe("2026-11-22T16:00:05.000Z");
    expect(parsed.text).toBe(mail.text);
    expect(parsed.html).toBe(mail.html);
    // Every line within SMTP's limit; header lines folded to the recommended length.
    const [head = "", body = ""] = raw.split("\r\n\r\n", 2);
    expect(Math.max(...head.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(78);
    expect(Math.max(...body.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(998);
    expect(raw).not.toMatch(/(?<!\r)\n/);
  });

  it("sends plain ASCII as it is (7bit) and anything else quoted-printable", () => {
    const { raw } = composeMail(buildMail(inquiry(), addresses));
    expect(raw).toContain("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit");
    expect(raw).toContain("Name: Ada Lovelace\r\n");
    const other = composeMail(buildMail(inquiry({ name: "Zoë" }), addresses)).raw;
    expect(other).toContain("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable");
    expect(other).toContain("Name: Zo=C3=AB\r\n");
  });

  it("keeps every header on its line: a line break in a value cannot add a header", async () => {
    const mail = {
      ...buildMail(inquiry(), addresses),
      subject: "Hello\r\nBcc: victim@example.net",
      replyTo: { name: "Eve\nBcc: victim@example.net", address: "eve@example.org" },
    };
    const { raw } = composeMail(mail);
    expect(raw).not.toMatch(/^Bcc:/im);
    const parsed = await simpleParser(raw);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.subject).toBe("Hello Bcc: victim@example.net");
    expect(parsed.replyTo?.value[0]?.address).toBe("eve@example.org");
  });

  it("refuses a From it cannot read, rather than sending without one", () => {
    expect(() => composeMail({ ...buildMail(inquiry(), addresses), from: "nobody" })).toThrow(/From/);
  });
});
