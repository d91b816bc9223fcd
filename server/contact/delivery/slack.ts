import { officeTime } from "../review/clock.ts";
import type { LeadLink } from "../review/links.ts";
import { replyByOf } from "../review/promise.ts";
import type { Inquiry } from "../storage/records.ts";
import { type ChannelDefinition, cutAt, receiver, receiverUrl } from "./channel.ts";
import { SUSPECT_MARK, SUSPECT_NOTE } from "./email.ts";

// Slack's markup has three control characters; escaped, a visitor's text cannot mention or link.
export const escapeSlack = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function slackMessage(inquiry: Inquiry, links: LeadLink[]) {
  const who = inquiry.company ? `${inquiry.name} (${inquiry.company})` : inquiry.name;
  const service = inquiry.service || "General";
  const mark = inquiry.suspect ? `${SUSPECT_MARK} ` : "";
  const replyBy = replyByOf(inquiry);
  // Slack's limits: 2,000 characters a field, 3,000 a section, 150 a header.
  const plain = (text: string, max = 2000) => ({
    type: "plain_text",
    text: cutAt(text, max, " … (cut: the whole message is in the email)") || "—",
    emoji: false,
  });
  // A button opens the signed link's page (a GET shows it; only the page's button acts).
  const button = (l: LeadLink) => ({
    type: "button",
    text: plain(l.label, 75),
    url: l.url,
    action_id: `lead-${l.action}`,
  });
  return {
    // The notification, and the fallback where blocks are not shown: markup off, escaped.
    text: escapeSlack(`${mark}New inquiry: ${service} — ${who} <${inquiry.email}>`),
    mrkdwn: false,
    blocks: [
      { type: "header", text: plain(`${mark}New inquiry: ${service}`, 150) },
      ...(inquiry.suspect ? [{ type: "section", text: plain(SUSPECT_NOTE) }] : []),
      {
        type: "section",
        fields: [
          plain(`Name: ${inquiry.name}`),
          plain(`Email: ${inquiry.email}`),
          plain(`Company: ${inquiry.company || "—"}`),
          plain(`Received: ${officeTime(inquiry.receivedAt)}`),
        ],
      },
      ...(replyBy ? [{ type: "section", text: plain(replyBy) }] : []),
      { type: "section", text: plain(inquiry.message, 3000) },
      {
        type: "context",
        elements: [plain(`Inquiry ${inquiry.id} · reply by email to ${inquiry.email}`)],
      },
      ...(links.length > 0 ? [{ type: "actions", elements: links.map(button) }] : []),
    ],
  };
}

const variables = { SLACK_WEBHOOK_URL: receiverUrl.optional() };

const slackReceiver = receiver("slack", "SLACK_WEBHOOK_URL");

export const slack: ChannelDefinition<typeof variables> = {
  name: "slack",
  variables,
  ...slackReceiver,
  create(config, links) {
    const send = (target: string, message: object) =>
      slackReceiver.post(config, target, JSON.stringify(message));
    return {
      name: "slack",
      deliver: ({ inquiry, target }) => send(target, slackMessage(inquiry, links.for(inquiry))),
      notify: (_kind, { subject, text, to }) =>
        send(to ?? "default", { text: escapeSlack(`${subject}\n${text}`), mrkdwn: false }),
      describe: () => "Slack incoming webhook",
    };
  },
};
