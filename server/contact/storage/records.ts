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
  held: boolean;
  heldReason?: string | null;
  messageHash?: string | null;
  spamScore?: number | null;
  suspect?: boolean;
  takenAt?: number | null;
  takenBy?: string | null;
  remindedAt?: number | null;
};

export type SpamVerdict = "clean" | "suspect" | "held";
export const verdictOf = (i: Pick<Inquiry, "held" | "suspect">): SpamVerdict =>
  i.held ? "held" : i.suspect ? "suspect" : "clean";

export type DeliveryKind = "lead" | "reminder" | "inquiry.taken" | "inquiry.reminded" | "delivery-failed" | "digest";

export type Delivery = {
  id: string;
  inquiryId: string | null;
  kind: string;
  channel: string;
  messageId: string;
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
  status: DeliveryStatus | "held";
  attempts: number;
  lastError: string | null;
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
