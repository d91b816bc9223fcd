import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "pino";
import { type ContactInput, type FieldErrors, HONEYPOT_FIELD, validateContact } from "../../app/contact/schema.ts";
import { type AddressHasher, addressHasher, loadAddressSecret } from "./address-hash.ts";
import { jsonAnswer } from "./answers.ts";
import { type Channel, deliveryMessageId, emailChannel, slackChannel, webhookChannel } from "./channels.ts";
import type { ContactConfig } from "./config.ts";
import { type Database, logStorageTransitions, openDatabase } from "./db.ts";
import { type FormTokens, formTokens } from "./form-token.ts";
import { timeOrderedId } from "./ids.ts";
import { fileMailer, type Mailer, smtpMailer } from "./mailer.ts";
import type { ContactMetrics, InquiryOutcome } from "./metrics.ts";
import { OutboxWorker } from "./outbox.ts";
import { spamReasons } from "./spam.ts";
import {
  type Answer,
  type ChannelName,
  type NewInquiry,
  type SaveFields,
  type Source,
  Store,
  type StoredAnswer,
} from "./store.ts";

/**
 * The contact pipeline, one for both doors (the JSON endpoint and the no-JavaScript form post):
 * validate → honeypot → in one transaction: rate limit, store inquiry + email job → answer.
 * The answer is only ever a success after the inquiry is durably stored.
 */

export type Submission = {
  body: unknown;
  source: Source;
  /** The token of the page the message was sent from (server/contact/form-token.ts). */
  formToken?: string;
  idempotencyKey?: string;
  ip?: string;
  userAgent?: string;
  page?: string;
};

/**
 * What became of a submission, in the pipeline's terms; each door turns it into its own answer
 * (http.ts: JSON and a status; the form's action in app/routes/contact.tsx: a page).
 */
export type Outcome =
  /** Stored (and, unless held as suspected spam, queued for delivery). */
  | { kind: "stored"; id: string; held: boolean }
  /** Its Idempotency-Key was seen with this message before: the first answer, again. */
  | { kind: "duplicate"; first: Answer }
  /** Its Idempotency-Key was seen with another message: nothing stored. */
  | { kind: "key-reused" }
  /** Not a valid message: what is wrong, per field. */
  | { kind: "invalid"; error: string; fields: FieldErrors }
  /** Over a rate limit: nothing stored. */
  | { kind: "rate-limited"; retryAfterSeconds: number };

/** What takes a submission: the pipeline, as the two doors (the JSON endpoint, the form's action) see it. */
export interface Submitter {
  submit(submission: Submission): Promise<Outcome>;
}

export class ContactPipeline implements Submitter {
  readonly store: Store;
  readonly worker: OutboxWorker;
  private readonly log: Logger;
  private readonly hasher: AddressHasher;
  private readonly limits: LimitSpec[];
  private readonly channels: ChannelName[];
  private readonly metrics?: ContactMetrics;
  private readonly tokens: FormTokens;
  private readonly spam: ContactConfig["spam"];

  constructor(deps: {
    store: Store;
    worker: OutboxWorker;
    log: Logger;
    hasher: AddressHasher;
    /** The rate limits, each counted per address (`address`) or per network (`network`). */
    limits: LimitSpec[];
    channels: ChannelName[];
    metrics?: ContactMetrics;
    tokens: FormTokens;
    spam: ContactConfig["spam"];
  }) {
    this.tokens = deps.tokens;
    this.spam = deps.spam;
    this.limits = deps.limits;
    this.store = deps.store;
    this.worker = deps.worker;
    this.log = deps.log;
    this.hasher = deps.hasher;
    this.channels = deps.channels;
    this.metrics = deps.metrics;
  }

  async submit(s: Submission): Promise<Outcome> {
    const outcome = await this.receive(s);
    this.metrics?.inquiry(s.source, metricOf(outcome));
    return outcome;
  }

