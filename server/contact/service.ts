import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "pino";
import { RateLimiterRes } from "rate-limiter-flexible";
import { HONEYPOT_FIELD, validateContact } from "../../app/contact/schema.ts";
import type { ContactConfig } from "./config.ts";
import { type Database, openDatabase, type RateLimiterLike } from "./db.ts";
import { fileMailer, type Mailer, messageIdFor, smtpMailer } from "./mailer.ts";
import { OutboxWorker } from "./outbox.ts";
import { type Answer, type Source, Store } from "./store.ts";

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
  private readonly salt: string;
  private readonly limiters: RateLimiterLike[];

  constructor(deps: { store: Store; worker: OutboxWorker; log: Logger; salt: string; limiters: RateLimiterLike[] }) {
    this.store = deps.store;
    this.worker = deps.worker;
    this.log = deps.log;
    this.salt = deps.salt;
    this.limiters = deps.limiters;
  }

  hashIp(ip: string | undefined): string | null {
    return ip ? createHash("sha256").update(`${this.salt}:${ip}`).digest("hex") : null;
  }

  async submit(s: Submission): Promise<SubmitResult> {
    // A replayed key answers as the first time, without counting against the rate limit.
    if (s.idempotencyKey) {
      const previous = await this.store.answerFor(s.idempotencyKey);
      if (previous) return previous;
    }

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

    const ipHash = this.hashIp(s.ip);

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
        job: spam ? undefined : { id: randomUUID(), messageId: messageIdFor(id) },
        // Inside the transaction: on SQLite the counters share the inquiry's commit.
        guard: () => this.rateLimit(ipHash),
      },
    );
    if (result.duplicate || result.refused) return result.answer;
    this.log.info({ inquiryId: id, source: s.source, spam }, spam ? "inquiry stored as spam" : "inquiry stored");
    if (!spam) this.worker.nudge();
    return answer;
  }

  private async rateLimit(ipHash: string | null): Promise<SubmitResult | null> {
    if (!ipHash) return null;
    for (const limiter of this.limiters) {
      try {
        await limiter.consume(ipHash);
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

/** Open the database, apply migrations, and assemble the pipeline with its outbox worker. */
export async function createContactPipeline(
  config: ContactConfig,
  log: Logger,
  opts: { db?: Database; mailer?: Mailer } = {},
): Promise<{ pipeline: ContactPipeline; db: Database; mailer: Mailer; close: () => Promise<void> }> {
  const db = opts.db ?? openDatabase(config);
  const applied = await db.migrate();
  if (applied.length > 0) log.info({ applied }, "database migrations applied");
  const store = new Store(db);
  const mailer =
    opts.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl) : fileMailer(join(config.dataDir, "mail")));
  const limiters = [
    await db.rateLimiter({ keyPrefix: "contact_min", points: config.rateLimit.perMinute, duration: 60 }),
    await db.rateLimiter({ keyPrefix: "contact_day", points: config.rateLimit.perDay, duration: 86_400 }),
  ];
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
    salt: config.ipHashSalt ?? (await store.ipHashSalt()),
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
