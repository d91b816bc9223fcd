import type { ContactInput } from "../../../app/contact/schema.ts";
import type { AlertKind } from "../delivery/channel.ts";
import type { ReportKind } from "../review/reminders.ts";
import type { Sql } from "./database.ts";

export type Source = "api" | "form";
type DeliveryStatus = "pending" | "sending" | "sent" | "failed";

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
  /** The reply promise it was given at receipt (migration 007): review/promise.ts `promiseOf` reads them. */
  replyDueAt?: number | null;
  replyHours?: number | null;
};

export type SpamVerdict = "clean" | "suspect" | "held";
export const verdictOf = (i: Pick<Inquiry, "held" | "suspect">): SpamVerdict =>
  i.held ? "held" : i.suspect ? "suspect" : "clean";

export type DeliveryKind = "lead" | "reminder" | "at-risk" | ReportKind | AlertKind;

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

// Each field is its column's name in camelCase. A take and a reminder write the last three; the
// message's hash, for the duplicate check, is written and never read back.
const FIELDS = [
  [
    "id",
    "receivedAt",
    "name",
    "email",
    "company",
    "service",
    "message",
    "page",
    "userAgent",
    "ipHash",
    "source",
    "replyDueAt",
    "replyHours",
  ],
  ["held", "heldReason", "spamScore", "suspect", "takenAt", "takenBy", "remindedAt"],
].flat() as Array<keyof Inquiry>;
const column = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const FLAGS = new Set<keyof Inquiry>(["held", "suspect"]);

const DELIVERY_FIELDS = ["channel", "target", "status", "attempts", "lastError", "sentAt"] as const;

export const INQUIRY_COLUMNS = FIELDS.map((f) => `i.${column(f)}`).join(", ");
const DELIVERY_COLUMNS = DELIVERY_FIELDS.map((f) => `d.${column(f)}`).join(", ");
const toDelivery = (r: Record<string, unknown>) =>
  Object.fromEntries(DELIVERY_FIELDS.map((f) => [f, r[column(f)] ?? null])) as DeliveryRecord;

export const toInquiry = (r: Record<string, unknown>) =>
  Object.fromEntries(
    FIELDS.map((f) => [
      f,
      FLAGS.has(f) ? r[column(f)] === true || r[column(f)] === 1 : (r[column(f)] ?? null),
    ]),
  ) as Inquiry;

export const inquiryRow = (i: Inquiry) =>
  Object.fromEntries(
    [...FIELDS.slice(0, -3), "messageHash" as const].map((f) => [
      column(f),
      i[f] ?? (FLAGS.has(f) ? false : null),
    ]),
  );

function summarize(inquiry: Inquiry, deliveries: DeliveryRecord[]): InquiryRecord {
  const statuses = new Set(deliveries.map((d) => d.status));
  const status: InquiryRecord["status"] = inquiry.held
    ? "held"
    : ((["failed", "sent", "sending"] as const).find(
        (s) => statuses.has(s) && (s !== "sent" || statuses.size === 1),
      ) ?? "pending");
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

/** The inquiries a condition on `i` selects, newest first, each with its lead deliveries. */
export async function recordsWhere(
  sql: Sql,
  where: string,
  params: unknown[],
): Promise<InquiryRecord[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE ${where} ORDER BY i.received_at DESC, i.id`,
    params,
  );
  const deliveries = await sql.query(
    `SELECT d.inquiry_id, ${DELIVERY_COLUMNS} FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE d.kind = 'lead' AND ${where} ORDER BY d.channel`,
    params,
  );
  const byInquiry = Map.groupBy(deliveries, (d) => d.inquiry_id);
  return rows.map((r) => summarize(toInquiry(r), (byInquiry.get(r.id) ?? []).map(toDelivery)));
}
