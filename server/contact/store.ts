import type { ContactInput } from "../../app/contact/schema.ts";
import type { Database } from "./db.ts";
import { InquiryIntake } from "./store-intake.ts";
import { OperatorQueries } from "./store-operator.ts";
import { DeliveryQueue } from "./store-outbox.ts";

/**
 * Inquiries and their email jobs. Every write that acknowledges a visitor happens in one transaction:
 * the inquiry, its outbox job and the idempotency answer are stored together or not at all.
 */

export type Source = "api" | "form";
export type JobStatus = "pending" | "sending" | "sent" | "failed";
export const CHANNELS = ["email", "webhook", "slack"] as const;
export type ChannelName = (typeof CHANNELS)[number];

export type NewInquiry = ContactInput & {
  id: string;
  receivedAt: number;
  page: string | null;
  userAgent: string | null;
  ipHash: string | null;
  source: Source;
  spam: boolean;
  /** Why it is held out of the inbox (spam: true), for the person who reviews it. */
  heldReason?: string | null;
  /** Hash of the normalized message, to notice the same message sent again. */
  messageHash?: string | null;
};

export type Answer = { status: number; body: Record<string, unknown> };
/** A stored answer for an idempotency key, with the fingerprint of the message it answered (null: stored before fingerprints). */
export type StoredAnswer = Answer & { fingerprint: string | null };

/** One delivery of one inquiry to one channel, claimed by a worker. */
export type Job = {
  id: string;
  inquiryId: string;
  channel: ChannelName;
  messageId: string;
  attempts: number;
  createdAt: number;
  inquiry: NewInquiry;
};

export type DeliveryRecord = {
  channel: ChannelName;
  status: JobStatus;
  attempts: number;
  lastError: string | null;
  sentAt: number | null;
};

export type InquiryRecord = NewInquiry & {
  /** All channels sent: sent; any failed: failed; else pending (sending counts as pending). Spam: spam. */
  status: JobStatus | "spam";
  /** The most attempts any channel took. */
  attempts: number;
  lastError: string | null;
  /** When the last channel was delivered, once all are. */
  sentAt: number | null;
  deliveries: DeliveryRecord[];
};

export type NewDelivery = { id: string; channel: ChannelName; messageId: string };

/** What is stored with an inquiry besides itself. */
export type SaveFields = {
  answer: Answer;
  idempotencyKey?: string;
  /** What identifies the message for its idempotency key (a repeat with another message is refused). */
  fingerprint?: string;
  deliveries?: NewDelivery[];
};

export type SaveResult =
  | { duplicate: true; previous: StoredAnswer }
  | { duplicate: false; answer: Answer }
  /** Over a rate limit: nothing stored; the limit frees up in `retryAfterMs`. */
  | { duplicate: false; refused: true; retryAfterMs: number };

export type AtOnceOptions = SaveFields & {
  limits: Array<{ key: string; points: number; durationMs: number }>;
  now: number;
};
export type AtOnceResult = SaveResult;
export type SavedRow = {
  prior?: { status: number; body: string; fingerprint: string | null };
  blocked_until?: number;
  stored?: boolean;
};

/**
 * The contact pipeline's tables, by job: what a submission writes (`intake`), what the outbox
 * worker claims and marks (`outbox`), and what operators and reports read and change (`operator`).
 */
export class Store {
  readonly db: Database;
  readonly intake: InquiryIntake;
  readonly outbox: DeliveryQueue;
  readonly operator: OperatorQueries;
  constructor(db: Database) {
    this.db = db;
    this.intake = new InquiryIntake(db);
    this.outbox = new DeliveryQueue(db);
    this.operator = new OperatorQueries(db);
  }
}
