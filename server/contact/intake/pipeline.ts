import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { type ContactInput, type FieldErrors, HONEYPOT_FIELD, validateContact } from "../../../app/contact/schema.ts";
import type { Config } from "../../config.ts";
import { destinationsFor, newDeliveries, type Routing } from "../delivery/routing.ts";
import type { OutboxWorker } from "../delivery/worker.ts";
import type { ContactMetrics, InquiryOutcome } from "../metrics.ts";
import type { Database } from "../storage/database.ts";
import { countAgainst, type KeyRecord, type Limit, save, seenMessage } from "../storage/inquiries.ts";
import type { Source } from "../storage/records.ts";
import type { AddressHasher } from "./address-hash.ts";
import { type ContentFilter, reasonOf } from "./content-filter.ts";
import type { FormTokens } from "./form-token.ts";
import { timeOrderedId } from "./ids.ts";
import { spamReasons } from "./spam.ts";

/**
 * The contact pipeline, one for both doors (the JSON endpoint and the no-JavaScript form post):
 * validate → spam layers → in one transaction: idempotency key, rate limits, inquiry and its
 * deliveries → outcome. A success is only ever reported after the inquiry is durably stored.
 */

export type Submission = {
  body: unknown;
  source: Source;
  /** The token of the page the message was sent from (intake/form-token.ts). */
  formToken?: string;
  /** Sent by a page of an origin in ALLOWED_ORIGINS (another site's app, which has no form token to send). */
  fromAllowedOrigin?: boolean;
  idempotencyKey?: string;
  ip?: string;
  userAgent?: string;
  page?: string;
};

/**
 * The page a message was sent from, as stored, emailed and posted: its path only. A query or a
 * fragment (campaign tags, an email address in a URL) and the host are never kept.
 */
function pathOf(page: string | undefined): string | null {
  if (!page) return null;
  let path: string;
  try {
    path = new URL(page, "http://x").pathname;
  } catch {
    return null;
  }
  return path.slice(0, 500);
}

/**
 * What became of a submission; each door renders it (http/endpoint.ts: JSON and a status; the
 * form's action in app/routes/contact.tsx: a page).
 */
export type Outcome =
  /** Stored (and, unless held as suspected spam, queued for delivery). */
  | { kind: "stored"; id: string; held: boolean }
  /** Its Idempotency-Key was used with this message before: that inquiry, stored once. */
  | { kind: "replayed"; id: string }
  /** Its Idempotency-Key was used with another message: nothing stored. */
  | { kind: "key-reused" }
  /** Not a valid message: what is wrong, per field. */
  | { kind: "invalid"; error: string; fields: FieldErrors }
  /** Over a rate limit: nothing stored. */
  | { kind: "rate-limited"; retryAfterSeconds: number };

/** What takes a submission: the pipeline, as the two doors see it. */
export interface Submitter {
  submit(submission: Submission): Promise<Outcome>;
}

/** A rate limit: at most `points` submissions per `durationMs`, per address or per network. */
export type LimitSpec = { prefix: string; per: "address" | "network"; points: number; durationMs: number };

export type PipelineParts = {
  db: Database;
  worker: OutboxWorker;
  log: Logger;
  hasher: AddressHasher;
  limits: LimitSpec[];
  /** Where each service line's leads go (delivery/routing.ts). */
  routing: Routing;
  metrics?: ContactMetrics;
  tokens: FormTokens;
  /** The spam layers' switch and thresholds, and what newDeliveries needs. */
  config: Config;
  /** The content layer (intake/content-filter.ts). */
  content: ContentFilter;
  /** When a submission is received (default the process's clock): a test's own. */
  clock?: () => number;
};

export class ContactPipeline implements Submitter {
  readonly db: Database;
  readonly worker: OutboxWorker;
  private readonly parts: PipelineParts;

  constructor(parts: PipelineParts) {
    this.parts = parts;
    this.db = parts.db;
    this.worker = parts.worker;
  }

  async submit(s: Submission): Promise<Outcome> {
    const outcome = await this.receive(s);
    this.parts.metrics?.inquiry(s.source, metricOf(outcome));
    return outcome;
  }

