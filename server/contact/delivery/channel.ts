import { z } from "zod";
import { site } from "../../../app/config/site.ts";
import type { Config } from "../../config.ts";
import type { LeadLinks } from "../review/links.ts";
import { replyOf } from "../review/promise.ts";
import { type Delivery, type Inquiry, verdictOf } from "../storage/records.ts";

/**
 * What a delivery channel is (docs/decisions/0006, 0013): a module exporting one `ChannelDefinition`,
 * listed in delivery/channels.ts. A channel answers each attempt; the worker turns the answer into
 * sent, a retry, or a permanent failure.
 */

export type Attempt =
  | { kind: "delivered"; detail: string; refused?: string[] }
  | { kind: "retry"; reason: string; retryAfterMs?: number }
  | { kind: "permanent"; reason: string };

export type AlertKind = "delivery-failed" | "digest";

export interface Channel {
  readonly name: string;
  deliver(delivery: Delivery & { inquiry: Inquiry }): Promise<Attempt>;
  notify(kind: AlertKind, subject: string, text: string, inquiryIds: string[]): Promise<Attempt>;
  remind?(inquiry: Inquiry, target: string, reminder: { waited: string; promise: string }): Promise<Attempt>;
  report?(
    inquiry: Inquiry,
    target: string,
    event: { type: string; timestamp: string; data: object },
    id: string,
  ): Promise<Attempt>;
  describe(): string;
  close?(): void;
}

export type ChannelDefinition<Variables extends Record<string, z.ZodType> = Record<string, z.ZodType>> = {
  readonly name: string;
  readonly variables: Variables;
  check?(
    env: { CONTACT_ROUTES?: Record<string, Record<string, unknown>> } & Record<string, unknown>,
  ): string | undefined;
  readonly routeField: { key: string; schema: z.ZodType<string> };
  targetFor(config: Config, routeKey: string): string | undefined;
  hostsOf(config: Config): ChannelHost[];
  deliveryId?(inquiryId: string, config: Config): string;
  create(config: Config, links: LeadLinks): Channel;
};

export type ChannelHost = { host: string; setting: string };

export const cutAt = (text: string, max: number) => Array.from(text).slice(0, max).join("");

export const receiverUrl = z
  .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
  .refine(
    (u) => !new URL(u).username && !new URL(u).password,
    "no user:password@ in the URL (use a secret path or token)",
  );

export function receiverTarget(config: Config, routeKey: string, field: string, general: string | undefined) {
  if (routeKey !== "default" && config.routes[routeKey]?.[field]) return routeKey;
  return general ? "default" : undefined;
}

export function receiverHosts(config: Config, field: string, variable: string, general: string | undefined) {
  const hosts: ChannelHost[] = general ? [{ host: new URL(general).hostname, setting: variable }] : [];
  for (const [route, r] of Object.entries(config.routes)) {
    const own = r?.[field];
    if (own) hosts.push({ host: new URL(own).hostname, setting: `CONTACT_ROUTES[${JSON.stringify(route)}].${field}` });
  }
  return hosts;
}

export function receiverUrlOf(config: Config, target: string, field: string, general: string | undefined) {
  const own = target !== "default" ? config.routes[target]?.[field] : undefined;
  return own ?? general;
}

/**
 * What an HTTP answer means for a delivery: only 2xx is delivered; 408, 429 and 5xx are tried
 * again (429 and 503 after their Retry-After), and so are 401 and 403 (a receiver whose secret is
 * being rotated refuses the signature until it has the new one: tried until the retry window ends);
 * any other 4xx — or a redirect — is the receiver saying no, and is not hammered.
 */
export function classifyHttp(status: number, retryAfter: string | null, now = Date.now()): Attempt {
  if (status >= 200 && status < 300) return { kind: "delivered", detail: `HTTP ${status}` };
  const reason = `HTTP ${status}`;
  if (status === 401 || status === 403 || status === 408 || status === 429 || status >= 500) {
    return { kind: "retry", reason, retryAfterMs: parseRetryAfter(retryAfter, now) };
  }
  if (status >= 300 && status < 400) return { kind: "permanent", reason: `${reason}: redirects are not followed` };
  return { kind: "permanent", reason };
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 86_400_000) : undefined;
}

export const DELIVERY_TIMEOUT_MS = 10_000;

export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Attempt> {
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

/**
 * The inquiry as a webhook receiver gets it: no address hash, nothing internal; what the spam
 * defence made of it (`spam.verdict`: clean or suspect), the reply promise (`reply`: the business
 * hours promised, when they are up, and — in the later events — who took it, when, and whether in time), and the signed links that fit (`links.take`, `links.spam`, `links.release`).
 */
export function inquiryPayload(inquiry: Inquiry, links: LeadLinks) {
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
    spam: { verdict: verdictOf(inquiry), score: inquiry.spamScore ?? null },
    reply: replyOf(inquiry, Date.now()),
    links: Object.fromEntries(links.for(inquiry).map((l) => [l.action, l.url])),
  };
}
