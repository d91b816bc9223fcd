import { site } from "../../../app/config/site.ts";
import { timeOrderedId } from "../intake/ids.ts";
import type { ChannelName, Delivery, Inquiry, NewDelivery } from "../storage/records.ts";
import { messageIdFor } from "./email.ts";
import type { Target } from "./routing.ts";

/**
 * Where a lead goes: each configured channel (email, always on; webhook; Slack) gets every inquiry
 * not held as spam, as its own outbox delivery (docs/decisions/0006). A channel answers each attempt;
 * the worker turns the answer into sent, a retry, or a permanent failure.
 */

export type Attempt =
  | { kind: "delivered"; detail: string }
  | { kind: "retry"; reason: string; retryAfterMs?: number }
  | { kind: "permanent"; reason: string };

export interface Channel {
  readonly name: ChannelName;
  deliver(delivery: Delivery): Promise<Attempt>;
  /** A short operator alert (a delivery on another channel failed for good). Best effort. */
  notify(subject: string, text: string): Promise<void>;
  describe(): string;
}

/**
 * What an HTTP answer means for a delivery: only 2xx is delivered; 408, 429 and 5xx are tried
 * again (429 and 503 after their Retry-After); any other 4xx — or a redirect — is the receiver
 * saying no, and is not hammered.
 */
export function classifyHttp(status: number, retryAfter: string | null, now = Date.now()): Attempt {
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

/** The inquiry as a webhook or alert receiver gets it: no address hash, nothing internal. */
export function inquiryPayload(inquiry: Inquiry) {
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

/** An inquiry's deliveries, one per target, each with the id it carries on every attempt (email Message-ID, webhook-id). */
export function newDeliveries(targets: Target[], inquiryId: string, now = Date.now()): NewDelivery[] {
  return targets.map(({ channel, target }) => ({
    id: timeOrderedId(now),
    channel,
    target,
    messageId: channel === "email" ? messageIdFor(inquiryId) : `msg_${inquiryId}`,
  }));
}
