import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SendMailOptions as Mail } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser";
import { z } from "zod";
import { site } from "../../../app/config/site.ts";
import { ACTION_EFFECT, ACTION_LABEL } from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { officeTime } from "../review/clock.ts";
import type { LeadLink } from "../review/links.ts";
import { replyByOf } from "../review/promise.ts";
import type { Inquiry } from "../storage/records.ts";
import { type Attempt, type ChannelDefinition, cutAt, type Reminder } from "./channel.ts";
import { buttons, heading, note, page, para, quote, rows, textPage } from "./layout.ts";

/**
 * The email a lead becomes, plain text and HTML with every field escaped. It carries the lead's
 * signed links, and a reply quotes them, so Reply-To is the email's own recipients and answering the
 * visitor is a new message (`replyLink`).
 */

/** The lead's own links as buttons, then what each does: the lead email, the booking request, the digest. */
export const leadButtons = (links: LeadLink[]) =>
  links.length === 0
    ? ""
    : [
        buttons(links, { quietFirst: true }),
        para(links.map((l) => `${l.label}: ${ACTION_EFFECT[l.action]}.`).join(" "), {
          muted: true,
        }),
      ].join("\n");

export const replyLink = (inquiry: Pick<Inquiry, "email">) =>
  `mailto:${inquiry.email.replace(/[^A-Za-z0-9@._+-]/g, (c) => encodeURIComponent(c))}?subject=${encodeURIComponent(`Re: Your inquiry to ${site.name}`)}`;

export const SUSPECT_MARK = "[Possible spam]";
export const SUSPECT_NOTE =
  "Possible spam: the filter is not sure this is a person's inquiry. Tell it with a link below: either click teaches it.";

type MailOptions = {
  from: string;
  to: string;
  messageId: string;
  links: LeadLink[];
  reminder?: Reminder;
};

export function buildMail(
  inquiry: Inquiry,
  { from, to, messageId, links, reminder }: MailOptions,
): Mail {
  const who = inquiry.company ? `${inquiry.name} (${inquiry.company})` : inquiry.name;
  const mark = inquiry.suspect ? `${SUSPECT_MARK} ` : "";
  const again = reminder ? `Nobody has taken this lead for ${reminder.waited}: ` : "";
  // Single-line fields only (the schema refuses CR and LF): no header can be slipped in.
  const subject = cutAt(
    `${again}${mark}New inquiry: ${inquiry.service || "General"} — ${who}`,
    200,
  );
  const replyBy = replyByOf(inquiry);
  const fields: Array<[string, string]> = [
    ["Name", inquiry.name],
    ["Email", inquiry.email],
    ["Company", inquiry.company || "—"],
    ["Service", inquiry.service || "—"],
    ["Received", officeTime(inquiry.receivedAt)],
    ["Page", inquiry.page ?? "—"],
    ["Inquiry ID", inquiry.id],
  ];
  const reminding =
    reminder &&
    `Reminder: this lead has waited ${reminder.waited} of business time and nobody has pressed "${ACTION_LABEL.take}". We promise visitors a reply within ${reminder.promise}. If you are answering it, press "${ACTION_LABEL.take}" below so the others know.`;
  const reply = replyLink(inquiry);
  const text = [
    ...[reminding, inquiry.suspect && SUSPECT_NOTE].flatMap((note) => (note ? [note, ""] : [])),
    `A new inquiry arrived through the ${site.name} website.`,
    "",
    ...(replyBy ? [`${replyBy}.`, ""] : []),
    ...fields.map(([k, v]) => `${k}: ${v}`),
    "",
    "Message:",
    inquiry.message,
    "",
    `Reply to ${inquiry.name} (a new message to them, without this email's links):`,
    reply,
    "",
    `Replying to this email reaches only ${to}: its links act on this lead, so keep it inside the team.`,
    ...links.flatMap((l) => ["", `${l.label} (${ACTION_EFFECT[l.action]}):`, l.url]),
  ].join("\n");
  const html = page(subject, [
    reminding ? note(reminding, "alert") : "",
    inquiry.suspect ? note(SUSPECT_NOTE, "warn") : "",
    para(`A new inquiry arrived through the ${site.name} website.`),
    replyBy ? para(`${replyBy}.`, { strong: true }) : "",
    rows(fields),
    heading("Message"),
    quote(inquiry.message),
    buttons([{ label: `Reply to ${inquiry.name}`, url: reply }]),
    para(
      `A new message to them, without this email's links. Replying to this email reaches only ${to}: its links act on this lead, so keep it inside the team.`,
      { muted: true },
    ),
    leadButtons(links),
  ]);
  const headers = {
    "X-Inquiry-Id": inquiry.id,
    ...(reminder ? { "X-Reminder": "reply-promise" } : {}),
  };
  return { from, to, replyTo: to, subject, text, html, messageId, headers };
}

// Loaded with the first email, not before the first page (env.ts reads this module).
const nodemailer = async () => (await import("nodemailer")).default;

export async function composeMail(mail: Mail): Promise<string> {
  const composer = (await nodemailer()).createTransport({
    streamTransport: true,
    buffer: true,
    newline: "windows",
  });
  return (await composer.sendMail(mail)).message.toString();
}

