import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { domainToASCII } from "node:url";
import addressparser from "nodemailer/lib/addressparser";
import { encodeWord, encodeWords, foldLines } from "nodemailer/lib/mime-funcs";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";
import { site } from "../../app/config/site.ts";
import { escapeHtml } from "../../app/lib/escape.ts";
import { SmtpPool } from "./smtp-pool.ts";
import type { NewInquiry } from "./store.ts";

/**
 * The email a new inquiry becomes: to the company inbox, Reply-To the visitor, plain text and HTML
 * with every field escaped. The Message-ID is derived from the inquiry, so a retried delivery
 * carries the same one and mail clients fold duplicates.
 */

export type Mail = {
  from: string;
  to: string;
  replyTo: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
};

export interface Mailer {
  send(mail: Mail, inquiryId: string): Promise<{ accepted: boolean; detail: string }>;
  close(): void;
  describe(): string;
}

export function messageIdFor(inquiryId: string): string {
  const host = new URL(site.url).hostname;
  return `<inquiry-${inquiryId}@${host}>`;
}

export function buildMail(inquiry: NewInquiry, opts: { from: string; to: string }): Mail {
  // The subject holds validated single-line text only (the schema rejects CR/LF), cut to a sane length.
  const who = inquiry.company ? `${inquiry.name} (${inquiry.company})` : inquiry.name;
  const subject = `New inquiry: ${inquiry.service || "General"} — ${who}`.slice(0, 200);
  const received = new Date(inquiry.receivedAt).toISOString();
  const rows: Array<[string, string]> = [
    ["Name", inquiry.name],
    ["Email", inquiry.email],
    ["Company", inquiry.company || "—"],
    ["Service", inquiry.service || "—"],
    ["Received", received],
    ["Page", inquiry.page ?? "—"],
    ["Inquiry ID", inquiry.id],
  ];
  const text = [
    `A new inquiry arrived through the ${site.name} website.`,
    "",
    ...rows.map(([k, v]) => `${k}: ${v}`),
    "",
    "Message:",
    inquiry.message,
    "",
    "Reply to this email to answer the visitor directly.",
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#0f172a">
<p>A new inquiry arrived through the ${escapeHtml(site.name)} website.</p>
<table cellpadding="4" style="border-collapse:collapse">${rows
    .map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("")}</table>
<h2 style="font-size:16px">Message</h2>
<p style="white-space:pre-wrap">${escapeHtml(inquiry.message)}</p>
<p style="color:#475569">Reply to this email to answer the visitor directly.</p>
</body></html>`;
  return {
    from: opts.from,
    to: opts.to,
    replyTo: { name: inquiry.name, address: inquiry.email },
    subject,
    text,
    html,
    messageId: messageIdFor(inquiry.id),
    headers: { "X-Inquiry-Id": inquiry.id },
  };
}

export type Composed = { envelope: { from: string; to: string[] }; raw: string };

/**
 * The message as the relay receives it: multipart/alternative (text, HTML), UTF-8, composed with
 * nodemailer's own MIME functions (RFC 2047 words, quoted-printable, header folding, its address
 * parser) but not its stream pipeline, which took about 340 µs of the server's CPU per email, more
 * than storing the inquiry (ADR 0008). Every header value is one line: a line break cannot add a header.
 */
export function composeMail(mail: Mail, date = new Date()): Composed {
  const from = parseAddresses(mail.from, "From");
  const to = parseAddresses(mail.to, "To");
  // randomUUID draws from a cached pool of random bytes; randomBytes asked the system for each email.
  const boundary = `--_inquiry_${randomUUID()}`;
  const head = [
    header("From", from.map(formatAddress).join(", ")),
    header("To", to.map(formatAddress).join(", ")),
    header("Reply-To", formatAddress(mail.replyTo)),
    header("Subject", encodeWords(mail.subject, "Q", 52)),
    header("Message-ID", mail.messageId),
    `Date: ${date.toUTCString().replace(/GMT$/, "+0000")}`,
    "MIME-Version: 1.0",
    ...Object.entries(mail.headers).map(([name, value]) => header(name, encodeWords(value, "Q", 52))),
    header("Content-Type", `multipart/alternative; boundary="${boundary}"`),
  ];
  const body = [
    `--${boundary}`,
    bodyPart("text/plain", mail.text),
    `--${boundary}`,
    bodyPart("text/html", mail.html),
    `--${boundary}--`,
    "",
  ];
  return {
    envelope: { from: (from[0] as Address).address, to: to.map((a) => a.address) },
    raw: `${head.join("\r\n")}\r\n\r\n${body.join("\r\n")}`,
  };
}

type Address = { name: string; address: string };

// From and To are the configuration's (SMTP_FROM, checked at start, and CONTACT_TO): read once each.
const parsedAddresses = new Map<string, Address[]>();

function parseAddresses(value: string, what: string): Address[] {
  const known = parsedAddresses.get(value);
  if (known) return known;
  const list = addressparser(value, { flatten: true })
    .filter((a): a is Address => Boolean(a.address))
    .map(({ name, address }) => ({ name, address }));
  if (list.length === 0) throw new Error(`no ${what} address in ${JSON.stringify(value)}`);
  if (parsedAddresses.size < 16) parsedAddresses.set(value, list);
  return list;
}

function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

/** A header line, folded at spaces to 76 characters; any line break in the value becomes a space. */
function header(name: string, value: string): string {
  return foldLines(`${name}: ${oneLine(value)}`, 76);
}

/** `Name <local@domain>`: the name as atoms, a quoted string, or an RFC 2047 word; the domain as ASCII. */
function formatAddress({ name, address }: Address): string {
  const at = address.lastIndexOf("@");
  const ascii =
    at > 0 ? `${address.slice(0, at)}@${domainToASCII(address.slice(at + 1)) || address.slice(at + 1)}` : address;
  const display = oneLine(name).trim();
  if (!display) return ascii;
  if (/[^\x20-\x7e]/.test(display)) return `${encodeWord(display, "Q", 52)} <${ascii}>`;
  if (/^[\w!#$%&'*+\-/=?^`{|}~ ]+$/.test(display)) return `${display} <${ascii}>`;
  return `"${display.replace(/["\\]/g, "\\$&")}" <${ascii}>`;
}