  private async receive(s: Submission): Promise<Outcome> {
    const body = (typeof s.body === "object" && s.body !== null && !Array.isArray(s.body) ? { ...s.body } : s.body) as
      | Record<string, unknown>
      | unknown;
    let trap = "";
    if (typeof body === "object" && body !== null && HONEYPOT_FIELD in body) {
      const record = body as Record<string, unknown>;
      trap = typeof record[HONEYPOT_FIELD] === "string" ? (record[HONEYPOT_FIELD] as string).trim() : "x";
      delete record[HONEYPOT_FIELD];
    }

    const valid = validateContact(body);
    if (!valid.ok) return { kind: "invalid", error: valid.error, fields: valid.fields };
    const fingerprint = fingerprintOf(valid.data);

    // A replayed key answers as the first time, without counting against the rate limit; the same
    // key with another message is a client's mistake (422), never a silently dropped message.
    // (PostgreSQL: checked inside the one statement that stores the submission, below.)
    if (s.idempotencyKey && this.store.db.engine !== "postgres") {
      const previous = await this.store.intake.answerFor(s.idempotencyKey);
      if (previous) return replay(previous, fingerprint);
    }

    const hashes = this.hasher.hashes(s.ip);
    const ipHash = hashes?.address ?? null;

    // Spam layers: any reason holds the inquiry (stored, answered as usual, delivered nowhere).
    const now = Date.now();
    const messageHash = createHash("sha256")
      .update(valid.data.message.toLowerCase().replace(/\s+/g, " ").trim())
      .digest("hex");
    const reasons = this.spam.filter
      ? spamReasons({
          data: valid.data,
          trap,
          token: this.tokens.verify(s.formToken, now),
          duplicate: await this.store.intake.seenMessage(messageHash, now - 86_400_000),
          policy: {
            requireToken: true,
            minFillMs: this.spam.minFillMs,
            maxTokenAgeMs: this.spam.maxTokenAgeMs,
            maxLinks: this.spam.maxLinks,
          },
        })
      : trap
        ? ["honeypot filled"]
        : [];

    const receivedAt = Date.now();
    const id = timeOrderedId(receivedAt);
    const spam = reasons.length > 0;
    // The JSON door's answer, kept with the Idempotency-Key: a repeat gets exactly this again.
    const { headers: _none, ...answer } = jsonAnswer({ kind: "stored", id, held: spam });
    const save = (inquiry: NewInquiry, fields: SaveFields) => {
      const opts = { ...fields, limits: this.limitsFor(hashes), now };
      // PostgreSQL: batched with concurrent submissions, one round trip and one commit for the batch;
      // SQLite: one transaction in the group commit. The same rules (docs/decisions/0006-delivery-channels-and-observability.md).
      return this.store.db.engine === "postgres"
        ? this.store.intake.saveAtOnce(inquiry, opts)
        : this.store.intake.save(inquiry, opts);
    };
    const result = await save(
      {
        ...valid.data,
        id,
        receivedAt,
        page: s.page?.slice(0, 500) ?? null,
        userAgent: s.userAgent?.slice(0, 500) ?? null,
        ipHash,
        source: s.source,
        spam,
        heldReason: spam ? reasons.join("; ") : null,
        messageHash,
      },
      {
        answer,
        idempotencyKey: s.idempotencyKey,
        fingerprint,
        // Held as spam: stored, answered like any other, delivered nowhere.
        deliveries: spam
          ? []
          : this.channels.map((channel) => ({
              id: timeOrderedId(receivedAt),
              channel,
              messageId: deliveryMessageId(channel, id),
            })),
      },
    );
    if (result.duplicate) return replay(result.previous, fingerprint);
    if ("refused" in result) return rateLimited(result.retryAfterMs);
    if (spam) this.log.info({ inquiryId: id, source: s.source, reasons }, "inquiry held as suspected spam");
    else this.log.info({ inquiryId: id, source: s.source }, "inquiry stored");
    if (!spam) this.worker.nudge();
    return { kind: "stored", id, held: spam };
  }

  /** The counters this submission is counted against: its address's and its network's. */
  private limitsFor(hashes: AddressHashes | null) {
    if (!hashes) return [];
    return this.limits.map((l) => ({
      ...l,
      key: `${l.prefix}:${l.per === "address" ? hashes.address : hashes.network}`,
    }));
  }
}

type AddressHashes = { address: string; network: string };