// A message whose connection closes under it fails (no requeue): the outbox retries it.
export function smtpMailer(url: string) {
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
    send: async (mail: Mail) => (await transport).sendMail(mail),
    // A send in flight fails at once (its delivery is given back or retried) instead of holding the stop.
    close: () => void transport.then((t) => t.close({ force: true })),
  };
}

const emails = z
  .string()
  .refine(
    (v) => v.split(",").every((a) => z.email().safeParse(a.trim()).success),
    "email addresses, comma-separated",
  );

const each = (lists: string[]) =>
  [
    ...new Set(
      lists.flatMap((list) => list.split(",").map((a) => a.trim().toLowerCase())).filter(Boolean),
    ),
  ].join(", ");

export const inbox = (config: Config) => config.CONTACT_TO ?? site.email;

const variables = {
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")
    .optional(),
  SMTP_FROM: z
    .string()
    .refine(
      (v) => addressparser(v, { flatten: true }).some((a) => Boolean(a.address)),
      "a sender with an address, such as Teton Digital Website <no-reply@example.com>",
    )
    .optional(),
  CONTACT_TO: z.email().optional(),
  LEAD_ESCALATION_TO: emails.optional(),
  WEEKLY_FIGURES_TO: emails.optional(),
};

export const email: ChannelDefinition<typeof variables> = {
  name: "email",
  variables,
  routeField: { key: "to", schema: emails },
  targetFor: (config, key) =>
    (key === "default" ? undefined : config.routes[key]?.to) ?? inbox(config),
  hostsOf: (config) =>
    config.SMTP_URL ? [{ host: new URL(config.SMTP_URL).hostname, setting: "SMTP_URL" }] : [],
  // From the inquiry: every attempt carries one Message-ID, so mail clients fold duplicates.
  deliveryId: (inquiryId, config) => `<inquiry-${inquiryId}@${config.siteHost}>`,
  create(config, links) {
    const smtp = config.SMTP_URL ? smtpMailer(config.SMTP_URL) : undefined;
    const dir = join(config.dataDir, "mail");
    const from =
      config.SMTP_FROM ??
      `${site.name} Website <no-reply@${config.siteHost.replace(/^www\./, "")}>`;
    const addresses = { from, to: inbox(config) };
    const send = async (mail: Mail, id: string, detail?: string): Promise<Attempt> => {
      try {
        // No relay: a file under DATA_DIR/mail, so no lead is lost.
        if (!smtp) {
          const file = join(dir, `${id}.eml`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(`${file}.tmp`, await composeMail(mail));
          renameSync(`${file}.tmp`, file);
          return { kind: "delivered", detail: detail ?? file };
        }
        const info = await smtp.send(mail);
        if (info.accepted.length === 0)
          return { kind: "retry", reason: `relay did not accept the message: ${info.response}` };
        const refused = info.rejected.map((a: string | { address: string }) =>
          typeof a === "string" ? a : a.address,
        );
        return {
          kind: "delivered",
          detail: detail ?? info.response,
          refused: refused.length ? refused : undefined,
        };
      } catch (err) {
        const e = err as Error & { responseCode?: number; code?: string };
        const reason = e.message || String(err);
        // A 5xx to the envelope or the message (550 unknown recipient) is the relay's final word; a
        // refused login (a password being fixed), a 4xx or a lost connection is tried again.
        const final =
          (e.responseCode ?? 0) >= 500 && (e.code === "EENVELOPE" || e.code === "EMESSAGE");
        return final ? { kind: "permanent", reason } : { kind: "retry", reason };
      }
    };
    return {
      name: "email",
      deliver({ inquiry, target, messageId }, reminder) {
        const to = reminder ? each([target, config.LEAD_ESCALATION_TO ?? addresses.to]) : target;
        const mail = buildMail(inquiry, {
          ...addresses,
          to,
          messageId,
          links: links.for(inquiry),
          reminder,
        });
        return reminder ? send(mail, `reminder-${inquiry.id}`, to) : send(mail, inquiry.id);
      },
      notify(kind, { subject, text, html, inquiryIds, to, calendar }, id) {
        const routed = Object.values(config.routes).map((r) => r.to ?? "");
        const digest = [addresses.to, ...routed, config.LEAD_ESCALATION_TO ?? ""];
        const mail = {
          from,
          to: to ?? (kind === "digest" ? each(digest) : addresses.to),
          replyTo: { name: site.name, address: addresses.to },
          subject: cutAt(subject, 200),
          text,
          // A notice written as text alone (and one queued before notices had HTML) is laid out as it is.
          html: html ?? textPage(subject, text),
          messageId: `<${id}@${config.siteHost}>`,
          // What retention and `forget` read to delete a copy written to DATA_DIR/mail (contact/erasure.ts).
          headers: { "X-Alert": kind, "X-Inquiry-Ids": inquiryIds.join(" ") },
          icalEvent: calendar,
        };
        return send(mail, id);
      },
      describe: () =>
        config.SMTP_URL ? `SMTP ${new URL(config.SMTP_URL).host}` : `files in ${dir}`,
      close: () => smtp?.close(),
    };
  },
};
