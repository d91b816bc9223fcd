import type { Database } from "./db.ts";
import type { ChannelName, DeliveryRecord, InquiryRecord, JobStatus, NewInquiry, Source } from "./store.ts";

/** Rows to records, the columns they are read from, and a write outside a transaction: shared by the store's parts. */

export const DELIVERY_COLUMNS = "d.channel, d.status, d.attempts, d.last_error, d.sent_at";

export function toDelivery(r: Record<string, unknown>): DeliveryRecord {
  return {
    channel: r.channel as ChannelName,
    status: r.status as JobStatus,
    attempts: Number(r.attempts ?? 0),
    lastError: (r.last_error as string | null) ?? null,
    sentAt: r.sent_at == null ? null : Number(r.sent_at),
  };
}

export const INQUIRY_COLUMNS =
  "i.id, i.received_at, i.name, i.email, i.company, i.service, i.message, i.page, i.user_agent, i.ip_hash, i.source, i.spam, i.held_reason";

export function toInquiry(r: Record<string, unknown>): NewInquiry {
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
    spam: r.spam === true || r.spam === 1,
    heldReason: (r.held_reason as string | null) ?? null,
  };
}

export function summarize(inquiry: NewInquiry, deliveries: DeliveryRecord[]): InquiryRecord {
  const statuses = deliveries.map((d) => d.status);
  const status: InquiryRecord["status"] = inquiry.spam
    ? "spam"
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
    status,
    attempts: Math.max(0, ...deliveries.map((d) => d.attempts)),
    lastError: unsent.find((d) => d.lastError)?.lastError ?? null,
    sentAt: status === "sent" ? Math.max(...deliveries.map((d) => d.sentAt ?? 0)) : null,
    deliveries,
  };
}

/** One write outside a caller's transaction: on SQLite it joins the group commit (one fsync for many). */
export function writeOnce(db: Database, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  return db.engine === "sqlite" ? db.transaction((tx) => tx.query(sql, params)) : db.query(sql, params);
}