const rateLimited = (retryAfterMs: number): Outcome => ({
  kind: "rate-limited",
  retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
});

/** A limit: at most `points` submissions per `durationMs` for one key (the rate_limits table). */
type LimitSpec = { prefix: string; per: "address" | "network"; points: number; durationMs: number };

function metricOf(outcome: Outcome): InquiryOutcome {
  switch (outcome.kind) {
    case "stored":
      return outcome.held ? "held" : "stored";
    case "duplicate":
      return "stored";
    case "invalid":
      return "invalid";
    case "rate-limited":
      return "rate_limited";
    case "key-reused":
      return "refused";
  }
}

/** What makes two submissions "the same message" for an idempotency key: the validated fields. */
function fingerprintOf(data: ContactInput): string {
  const { name, email, company, service, message } = data;
  return createHash("sha256")
    .update(JSON.stringify([name, email, company, service, message]))
    .digest("hex");
}

/** The first answer for a key, unless the key comes back with another message. */
function replay(previous: StoredAnswer, fingerprint: string): Outcome {
  if (previous.fingerprint && previous.fingerprint !== fingerprint) return { kind: "key-reused" };
  return { kind: "duplicate", first: { status: previous.status, body: previous.body } };
}

/** Open the database, apply migrations, and assemble the pipeline with its outbox worker. */
export async function createContactPipeline(
  config: ContactConfig,
  log: Logger,
  opts: { db?: Database; mailer?: Mailer; metrics?: ContactMetrics; tokens?: FormTokens } = {},
): Promise<{ pipeline: ContactPipeline; db: Database; mailer: Mailer; close: () => Promise<void> }> {
  const db = opts.db ?? openDatabase(config, logStorageTransitions(log));
  try {
    return await assemble(config, log, db, opts.mailer, opts.metrics, opts.tokens);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(
  config: ContactConfig,
  log: Logger,
  db: Database,
  givenMailer?: Mailer,
  metrics?: ContactMetrics,
  givenTokens?: FormTokens,
) {
  const applied = await db.migrate();
  if (applied.length > 0) log.info({ applied }, "database migrations applied");
  if (config.databaseUrl && !config.ipHashKey) {
    log.warn(
      "IP_HASH_KEY is not set: this instance hashes addresses with its own key file, so instances sharing this database do not share rate limits",
    );
  }
  const store = new Store(db);
  const mailer =
    givenMailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl) : fileMailer(join(config.dataDir, "mail")));
  // Counted in table rate_limits (migration 006), keyed "prefix:hash" as rate-limiter-flexible once kept them.
  const limits: LimitSpec[] = [
    { prefix: "contact_min", per: "address", points: config.rateLimit.perMinute, durationMs: 60_000 },
    { prefix: "contact_day", per: "address", points: config.rateLimit.perDay, durationMs: 86_400_000 },
    { prefix: "contact_net_min", per: "network", points: config.rateLimit.networkPerMinute, durationMs: 60_000 },
  ];
  const channels: Channel[] = [emailChannel(mailer, { from: config.mailFrom, to: config.mailTo })];
  if (config.webhook) channels.push(webhookChannel({ ...config.webhook, timeoutMs: config.deliveryTimeoutMs }));
  if (config.slack) channels.push(slackChannel({ ...config.slack, timeoutMs: config.deliveryTimeoutMs }));
  const secret = loadAddressSecret(config);
  const worker = new OutboxWorker({
    store,
    channels,
    log,
    options: config.outbox,
    metrics,
    heldSummaryIntervalMs: config.spam.summaryIntervalMs,
  });
  metrics?.watchOutbox(store);
  const pipeline = new ContactPipeline({
    store,
    worker,
    log,
    hasher: addressHasher(secret),
    tokens: givenTokens ?? formTokens(secret),
    spam: config.spam,
    channels: channels.map((c) => c.name),
    metrics,
    limits,
  });
  log.info({ storage: db.describe(), channels: channels.map((c) => c.describe()) }, "contact pipeline ready");
  return {
    pipeline,
    db,
    mailer,
    async close() {
      await worker.stop();
      mailer.close();
      await db.close();
    },
  };
}
