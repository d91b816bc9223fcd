import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import addressparser from "nodemailer/lib/addressparser";
import { z } from "zod";
import { site } from "../../../app/config/site.ts";
import { ACTION_EFFECT, ACTION_LABEL } from "../../../app/contact/lead.ts";
import { escapeHtml } from "../../../app/lib/escape.ts";
import type { Config } from "../../config.ts";
import { officeTime, replyBy as replyByOf } from "../review/clock.ts";
import type { LeadLink } from "../review/links.ts";
import { promiseDueAt } from "../review/promise.ts";
import type { Inquiry } from "../storage/records.ts";
import { type Attempt, type ChannelDefinition, cutAt } from "./channel.ts";

/**
 * The email a lead becomes, plain text and HTML with every field escaped. It carries the lead's
 * signed links, and a reply quotes them, so Reply-To is the email's own recipients and answering the
 * visitor is a new message (`replyLink`). The Message-ID comes from the inquiry: a retried delivery
 * carries the same one, and mail clients fold duplicates.
 */

export type Mail = {
  from: string;
  to: string;
  replyTo: string | { name: string; address: string };
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
  icalEvent?: { method: string; content: string };
};

interface Mailer {
  send(mail: Mail, inquiryId: string): Promise<{ accepted: boolean; refused: string[]; detail: string }>;
  close(): void;
  describe(): string;
}

const messageIdFor = (inquiryId: string, siteHost: string) => `<inquiry-${inquiryId}@${siteHost}>`;

export const replyLink = (inquiry: Pick<Inquiry, "email">) =>
  `mailto:${inquiry.email.replace(/[^A-Za-z0-9@._+-]/g, (c) => encodeURIComponent(c))}?subject=${encodeURIComponent(`Re: Your inquiry to ${site.name}`)}`;

export const SUSPECT_MARK = "[Possible spam]";
export const SUSPECT_NOTE =
  "Possible spam: the filter is not sure this is a person's inquiry. Tell it with a link below: either click teaches it.";

type Reminder = { waited: string; promise: string };
type MailOptions = { from: string; to: string; siteHost: string; links: LeadLink[]; reminder?: Reminder };

