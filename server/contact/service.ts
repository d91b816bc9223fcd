import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "pino";
import { RateLimiterRes } from "rate-limiter-flexible";
import { type ContactInput, HONEYPOT_FIELD, validateContact } from "../../app/contact/schema.ts";
import { type AddressHasher, addressHasher, loadAddressSecret } from "./address-hash.ts";
import type { ContactConfig } from "./config.ts";
import { type Database, logStorageTransitions, openDatabase, type RateLimiterLike } from "./db.ts";
import { fileMailer, type Mailer, messageIdFor, smtpMailer } from "./mailer.ts";
import { OutboxWorker } from "./outbox.ts";
import { type Answer, type Source, Store, type StoredAnswer } from "./store.ts";

/**
 * The contact pipeline, one for both doors (the JSON endpoint and the no-JavaScript form post):
 * validate → honeypot → in one transaction: rate limit, store inquiry + email job → answer.
 * The answer is only ever a success after the inquiry is durably stored.
 */

export type Submission = {
  body: unknown;
  source: Source;
  idempotencyKey?: string;
  ip?: string;
  userAgent?: string;
  page?: string;
};

export type SubmitResult = Answer & { headers?: Record<string, string> };

export interface ContactService {
  submit(submission: Submission): Promise<SubmitResult>;
}

export const SUCCESS_MESSAGE = "Thank you. Your message has been received.";

export class ContactPipeline implements ContactService {
  readonly store: Store;
  readonly worker: OutboxWorker;
  private readonly log: Logger;
  private readonly hasher: AddressHasher;
  private readonly limiters: Limiters;

  constructor(deps: { store: Store; worker: OutboxWorker; log: Logger; hasher: AddressHasher; limiters: Limiters }) {
    this.store = deps.store;
    this.worker = deps.worker;
    this.log = deps.log;
    this.hasher = deps.hasher;
    this.limiters = deps.limiters;
  }

  async submit(s: Submission): Promise<SubmitResult> {
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
    if (!valid.ok) return { status: 400, body: { error: valid.error, fields: valid.fields } };
    const fingerprint = fingerprintOf(valid.data);

    // A replayed key answers as the first time, without counting against the rate limit; the same
    // key with another message is a client's mistake (422), never a silently dropped message.
    if (s.idempotencyKey) {
      const previous = await this.store.answerFor(s.idempotencyKey);
      if (previous) return replay(previous, fingerprint);
    }

    const hashes = this.hasher.hashes(s.ip);
    const ipHash = hashes?.address ?? null;

    const id = randomUUID();
    const spam = trap !== "";
    const answer: Answer = { status: 201, body: { ok: true, id, message: SUCCESS_MESSAGE } };
    const result = await this.store.save(
      {
        ...valid.data,
        id,
        receivedAt: Date.now(),
        page: s.page?.slice(0, 500) ?? null,
        userAgent: s.userAgent?.slice(0, 500) ?? null,
        ipHash,
        source: s.source,
        spam,
      },
      {
        answer,
        idempotencyKey: s.idempotencyKey,
        fingerprint,
        job: spam ? undefined : { id: randomUUID(), messageId: messageIdFor(id) },
        // Inside the transaction: on SQLite the counters share the inquiry's commit.
        guard: () => this.rateLimit(hashes),
      },
    );
    if (result.duplicate) return replay(result.previous, fingerprint);
    if (result.refused) return result.answer;
    this.log.info({ inquiryId: id, source: s.source, spam }, spam ? "inquiry stored as spam" : "inquiry stored");
    if (!spam) this.worker.nudge();
    return answer;
  }

  private async rateLimit(hashes: { address: string; network: string } | null): Promise<SubmitResult | null> {
    if (!hashes) return null;
    const checks: Array<[RateLimiterLike, string]> = [
      [this.limiters.perMinute, hashes.address],
      [this.limiters.perDay, hashes.address],
      [this.limiters.networkPerMinute, hashes.network],
    ];
    for (const [limiter, key] of checks) {
      try {
        await limiter.consume(key);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        return {
          status: 429,
          body: { error: "Too many messages from your network. Please try again later or email us directly." },
          headers: { "Retry-After": String(seconds) },
        };
      }
    }
    return null;
  }
}

type Limiters = { perMinute: RateLimiterLike; perDay: RateLimiterLike; networkPerMinute: RateLimiterLike };

/** What makes two submissions "the same message" for an idempotency key: the validated fields. */
function fingerprintOf(data: ContactInput): string {
  const { name, email, company, service, message } = data;
  return createHash("sha256")
    .update(JSON.stringify([name, email, company, service, message]))
    .digest("hex");
}

export const KEY_REUSED =
  "This Idempotency-Key was already used with a different message. Use a new key for a new message.";

/** The first answer for a key, or 422 when the key comes back with another message. */
function replay(previous: StoredAnswer, fingerprint: string): SubmitResult {
  if (previous.fingerprint && previous.fingerprint !== fingerprint) {
    return { status: 422, body: { error: KEY_REUSED } };
  }
  return { status: previous.status, body: previous.body };
}

/** Open the database, apply migrations, and assemble the pipeline with its outbox worker. */
export async function createContactPipeline(
  config: ContactConfig,
  log: Logger,
  opts: { db?: Database; mailer?: Mailer } = {},
): Promise<{ pipeline: ContactPipeline; db: Database; mailer: Mailer; close: () => Promise<void> }> {
  const db = opts.db ?? openDatabase(config, logStorageTransitions(log));
  try {
    return await assemble(config, log, db, opts.mailer);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(config: ContactConfig, log: Logger, db: Database, givenMailer?: Mailer) {
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
  const limiters: Limiters = {
    perMinute: await db.rateLimiter({ keyPrefix: "contact_min", points: config.rateLimit.perMinute, duration: 60 }),
    perDay: await db.rateLimiter({ keyPrefix: "contact_day", points: config.rateLimit.perDay, duration: 86_400 }),
    networkPerMinute: await db.rateLimiter({
      keyPrefix: "contact_net_min",
      points: config.rateLimit.networkPerMinute,
      duration: 60,
    }),
  };
  const worker = new OutboxWorker({
    store,
    mailer,
    log,
    options: config.outbox,
    addresses: { from: config.mailFrom, to: config.mailTo },
  });
  const pipeline = new ContactPipeline({
    store,
    worker,
    log,
    hasher: addressHasher(loadAddressSecret(config)),
    limiters,
  });
  log.info({ storage: db.describe(), mail: mailer.describe() }, "contact pipeline ready");
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
