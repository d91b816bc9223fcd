import type { ContactInput } from "../../../app/contact/schema.ts";

/** What the contact tables hold, as records, and the columns they are read from. */

export type Source = "api" | "form";
export type DeliveryStatus = "pending" | "sending" | "sent" | "failed";

export type Inquiry = ContactInput & {
  id: string;
  receivedAt: number;
  page: string | null;
  userAgent: string | null;
  ipHash: string | null;
  source: Source;
  /** Held out of the inbox as suspected spam (column `held`). */
  held: boolean;
  /** Why it is held, for the person who reviews it. */
  heldReason?: string | null;
  /** Hash of the normalized message, to notice the same text sent again. */
  messageHash?: string | null;
  /** The content filter's probability that it is marketing spam (intake/content-filter.ts); null if not scored. */
  spamScore?: number | null;
  /** Delivered marked as possible spam (the band below the hold: intake/pipeline.ts). */
  suspect?: boolean;
  /** When someone first pressed "I'm on it" (review/actions.ts), and the name they gave, if any. */
  takenAt?: number | null;
  takenBy?: string | null;
  /** When its reminder went (review/reminders.ts). */
  remindedAt?: number | null;
};

/** What the spam defence made of an inquiry, as the CLI and the channels say it. */
export type SpamVerdict = "clean" | "suspect" | "held";
export const verdictOf = (i: Pick<Inquiry, "held" | "suspect">): SpamVerdict =>
  i.held ? "held" : i.suspect ? "suspect" : "clean";

/** What a delivery is: a lead, its reminder, a report to a webhook, an alert (storage/outbox.ts). */
export type DeliveryKind =
  | "lead"
  | "reminder"
  | "inquiry.taken"
  | "inquiry.reminded"
  | "delivery-failed"
  | "held-summary";

/** A row of the outbox, claimed by a worker; an alert's `payload` is its words (JSON), its inquiry null for the held summary. */
export type Delivery = {
  id: string;
  inquiryId: string | null;
  kind: string;
  channel: string;
  messageId: string;
  /** Where it goes on its channel (delivery/routing.ts). */
  target: string;
  payload: string | null;
  attempts: number;
  createdAt: number;
  inquiry: Inquiry | null;
};

export type DeliveryRecord = {
  channel: string;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  sentAt: number | null;
};

export type InquiryRecord = Inquiry & {
  verdict: SpamVerdict;
  /** All channels sent: sent; any failed: failed; else pending (sending counts as pending). Held: held. */
  status: DeliveryStatus | "held";
  /** The most attempts any channel took. */
  attempts: number;
  lastError: string | null;
  /** When the last channel was delivered, once all are. */
  sentAt: number | null;
  deliveries: DeliveryRecord[];
};

export type NewDelivery = {
  id: string;
  channel: string;
  messageId: string;
  target: string;
  kind?: DeliveryKind;
  payload?: string;
  /** When it is due (default: now). */
  at?: number;
};

export const DELIVERY_COLUMNS = "d.channel, d.target, d.status, d.attempts, d.last_error, d.sent_at";

export function toDelivery(r: Record<string, unknown>): DeliveryRecord {
  return {
    channel: r.channel as string,
    target: String(r.target),
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts ?? 0),
    lastError: (r.last_error as string | null) ?? null,
    sentAt: r.sent_at == null ? null : Number(r.sent_at),
  };
}

export const INQUIRY_COLUMNS =
  "i.id, i.received_at, i.name, i.email, i.company, i.service, i.message, i.page, i.user_agent, i.ip_hash, i.source, i.held, i.held_reason, i.spam_score, i.suspect, i.taken_at, i.taken_by, i.reminded_at";

export function toInquiry(r: Record<string, unknown>): Inquiry {
  return {
    id: String(r.id),
    receivedAt: Number(r.received_at),
    name: String(r.name),
    email: String(r.email),
    company: String(r.company),
    service: String(r.service),
    message: String(r.message),
    page: (r.page as string | null) ?? null,
    userAgent: (r.user_agent as string | null) ?? null,
    ipHash: (r.ip_hash as string | null) ?? null,
    source: r.source as Source,
    held: r.held === true || r.held === 1,
    heldReason: (r.held_reason as string | null) ?? null,
    spamScore: r.spam_score == null ? null : Number(r.spam_score),
    suspect: r.suspect === true || r.suspect === 1,
    takenAt: r.taken_at == null ? null : Number(r.taken_at),
    takenBy: (r.taken_by as string | null) ?? null,
    remindedAt: r.reminded_at == null ? null : Number(r.reminded_at),
  };
}

export function summarize(inquiry: Inquiry, deliveries: DeliveryRecord[]): InquiryRecord {
  const statuses = deliveries.map((d) => d.status);
  const status: InquiryRecord["status"] = inquiry.held
    ? "held"
    : statuses.includes("failed")
      ? "failed"
      : statuses.length > 0 && statuses.every((s) => s === "sent")
        ? "sent"
        : statuses.includes("sending")
          ? "sending"
          : "pending";
  const unsent = deliveries.filter((d) => d.status !== "sent");
  return {
    ...inquiry,
    verdict: verdictOf(inquiry),
    status,
    attempts: Math.max(0, ...deliveries.map((d) => d.attempts)),
    lastError: unsent.find((d) => d.lastError)?.lastError ?? null,
    sentAt: status === "sent" ? Math.max(...deliveries.map((d) => d.sentAt ?? 0)) : null,
    deliveries,
  };
}