/** With `reminder`, the same lead again, saying that nobody took it and how long it waited. */
export function buildMail(inquiry: Inquiry, opts: MailOptions): Mail {
  const who = inquiry.company ? `${inquiry.name} (${inquiry.company})` : inquiry.name;
  const mark = inquiry.suspect ? `${SUSPECT_MARK} ` : "";
  const { reminder } = opts;
  const again = reminder ? `Nobody has taken this lead for ${reminder.waited}: ` : "";
  const subject = cutAt(`${again}${mark}New inquiry: ${inquiry.service || "General"} — ${who}`, 200);
  const received = officeTime(inquiry.receivedAt);
  const replyBy = replyByOf(promiseDueAt(inquiry.receivedAt));
  const deadline = replyBy ? [`${replyBy}.`, ""] : [];
  const rows: Array<[string, string]> = [
    ["Name", inquiry.name],
    ["Email", inquiry.email],
    ["Company", inquiry.company || "—"],
    ["Service", inquiry.service || "—"],
    ["Received", received],
    ["Page", inquiry.page ?? "—"],
    ["Inquiry ID", inquiry.id],
  ];
  const reminding = reminder
    ? [
        `Reminder: this lead has waited ${reminder.waited} of business time and nobody has pressed "${ACTION_LABEL.take}". We promise visitors a reply within ${reminder.promise}. If you are answering it, press "${ACTION_LABEL.take}" below so the others know.`,
        "",
      ]
    : [];
  const note = [...reminding, ...(inquiry.suspect ? [SUSPECT_NOTE, ""] : [])];
  const reply = replyLink(inquiry);
  const text = [
    ...note,
    `A new inquiry arrived through the ${site.name} website.`,
    "",
    ...deadline,
    ...rows.map(([k, v]) => `${k}: ${v}`),
    "",
    "Message:",
    inquiry.message,
    "",
    `Reply to ${inquiry.name} (a new message to them, without this email's links):`,
    reply,
    "",
    `Replying to this email reaches only ${opts.to}: its links act on this lead, so keep it inside the team.`,
    ...opts.links.flatMap((l) => ["", `${l.label} (${ACTION_EFFECT[l.action]}):`, l.url]),
  ].join("\n");
  const buttons = opts.links
    .map(
      (l) =>
        `<a href="${escapeHtml(l.url)}" style="display:inline-block;margin-right:8px;padding:6px 12px;border:1px solid #1e40af;border-radius:6px;color:#1e40af;text-decoration:none">${escapeHtml(l.label)}</a>`,
    )
    .join("");
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#0f172a">
${reminding.length > 0 ? `<p style="padding:8px;background:#fee2e2;color:#7f1d1d"><strong>${escapeHtml(reminding[0] ?? "")}</strong></p>\n` : ""}${inquiry.suspect ? `<p style="padding:8px;background:#fef3c7;color:#78350f"><strong>${escapeHtml(SUSPECT_NOTE)}</strong></p>\n` : ""}<p>A new inquiry arrived through the ${escapeHtml(site.name)} website.</p>
${replyBy ? `<p><strong>${escapeHtml(replyBy)}.</strong></p>\n` : ""}<table cellpadding="4" style="border-collapse:collapse">${rows
    .map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("")}</table>
<h2 style="font-size:16px">Message</h2>
<p style="white-space:pre-wrap">${escapeHtml(inquiry.message)}</p>
<p><a href="${escapeHtml(reply)}" style="display:inline-block;padding:6px 12px;border-radius:6px;background:#1e40af;color:#ffffff;text-decoration:none">Reply to ${escapeHtml(inquiry.name)}</a></p>
<p style="color:#475569;font-size:13px">A new message to them, without this email's links. Replying to this email reaches only ${escapeHtml(opts.to)}: its links act on this lead, so keep it inside the team.</p>
${buttons ? `<p>${buttons}</p>\n<p style="color:#475569;font-size:13px">${opts.links.map((l) => `${escapeHtml(l.label)}: ${escapeHtml(ACTION_EFFECT[l.action])}.`).join(" ")}</p>\n` : ""}</body></html>`;
  return {
    from: opts.from,
    to: opts.to,
    replyTo: opts.to,
    subject,
    text,
    html,
    messageId: reminder ? `<reminder-${inquiry.id}@${opts.siteHost}>` : messageIdFor(inquiry.id, opts.siteHost),
    headers: { "X-Inquiry-Id": inquiry.id, ...(reminder ? { "X-Reminder": "reply-promise" } : {}) },
  };
}

// A message whose connection closes under it fails (no requeue): the outbox retries it.
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer().then((n) =>
    n.createTransport({
      url,
      pool: true,
      maxConnections: 4,
      maxRequeues: 0,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    }),
  );
  return {
    async send(mail) {
      const info = await (await transport).sendMail(mail);
      const address = (a: string | { address: string }) => (typeof a === "string" ? a : a.address);
      return { accepted: info.accepted.length > 0, refused: info.rejected.map(address), detail: info.response };
    },
    // A send in flight fails at once (its delivery is given back or retried) instead of holding the stop.
    close: () => void transport.then((t) => t.close({ force: true })),
    describe: () => `SMTP ${new URL(url).host}`,
  };
}

export async function composeMail(mail: Mail): Promise<string> {
  composer ??= makeComposer();
  const info = await (await composer).sendMail(mail);
  return info.message.toString();
}
let composer: ReturnType<typeof makeComposer> | undefined;
const makeComposer = async () =>
  (await nodemailer()).createTransport({ streamTransport: true, buffer: true, newline: "windows" });

// Loaded with the first email, not before the first page (env.ts reads this module).
const nodemailer = async () => (await import("nodemailer")).default;

function fileMailer(dir: string): Mailer {
  mkdirSync(dir, { recursive: true });
  return {
    async send(mail, inquiryId) {
      const file = join(dir, `${inquiryId}.eml`);
      writeFileSync(`${file}.tmp`, await composeMail(mail));
      renameSync(`${file}.tmp`, file);
      return { accepted: true, refused: [], detail: file };
    },
    close: () => {},
    describe: () => `files in ${dir}`,
  };
}

const emails = z
  .string()
  .refine((v) => v.split(",").every((a) => z.email().safeParse(a.trim()).success), "email addresses, comma-separated");

const each = (lists: string[]) =>
  [...new Set(lists.flatMap((list) => list.split(",").map((a) => a.trim().toLowerCase())).filter(Boolean))].join(", ");

const inbox = (config: Config) => config.CONTACT_TO ?? site.email;
const sender = (config: Config) =>
  config.SMTP_FROM ?? `${site.name} Website <no-reply@${config.siteHost.replace(/^www\./, "")}>`;

const variables = {
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")
    .optional()
    .meta({
      description:
        "`smtp://user:pass@host:587` or `smtps://…`: the relay that delivers inquiry emails. Unset: each email is written as an `.eml` file under `DATA_DIR/mail/` and logged",
    }),
  SMTP_FROM: z
    .string()
    .refine(
      (v) => addressparser(v, { flatten: true }).some((a) => Boolean(a.address)),
      "a sender with an address, such as Teton Digital Website <no-reply@example.com>",
    )
    .optional()
    .meta({
      description:
        "the From address of inquiry emails; one without an address stops the server at start with a one-line error",
      shownDefault: "`Teton Digital Website <no-reply@…>` (the host of `SITE_URL`)",
    }),
  CONTACT_TO: z.email().optional().meta({
    description: "the company inbox inquiries go to",
    shownDefault: "the site email (`app/config/site.ts`)",
  }),
  LEAD_ESCALATION_TO: emails.optional().meta({
    description:
      "who else gets the reminder of a lead nobody took within the reply promise (comma-separated addresses), besides its route's recipients. See [The reply promise](operations.md#the-reply-promise)",
    shownDefault: "the general inbox (`CONTACT_TO`)",
  }),
};

