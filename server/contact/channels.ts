import { Webhook } from "standardwebhooks";
import { site } from "../../app/config/site.ts";
import { escapeHtml } from "../../app/lib/escape.ts";
import { buildMail, type Mailer, messageIdFor } from "./mailer.ts";
import type { ChannelName, Job, NewInquiry } from "./store.ts";

/**
 * Where a lead goes: each configured channel gets every inquiry that is not held as spam, as its
 * own outbox delivery (docs/decisions/0006-delivery-channels.md).
 *
 * - email: the company inbox (always on; SMTP or .eml files).
 * - webhook: a JSON POST to WEBHOOK_URL, signed per Standard Webhooks (`standardwebhooks`), with a
 *   `webhook-id` that stays the same across retries so the receiver can de-duplicate.
 * - slack: a message to a Slack incoming webhook (SLACK_WEBHOOK_URL), every field as plain text.
 *
 * A channel answers each attempt with an outcome; the worker turns it into sent, a retry on the
 * shared backoff, or a permanent failure that is reported through the other channels.
 */

export type Outcome =
  | { kind: "delivered"; detail: string }
  | { kind: "retry"; reason: string; retryAfterMs?: number }
  | { kind: "permanent"; reason: string };

export interface Channel {
  readonly name: ChannelName;
  deliver(job: Job): Promise<Outcome>;
  /** A short operator alert (a delivery on another channel failed for good). Best effort. */
  notify(subject: string, text: string): Promise<void>;
  describe(): string;
  close?(): void;
}

// ---------------------------------------------------------------- email

export function emailChannel(mailer: Mailer, addresses: { from: string; to: string }): Channel {
  return {
    name: "email",
    async deliver(job) {
      try {
        const result = await mailer.send(buildMail(job.inquiry, addresses), job.inquiryId);
        if (!result.accepted) return { kind: "retry", reason: `relay did not accept the message: ${result.detail}` };
        return { kind: "delivered", detail: result.detail };
      } catch (err) {
        return { kind: "retry", reason: (err as Error).message || String(err) };
      }
    },
    async notify(subject, text) {
      const id = `alert-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
      const result = await mailer.send(
        {
          from: addresses.from,
          to: addresses.to,
          replyTo: { name: site.name, address: addresses.to },
          subject: subject.slice(0, 200),
          text,
          html: `<pre style="white-space:pre-wrap">${escapeHtml(text)}</pre>`,
          messageId: `<${id}@${new URL(site.url).hostname}>`,
          headers: { "X-Alert": "delivery-failed" },
        },
        id,
      );
      if (!result.accepted) throw new Error(result.detail);
    },
    describe: () => mailer.describe(),
    close: () => mailer.close(),
  };
}

// ---------------------------------------------------------------- HTTP channels

/**
 * What an HTTP answer means for a delivery: only 2xx is delivered; 408, 429 and 5xx are tried
 * again (429 and 503 after their Retry-After); any other 4xx — or a redirect — is the receiver
 * saying no, and is not hammered.
 */
export function classifyHttp(status: number, retryAfter: string | null, now = Date.now()): Outcome {
  if (status >= 200 && status < 300) return { kind: "delivered", detail: `HTTP ${status}` };
  const reason = `HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) {
    return { kind: "retry", reason, retryAfterMs: parseRetryAfter(retryAfter, now) };
  }
  if (status >= 300 && status < 400) return { kind: "permanent", reason: `${reason}: redirects are not followed` };
  return { kind: "permanent", reason };
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; at most a day. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 86_400_000) : undefined;
}

async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Outcome> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": `${site.name} website`, ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    return classifyHttp(res.status, res.headers.get("retry-after"));
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const reason =
      e.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ""}`;
    return { kind: "retry", reason };
  }
}

/** The inquiry as a webhook or alert receiver gets it: no address hash, nothing internal. */
export function inquiryPayload(inquiry: NewInquiry) {
  return {
    id: inquiry.id,
    receivedAt: new Date(inquiry.receivedAt).toISOString(),
    name: inquiry.name,
    email: inquiry.email,
    company: inquiry.company,
    service: inquiry.service,
    message: inquiry.message,
    page: inquiry.page,
    source: inquiry.source,
  };
}

export function webhookChannel(opts: { url: string; secret: string; timeoutMs: number }): Channel {
  const signer = new Webhook(opts.secret);
  const send = (id: string, payload: object) => {
    const body = JSON.stringify(payload);
    const timestamp = new Date();
    return post(
      opts.url,
      body,
      {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signer.sign(id, timestamp, body),
      },
      opts.timeoutMs,
    );
  };
  return {
    name: "webhook",
    deliver(job) {
      // Standard Webhooks' envelope: type, timestamp (of the event), data. Same id on every attempt.
      return send(job.messageId, {
        type: "inquiry.received",
        timestamp: new Date(job.inquiry.receivedAt).toISOString(),
        data: inquiryPayload(job.inquiry),
      });
    },
    async notify(subject, text) {
      const outcome = await send(`alert_${Date.now()}_${Math.random().toString(36).slice(2)}`, {
        type: "delivery.failed",
        timestamp: new Date().toISOString(),
        data: { subject, text },
      });
      if (outcome.kind !== "delivered") throw new Error(outcome.reason);
    },
    describe: () => `webhook ${new URL(opts.url).origin}`,
  };
}

/** Slack's markup has three control characters; escaped, a visitor's text cannot mention or link. */
export const escapeSlack = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function slackMessage(inquiry: NewInquiry) {
  const who = inquiry.company ? `${inquiry.name} (${inquiry.company})` : inquiry.name;
  const service = inquiry.service || "General";
  const plain = (text: string) => ({ type: "plain_text", text: text.slice(0, 2000) || "—", emoji: false });
  return {
    // The notification text, and the fallback where blocks are not shown: markup switched off, escaped.
    text: escapeSlack(`New inquiry: ${service} — ${who} <${inquiry.email}>`),
    mrkdwn: false,
    blocks: [
      { type: "header", text: plain(`New inquiry: ${service}`.slice(0, 150)) },
      {
        type: "section",
        fields: [
          plain(`Name: ${inquiry.name}`),
          plain(`Email: ${inquiry.email}`),
          plain(`Company: ${inquiry.company || "—"}`),
          plain(`Received: ${new Date(inquiry.receivedAt).toISOString()}`),
        ],
      },
      { type: "section", text: plain(inquiry.message.slice(0, 2900)) },
      { type: "context", elements: [plain(`Inquiry ${inquiry.id} · reply by email to ${inquiry.email}`)] },
    ],
  };
}

export function slackChannel(opts: { url: string; timeoutMs: number }): Channel {
  return {
    name: "slack",
    deliver(job) {
      return post(opts.url, JSON.stringify(slackMessage(job.inquiry)), {}, opts.timeoutMs);
    },
    async notify(subject, text) {
      const outcome = await post(
        opts.url,
        JSON.stringify({ text: escapeSlack(`${subject}\n${text}`), mrkdwn: false }),
        {},
        opts.timeoutMs,
      );
      if (outcome.kind !== "delivered") throw new Error(outcome.reason);
    },
    describe: () => "Slack incoming webhook",
  };
}

/** The id a channel's delivery carries on every attempt (email Message-ID, webhook-id). */
export function deliveryMessageId(channel: ChannelName, inquiryId: string): string {
  return channel === "email" ? messageIdFor(inquiryId) : `msg_${inquiryId}`;
}
