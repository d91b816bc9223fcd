import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { type FieldErrors, HONEYPOT_FIELD, validateContact } from "../../../app/contact/schema.ts";
import type { Config } from "../../config.ts";
import { DAY_MS } from "../../time.ts";
import { cutAt } from "../delivery/channel.ts";
import { newDeliveries, type Routing } from "../delivery/routing.ts";
import type { OutboxWorker } from "../delivery/worker.ts";
import type { KeyRing } from "../keys.ts";
import type { ContactMetrics, InquiryOutcome } from "../metrics.ts";
import { type Promised, promisedAt } from "../review/promise.ts";
import type { Database } from "../storage/database.ts";
import { countAgainst, type Limit, save } from "../storage/inquiries.ts";
import type { Source } from "../storage/records.ts";
import { addressHashes } from "./address-hash.ts";
import type { ContentFilter } from "./content-filter.ts";
import type { FormTokens } from "./form-token.ts";
import { timeOrderedId } from "./ids.ts";
import { spamVerdict } from "./spam.ts";

/**
 * The contact pipeline, one for both doors (the JSON endpoint and the no-JavaScript form post). A
 * success is only ever reported after the inquiry, its deliveries and its limits are stored in one
 * transaction. The page a message was sent from is kept as its path only: a query, a fragment or the
 * host may carry what is not ours to keep. An Idempotency-Key used again answers with the inquiry it
 * first stored; with another message it is the client's mistake (422), never a silently dropped one.
 */

export type Submission = {
  body: unknown;
  source: Source;
  formToken?: string;
  fromAllowedOrigin?: boolean;
  idempotencyKey?: string;
  ip?: string;
  userAgent?: string;
  page?: string;
};

const pathOf = (page: string | undefined) =>
  page ? cutAt(URL.parse(page, "http://x")?.pathname ?? "", 500) || null : null;

export type Outcome =
  | { kind: "stored"; id: string; held: boolean; booking?: string }
  | { kind: "replayed"; id: string; booking?: string }
  | { kind: "key-reused" }
  | { kind: "invalid"; error: string; fields: FieldErrors }
  | { kind: "rate-limited"; retryAfterSeconds: number };

export type Submitter = Pick<ContactPipeline, "submit">;

export type LimitSpec = {
  prefix: string;
  per: "address" | "network";
  points: number;
  durationMs: number;
};

export type ContactPipeline = ReturnType<typeof contactPipeline>;

export function contactPipeline(parts: {
  db: Database;
  worker: OutboxWorker;
  log: Logger;
  ring: KeyRing;
  routing: Routing;
  metrics?: ContactMetrics;
  tokens: FormTokens;
  config: Config;
  content: ContentFilter;
  clock?: () => number;
  facts?: Promised;
}) {
  const { db, config } = parts;
  const limits: LimitSpec[] = [
    {
      prefix: "contact_min",
      per: "address",
      points: config.RATE_LIMIT_PER_MINUTE,
      durationMs: 60_000,
    },
    {
      prefix: "contact_day",
      per: "address",
      points: config.RATE_LIMIT_PER_DAY,
      durationMs: DAY_MS,
    },
    {
      prefix: "contact_net_min",
      per: "network",
      points: config.RATE_LIMIT_NETWORK_PER_MINUTE,
      durationMs: 60_000,
    },
  ];
  const limitsOf = (
    specs: LimitSpec[],
    hashes: Awaited<ReturnType<typeof addressHashes>>,
  ): Limit[] =>
    hashes ? specs.map(({ prefix, per, ...l }) => ({ key: `${prefix}:${hashes[per]}`, ...l })) : [];

  async function receive(s: Submission): Promise<Outcome> {
    const { body, trap } = withoutHoneypot(s.body);
    const valid = validateContact(body);
    if (!valid.ok) return { kind: "invalid", error: valid.error, fields: valid.fields };
    const now = (parts.clock ?? Date.now)();
    const messageHash = sha256(valid.data.message.toLowerCase().replace(/\s+/g, " ").trim());
    const { reasons, score, suspect } = await spamVerdict(
      parts,
      { ...s, data: valid.data, trap, messageHash },
      now,
    );
    const held = reasons.length > 0;
    const id = timeOrderedId(now);
    const { name, email, company, service, message } = valid.data;
    const fingerprint = sha256(JSON.stringify([name, email, company, service, message]));
    const hashes = await addressHashes(parts.ring, s.ip, now);
    const result = await save(db, {
      inquiry: {
        ...valid.data,
        id,
        receivedAt: now,
        page: pathOf(s.page),
        userAgent: s.userAgent ? cutAt(s.userAgent, 500) : null,
        ipHash: hashes?.address ?? null,
        source: s.source,
        held,
        heldReason: held ? reasons.join("; ") : null,
        messageHash,
        spamScore: score,
        suspect: !held && suspect,
        // Its "Reply by", as its email will say it: changing the office hours later moves it no more.
        ...promisedAt(now, parts.facts),
      },
      deliveries: held
        ? []
        : newDeliveries(parts.routing, { id, receivedAt: now, service }, config, now),
      limits: limitsOf(limits, hashes),
      idempotency: s.idempotencyKey ? { key: s.idempotencyKey, fingerprint } : undefined,
    });
    if (result.kind === "key-seen") {
      const { first } = result;
      return first.fingerprint && first.fingerprint !== fingerprint
        ? { kind: "key-reused" }
        : { kind: "replayed", id: first.inquiryId };
    }
    if (result.kind === "over-limit")
      return { kind: "rate-limited", retryAfterSeconds: seconds(result.retryAfterMs) };
    const logged = { inquiryId: id, source: s.source };
    if (held) parts.log.info({ ...logged, reasons }, "inquiry held as suspected spam");
    else {
      parts.log.info({ ...logged, verdict: suspect ? "suspect" : "clean" }, "inquiry stored");
      parts.worker.nudge();
    }
    return { kind: "stored", id, held };
  }

  return {
    db,
    worker: parts.worker,
    async submit(s: Submission): Promise<Outcome> {
      const outcome = await receive(s);
      parts.metrics?.inquiry(s.source, metricOf(outcome));
      return outcome;
    },
    /** The keyed hashes of a client's address and network, as the limits count them (the booking's holds too). */
    addressHashes: (ip: string | undefined, now: number) => addressHashes(parts.ring, ip, now),
    // A press on a lead's page, counted by the submissions' rule and table: seconds to wait, or null.
    async overLimit(
      ip: string | undefined,
      specs: LimitSpec[],
      now: number,
    ): Promise<number | null> {
      const limits = limitsOf(specs, await addressHashes(parts.ring, ip, now));
      const until = limits.length > 0 ? await countAgainst(db, limits, now) : null;
      return until === null ? null : seconds(until - now);
    },
  };
}

function withoutHoneypot(body: unknown): { body: unknown; trap: string } {
  if (typeof body !== "object" || body === null || !(HONEYPOT_FIELD in body))
    return { body, trap: "" };
  const { [HONEYPOT_FIELD]: trap, ...rest } = body as Record<string, unknown>;
  return { body: rest, trap: typeof trap === "string" ? trap.trim() : "x" };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const METRIC: Record<Exclude<Outcome["kind"], "stored">, InquiryOutcome> = {
  replayed: "stored",
  "rate-limited": "rate_limited",
  "key-reused": "refused",
  invalid: "invalid",
};
const metricOf = (o: Outcome): InquiryOutcome =>
  o.kind === "stored" ? (o.held ? "held" : "stored") : METRIC[o.kind];