  private async receive(s: Submission): Promise<Outcome> {
    const { body, trap } = withoutHoneypot(s.body);
    const valid = validateContact(body);
    if (!valid.ok) return { kind: "invalid", error: valid.error, fields: valid.fields };
    const now = (this.parts.clock ?? Date.now)();
    const messageHash = createHash("sha256")
      .update(valid.data.message.toLowerCase().replace(/\s+/g, " ").trim())
      .digest("hex");
    const { reasons, score, suspect } = await this.spamReasonsFor(valid.data, trap, s, messageHash, now);
    const held = reasons.length > 0;
    const id = timeOrderedId(now);
    const fingerprint = fingerprintOf(valid.data);
    const hashes = await this.parts.hasher.hashes(s.ip, now);
    const result = await save(this.db, {
      inquiry: {
        ...valid.data,
        id,
        receivedAt: now,
        page: pathOf(s.page),
        userAgent: s.userAgent?.slice(0, 500) ?? null,
        ipHash: hashes?.address ?? null,
        source: s.source,
        held,
        heldReason: held ? reasons.join("; ") : null,
        messageHash,
        spamScore: score,
        suspect: !held && suspect,
      },
      // Held as spam: stored, answered like any other, delivered nowhere.
      deliveries: held
        ? []
        : newDeliveries(
            destinationsFor(this.parts.routing, valid.data.service),
            { id, receivedAt: now },
            this.parts.config,
            now,
          ),
      limits: this.limitsFor(hashes),
      idempotency: s.idempotencyKey ? { key: s.idempotencyKey, fingerprint } : undefined,
    });
    if (result.kind === "key-seen") return replay(result.first, fingerprint);
    if (result.kind === "over-limit") {
      return { kind: "rate-limited", retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
    }
    if (held) this.parts.log.info({ inquiryId: id, source: s.source, reasons }, "inquiry held as suspected spam");
    else {
      this.parts.log.info(
        { inquiryId: id, source: s.source, verdict: suspect ? "suspect" : "clean" },
        "inquiry stored",
      );
      this.worker.nudge();
    }
    return { kind: "stored", id, held };
  }

  /**
   * The spam layers (intake/spam.ts) and the content layer (intake/content-filter.ts): any reason
   * holds the inquiry; a content score in the band below the hold marks it as possible spam. A page
   * of an allowed origin cannot send a form token: its absence weighs in the score (NO_TOKEN_LOG2_ODDS)
   * instead of holding. Off: only the honeypot holds, and nothing is scored.
   */
  private async spamReasonsFor(data: ContactInput, trap: string, s: Submission, hash: string, now: number) {
    const { config, tokens, content } = this.parts;
    if (config.SPAM_FILTER === "off") return { reasons: trap ? ["honeypot filled"] : [], score: null, suspect: false };
    const tokenless = !s.formToken && s.fromAllowedOrigin === true;
    const reasons = spamReasons({
      data,
      trap,
      token: tokenless ? null : await tokens.verify(s.formToken, now),
      duplicate: await seenMessage(this.db, hash, now - 86_400_000),
      policy: config,
    });
    await content.refresh(now);
    const score = content.score(data, tokenless ? NO_TOKEN_LOG2_ODDS : 0);
    if (score >= config.SPAM_HOLD_SCORE) reasons.push(reasonOf(score, content.evidence(data)));
    return { reasons, score, suspect: score >= config.SPAM_SUSPECT_SCORE };
  }

  /**
   * Count one action of a client (a press on a lead's page: review/page.ts) against `specs`, by the
   * rule and in the table every submission is counted in: seconds until it may act again, or null.
   */
  async overLimit(ip: string | undefined, specs: LimitSpec[], now = Date.now()): Promise<number | null> {
    const limits = this.limitsOf(specs, await this.parts.hasher.hashes(ip, now));
    const until = limits.length > 0 ? await countAgainst(this.db, limits, now) : null;
    return until === null ? null : Math.max(1, Math.ceil((until - now) / 1000));
  }

  /** The counters this submission is counted against: its address's and its network's. */
  private limitsFor(hashes: Awaited<ReturnType<AddressHasher["hashes"]>>): Limit[] {
    return this.limitsOf(this.parts.limits, hashes);
  }

  private limitsOf(specs: LimitSpec[], hashes: Awaited<ReturnType<AddressHasher["hashes"]>>): Limit[] {
    if (!hashes) return [];
    return specs.map((l) => ({
      key: `${l.prefix}:${l.per === "address" ? hashes.address : hashes.network}`,
      points: l.points,
      durationMs: l.durationMs,
    }));
  }
}

/**
 * How much a missing form token from an allowed origin weighs toward spam: its odds times √2. On the
 * calibrated score (ADR 0022) times 4 marked 18% of genuine inquiries of unseen kinds; √2 marks 5%.
 */
export const NO_TOKEN_LOG2_ODDS = 0.5;

/** The body without the honeypot field, and what was in that field (a person leaves it empty). */
function withoutHoneypot(body: unknown): { body: unknown; trap: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !(HONEYPOT_FIELD in body)) {
    return { body, trap: "" };
  }
  const { [HONEYPOT_FIELD]: trap, ...rest } = body as Record<string, unknown>;
  return { body: rest, trap: typeof trap === "string" ? trap.trim() : "x" };
}

/**
 * The idempotency rule: a key used before answers with the inquiry it stored the first time,
 * counting and storing nothing; the same key with another message is a client's mistake (422),
 * never a silently dropped message.
 */
function replay(first: KeyRecord, fingerprint: string): Outcome {
  if (first.fingerprint && first.fingerprint !== fingerprint) return { kind: "key-reused" };
  return { kind: "replayed", id: first.inquiryId };
}

/** What makes two submissions "the same message" for an idempotency key: the validated fields. */
function fingerprintOf(data: ContactInput): string {
  const { name, email, company, service, message } = data;
  return createHash("sha256")
    .update(JSON.stringify([name, email, company, service, message]))
    .digest("hex");
}

/** How each outcome is counted in contact_inquiries_total (a replay counts as the stored message it is). */
const METRIC: Record<Outcome["kind"], InquiryOutcome> = {
  stored: "stored",
  replayed: "stored",
  invalid: "invalid",
  "rate-limited": "rate_limited",
  "key-reused": "refused",
};
const metricOf = (o: Outcome): InquiryOutcome => (o.kind === "stored" && o.held ? "held" : METRIC[o.kind]);
