import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { buildMail, composeMail, replyLink } from "../../server/contact/delivery/email.ts";
import {
  buttons,
  heading,
  page,
  para,
  rows,
  textPage,
} from "../../server/contact/delivery/layout.ts";
import type { Inquiry } from "../../server/contact/storage/records.ts";

/** The message the relay receives, read back by a real MIME parser (mailparser), as a mail client would. */

const inquiry = (over: Partial<Inquiry> = {}): Inquiry => ({
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
  held: false,
  ...over,
});
const addresses = {
  from: "Teton Digital Website <no-reply@example.com>",
  to: "sales@example.com",
  messageId: "<inquiry-0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@www.example.com>",
  links: [],
};

describe("the email an inquiry becomes, as nodemailer composes it", () => {
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
    const raw = await composeMail(mail);
    const parsed = await simpleParser(raw);
    expect(parsed.from?.value[0]).toEqual({
      name: "Teton Digital Website",
      address: "no-reply@example.com",
    });
    expect(parsed.to && "value" in parsed.to ? parsed.to.value[0]?.address : null).toBe(
      "sales@example.com",
    );
    // A reply stays with the recipients (it quotes the links); the visitor is answered by the mailto: link.
    expect(parsed.replyTo?.value.map((a) => a.address)).toEqual(["sales@example.com"]);
    expect(parsed.html).toContain("Reply to José &quot;Pepe&quot; Müller</a>");
    expect(parsed.subject).toBe(mail.subject);
    expect(parsed.messageId).toBe(mail.messageId);
    expect(parsed.headers.get("x-inquiry-id")).toBe(inquiry().id);
    expect(parsed.text?.trimEnd()).toBe(mail.text);
    expect(parsed.html).toBe(mail.html);
    // Every line within SMTP's limit, CRLF line ends.
    expect(Math.max(...raw.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(998);
    expect(raw).not.toMatch(/(?<!\r)\n/);
  });

  it("keeps every header on its line: a line break in a value cannot add a header", async () => {
    const mail = {
      ...buildMail(inquiry(), addresses),
      subject: "Hello\r\nBcc: victim@example.net",
      replyTo: { name: "Eve\nBcc: victim@example.net", address: "sales@example.com" },
    };
    const raw = await composeMail(mail);
    expect(raw).not.toMatch(/^Bcc:/im);
    const parsed = await simpleParser(raw);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.subject).toMatch(/^Hello\s*Bcc: victim@example.net$/);
    expect(parsed.replyTo?.value[0]?.address).toBe("sales@example.com");
  });

  it("puts the visitor in no header: a name typed as an RFC 2047 encoded word adds no recipient", async () => {
    const name = "=?utf-8?Q?Eve=0D=0ABcc=3A_victim@example.net?=";
    const parsed = await simpleParser(await composeMail(buildMail(inquiry({ name }), addresses)));
    expect(parsed.replyTo?.value.map((a) => a.address)).toEqual(["sales@example.com"]);
    expect(parsed.bcc).toBeUndefined();
  });

  it("answers the visitor with a mailto: link: their address (any script), a Re: subject, no link of the lead", async () => {
    const email = "jose+leads@bücher.example";
    const url = new URL(replyLink({ email }));
    expect(url.protocol).toBe("mailto:");
    expect(decodeURIComponent(url.pathname)).toBe(email);
    expect(url.searchParams.get("subject")).toBe("Re: Your inquiry to Teton Digital");
    expect([...url.searchParams.keys()]).toEqual(["subject"]);
  });

  it("cuts a long subject between characters, never inside one (an emoji is two UTF-16 units)", async () => {
    // "New inquiry: General — " is 23 characters, then 226 more: the 200th UTF-16 unit is inside an emoji.
    const name = "😀".repeat(100);
    const parsed = await simpleParser(
      await composeMail(buildMail(inquiry({ name, company: name }), addresses)),
    );
    expect(parsed.subject).not.toContain("\uFFFD");
    expect(parsed.subject?.isWellFormed()).toBe(true);
    expect(Array.from(parsed.subject ?? "")).toHaveLength(200);
  });

  it("escapes any script in any field of the HTML part", async () => {
    const script = "<script>alert(1)</script>";
    const raw = await composeMail(
      buildMail(
        inquiry({ name: script, company: script, service: script, message: script }),
        addresses,
      ),
    );
    const parsed = await simpleParser(raw);
    expect(parsed.html).not.toContain("<script>");
    expect(parsed.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});

describe("the one email layout (server/contact/delivery/layout.ts)", () => {
  it("escapes every text it is given, in words and in links", () => {
    const script = `<script>alert("x")</script>`;
    const html = page(script, [
      heading(script),
      para(script),
      rows([[script, script]]),
      buttons([{ label: script, url: `https://example.com/?a=1&b="${script}` }]),
    ]);
    expect(html).not.toContain("<script>");
    expect(html).toContain('href="https://example.com/?a=1&amp;b=&quot;&lt;script&gt;');
  });

  it("lays out a notice written as text alone: its links become words, its lines stay", () => {
    const html = textPage(
      "Calendar unread",
      "The calendar could not be read.\nSee https://example.com/x?t=a&b=c for it.",
    );
    expect(html).toContain(
      '<a class="link" href="https://example.com/x?t=a&amp;b=c" style="color:#1e40af">Open this link</a>',
    );
    expect(html.replace(/href="[^"]*"/g, "")).not.toMatch(/https?:\/\//);
    expect(html).toContain("The calendar could not be read.\nSee ");
  });
});