export const email: ChannelDefinition<typeof variables> = {
  name: "email",
  variables,
  routeField: { key: "to", schema: emails },
  targetFor: (config, key) => (key === "default" ? undefined : config.routes[key]?.to) ?? inbox(config),
  hostsOf: (config) => (config.SMTP_URL ? [{ host: new URL(config.SMTP_URL).hostname, setting: "SMTP_URL" }] : []),
  deliveryId: (inquiryId, config) => messageIdFor(inquiryId, config.siteHost),
  create(config, links) {
    const mailer = config.SMTP_URL ? smtpMailer(config.SMTP_URL) : fileMailer(join(config.dataDir, "mail"));
    const addresses = { from: sender(config), to: inbox(config), siteHost: config.siteHost };
    const send = async (mail: Mail, id: string, detail?: string): Promise<Attempt> => {
      try {
        const result = await mailer.send(mail, id);
        if (!result.accepted) return { kind: "retry", reason: `relay did not accept the message: ${result.detail}` };
        const refused = result.refused.length ? result.refused : undefined;
        return { kind: "delivered", detail: detail ?? result.detail, refused };
      } catch (err) {
        const e = err as Error & { responseCode?: number; code?: string };
        const reason = e.message || String(err);
        const final = (e.responseCode ?? 0) >= 500 && (e.code === "EENVELOPE" || e.code === "EMESSAGE");
        return final ? { kind: "permanent", reason } : { kind: "retry", reason };
      }
    };
    return {
      name: "email",
      deliver: ({ inquiry, target }) =>
        send(buildMail(inquiry, { ...addresses, to: target, links: links.for(inquiry) }), inquiry.id),
      notify(kind, subject, text, inquiryIds, extra = {}) {
        const id = `alert-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
        // The digest goes to everyone who receives leads, and the escalation address.
        const routed = Object.values(config.routes).map((r) => r.to ?? "");
        const digest = [addresses.to, ...routed, config.LEAD_ESCALATION_TO ?? ""];
        const mail = {
          from: addresses.from,
          to: extra.to ?? (kind === "digest" ? each(digest) : addresses.to),
          replyTo: { name: site.name, address: addresses.to },
          subject: cutAt(subject, 200),
          text,
          // Links in the text (the morning digest's) are links in the HTML too.
          html: `<pre style="white-space:pre-wrap">${escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (u) => `<a href="${u}">${u}</a>`)}</pre>`,
          messageId: `<${id}@${config.siteHost}>`,
          // What retention and `forget` read to delete a copy written to DATA_DIR/mail (contact/erasure.ts).
          headers: { "X-Alert": kind, "X-Inquiry-Ids": inquiryIds.join(" ") },
          icalEvent: extra.calendar,
        };
        return send(mail, id);
      },
      remind(inquiry, target, reminder) {
        const to = each([target, config.LEAD_ESCALATION_TO ?? addresses.to]);
        const mail = buildMail(inquiry, { ...addresses, to, links: links.for(inquiry), reminder });
        return send(mail, `reminder-${inquiry.id}`, to);
      },
      describe: () => mailer.describe(),
      close: () => mailer.close(),
    };
  },
};
