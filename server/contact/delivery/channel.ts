import { z } from "zod";
import { site } from "../../../app/config/site.ts";
import type { Config } from "../../config.ts";
import { DAY_MS } from "../../time.ts";
import type { LeadLinks } from "../review/links.ts";
import { replyOf } from "../review/promise.ts";
import { type Delivery, type Inquiry, verdictOf } from "../storage/records.ts";

/**
 * What a delivery channel is (docs/decisions/0006, 0013): a module exporting one `ChannelDefinition`,
 * listed in delivery/channels.ts. Over HTTP only 2xx is delivered; 401 and 403 are tried again like
 * 408, 429 and 5xx (a receiver whose secret is being rotated refuses the signature until it has the
 * new one); any other 4xx, or a redirect, is the receiver saying no, and is not hammered.
 */

export type Reminder = { waited: string; promise: string };
/** The deliveries that are notices (`notify`): their words are in the payload, not an inquiry's. */
export const ALERT_KINDS = [
  "delivery-failed",
  "digest",
  "weekly-numbers",
  "booking",
  "booking-visitor",
  "booking-unanswered",
  "calendar-unread",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
/**
 * `to` names another route (Slack) or address (email); `calendar`, an iCalendar part for email;
 * `html`, the email's HTML part (delivery/layout.ts), else the text is laid out as it is.
 */
export type Notice = {
  subject: string;
  text: string;
  html?: string;
  inquiryIds: string[];
  to?: string;
  calendar?: { method: string; content: string };
};

export type Attempt =
  | { kind: "delivered"; detail: string; refused?: string[] }
  | { kind: "retry"; reason: string; retryAfterMs?: number }
  | { kind: "permanent"; reason: string };

export interface Channel {
  readonly name: string;
  /** With `reminder`, the lead again because nobody took it (email alone queues reminders). */
  deliver(delivery: Delivery & { inquiry: Inquiry }, reminder?: Reminder): Promise<Attempt>;
  /** `id` stays the same on every attempt, so duplicates fold (a webhook's `webhook-id`, an email's Message-ID). */
  notify(kind: AlertKind | "at-risk", notice: Notice, id: string): Promise<Attempt>;
  report?(
    target: string,
    event: { type: string; timestamp: string; data: object },
    id: string,
  ): Promise<Attempt>;
  describe(): string;
  close?(): void;
}

export type ChannelDefinition<
  Variables extends Record<string, z.ZodType> = Record<string, z.ZodType>,
> = {
  readonly name: string;
  readonly variables: Variables;
  check?(
    env: { CONTACT_ROUTES?: Record<string, Record<string, unknown>> } & Record<string, unknown>,
  ): string | undefined;
  readonly routeField: { key: string; schema: z.ZodType<string> };
  targetFor(config: Config, routeKey: string): string | undefined;
  hostsOf(config: Config): Array<{ host: string; setting: string }>;
  deliveryId?(inquiryId: string, config: Config): string;
  create(config: Config, links: LeadLinks): Channel;
};

// The one way text is cut: by characters, never inside one; `mark` (within `max`) says it was.
export function cutAt(text: string, max: number, mark = "") {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - Array.from(mark).length).join("") + mark;
}

/** A line a person typed into a page (a name, a note), as it may go into an email: one line, cut. */
export const oneLine = (given: string | undefined, max: number, mark = "") =>
  cutAt((given ?? "").replace(/[\s\p{Cc}\p{Cf}]+/gu, " ").trim(), max, mark);

// No user:password in a receiver's URL: it would end in logs and alerts.
export const receiverUrl = z
  .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
  .refine(
    (u) => !new URL(u).username && !new URL(u).password,
    "no user:password@ in the URL (use a secret path or token)",
  );

// An HTTP receiver's general URL (`variable`) and each route's own (`field` in CONTACT_ROUTES): a
// delivery's target is the route key or "default", posted to the route's URL, else the general one.
export function receiver(field: string, variable: "SLACK_WEBHOOK_URL" | "WEBHOOK_URL") {
  const own = (config: Config, key: string) =>
    key !== "default" ? config.routes[key]?.[field] : undefined;
  return {
    routeField: { key: field, schema: receiverUrl },
    targetFor: (config: Config, key: string) =>
      own(config, key) ? key : config[variable] ? "default" : undefined,
    hostsOf: (config: Config) => [
      ...(config[variable]
        ? [{ host: new URL(config[variable]).hostname, setting: variable }]
        : []),
      ...Object.entries(config.routes).flatMap(([route, r]) =>
        r?.[field]
          ? [
              {
                host: new URL(r[field]).hostname,
                setting: `CONTACT_ROUTES[${JSON.stringify(route)}].${field}`,
              },
            ]
          : [],
      ),
    ],
    async post(
      config: Config,
      target: string,
      body: string,
      headers: Record<string, string> = {},
    ): Promise<Attempt> {
      const url = own(config, target) ?? config[variable];
      if (!url)
        return { kind: "permanent", reason: "no receiver URL for this route on this server" };
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": `${site.name} website`,
            ...headers,
          },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(config.DELIVERY_TIMEOUT_MS),
        });
        await res.body?.cancel().catch(() => undefined);
        return classifyHttp(res.status, res.headers.get("retry-after"));
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        if (e.name === "TimeoutError")
          return { kind: "retry", reason: `no answer within ${config.DELIVERY_TIMEOUT_MS} ms` };
        return {
          kind: "retry",
          reason: e.cause?.code ? `${e.message} (${e.cause.code})` : e.message,
        };
      }
    },
  };
}

export function classifyHttp(status: number, retryAfter: string | null): Attempt {
  const reason = `HTTP ${status}`;
  if (status >= 200 && status < 300) return { kind: "delivered", detail: reason };
  if ([401, 403, 408, 429].includes(status) || status >= 500)
    return { kind: "retry", reason, retryAfterMs: parseRetryAfter(retryAfter) };
  return {
    kind: "permanent",
    reason: status < 400 ? `${reason}: redirects are not followed` : reason,
  };
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, DAY_MS) : undefined;
}

// The inquiry as a webhook receiver gets it: nothing internal (no address hash).
export function inquiryPayload(inquiry: Inquiry, links: LeadLinks) {
  const { id, receivedAt, name, email, company, service, message, page, source, spamScore } =
    inquiry;
  return {
    ...{
      id,
      receivedAt: new Date(receivedAt).toISOString(),
      name,
      email,
      company,
      service,
      message,
      page,
      source,
    },
    spam: { verdict: verdictOf(inquiry), score: spamScore ?? null },
    reply: replyOf(inquiry, Date.now()),
    links: Object.fromEntries(links.for(inquiry).map((l) => [l.action, l.url])),
  };
}