/** One part: 7bit when it is ASCII with no line over 998 octets, quoted-printable otherwise; CRLF line ends. */
function bodyPart(type: string, content: string): string {
  const crlf = content.replace(/\r\n|\r|\n/g, "\r\n");
  const sevenBit = /^[\x20-\x7e\t\r\n]*$/.test(crlf) && crlf.split("\r\n").every((line) => line.length <= 998);
  return [
    `Content-Type: ${type}; charset=utf-8`,
    `Content-Transfer-Encoding: ${sevenBit ? "7bit" : "quoted-printable"}`,
    "",
    sevenBit ? crlf : qpWrap(qpEncode(crlf), 76),
  ].join("\r\n");
}

/** Deliver through an SMTP relay (SMTP_URL): a few pooled connections, bounded timeouts (smtp-pool.ts). */
export function smtpMailer(url: string): Mailer {
  const pool = new SmtpPool(url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(mail) {
      const { envelope, raw } = composeMail(mail);
      const info = await pool.send(envelope, raw);
      const accepted = info.accepted.length > 0 && info.rejected.length === 0;
      return { accepted, detail: info.response };
    },
    close: () => pool.close(),
    describe: () => `SMTP ${new URL(url).host}`,
  };
}

/** No relay configured: write each email as an .eml file under DATA_DIR/mail/, so nothing is lost. */
export function fileMailer(dir: string): Mailer {
  mkdirSync(dir, { recursive: true });
  return {
    async send(mail, inquiryId) {
      const file = join(dir, `${inquiryId}.eml`);
      writeFileSync(`${file}.tmp`, composeMail(mail).raw);
      renameSync(`${file}.tmp`, file);
      return { accepted: true, detail: file };
    },
    close: () => {},
    describe: () => `files in ${dir}`,
  };
}
