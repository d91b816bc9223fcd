import { join } from "node:path";
import type { Logger } from "pino";
import { site } from "../../app/config/site.ts";
import type { ContactConfig } from "./config.ts";
import type { Channel } from "./delivery/channel.ts";
import { emailChannel, fileMailer, smtpMailer } from "./delivery/email.ts";
import { receiverFor, routingOf } from "./delivery/routing.ts";
import { slackChannel } from "./delivery/slack.ts";
import { webhookChannel } from "./delivery/webhook.ts";
import { OutboxWorker } from "./delivery/worker.ts";
import { addressHasher, loadAddressSecret } from "./intake/address-hash.ts";
import { ContentFilter } from "./intake/content-filter.ts";
import { type FormTokens, formTokens } from "./intake/form-token.ts";
import { ContactPipeline, type LimitSpec, type Outcome, type Submission } from "./intake/pipeline.ts";
import type { ContactMetrics } from "./metrics.ts";
import { type Database, logStorageTransitions, openDatabase, StorageUnavailableError } from "./storage/database.ts";
import { Store } from "./storage/store.ts";

/** Open the database, apply migrations, and assemble the pipeline with its outbox worker and channels. */
export async function createContactPipeline(
  config: ContactConfig,
  log: Logger,
  opts: { db?: Database; metrics?: ContactMetrics; tokens?: FormTokens } = {},
) {
  const db = opts.db ?? openDatabase(config, logStorageTransitions(log));
  try {
    const applied = await db.migrate();
    if (applied.length > 0) log.info({ applied }, "database migrations applied");
    if (config.databaseUrl && !config.ipHashKey) {
      log.warn(
        "IP_HASH_KEY is not set: this instance hashes addresses with its own key file, so instances sharing this database do not share rate limits",
      );
    }
    const store = new Store(db);
    const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl) : fileMailer(join(config.dataDir, "mail"));
    const routing = routingOf(config);
    const used = new Set(Object.values(routing).flatMap((targets) => targets.map((t) => t.channel)));
    const timeoutMs = config.deliveryTimeoutMs;
    const channels: Channel[] = [emailChannel(mailer, { from: config.mailFrom, to: config.mailTo })];
    if (used.has("webhook") && config.webhookSecret) {
      const urlFor = (target: string | null) => receiverFor(config, "webhook", target);
      channels.push(webhookChannel({ urlFor, secret: config.webhookSecret, timeoutMs }));
    }
    if (used.has("slack")) channels.push(slackChannel({ urlFor: (t) => receiverFor(config, "slack", t), timeoutMs }));
    await store.operator.recordRouting(routing);
    const { metrics } = opts;
    const worker = new OutboxWorker({
      store,
      channels,
      log,
      options: config.outbox,
      metrics,
      heldSummaryIntervalMs: config.spam.summaryIntervalMs,
      retentionDays: site.imprint.retentionDays,
    });
    metrics?.watchOutbox(store);
    const secret = loadAddressSecret(config);
    const pipeline = new ContactPipeline({
      store,
      worker,
      log,
      hasher: addressHasher(secret),
      tokens: opts.tokens ?? formTokens(secret),
      spam: config.spam,
      content: new ContentFilter(config.spam.seed, store.training),
      routing,
      metrics,
      limits: limitsOf(config),
    });
    log.info({ storage: db.describe(), channels: channels.map((c) => c.describe()) }, "contact pipeline ready");
    return {
      pipeline,
      db,
      async close() {
        await worker.stop();
        mailer.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/** The rate limits, counted in table rate_limits (storage/intake.ts). */
const limitsOf = ({ rateLimit }: ContactConfig): LimitSpec[] => [
  { prefix: "contact_min", per: "address", points: rateLimit.perMinute, durationMs: 60_000 },
  { prefix: "contact_day", per: "address", points: rateLimit.perDay, durationMs: 86_400_000 },
  { prefix: "contact_net_min", per: "network", points: rateLimit.networkPerMinute, durationMs: 60_000 },
];

/**
 * The contact pipeline as the server holds it: started in the background, so storage that does not
 * work at start does not take the pages down. Until it works the contact doors answer 503, readiness
 * says why, and the start is tried again with backoff.
 */

export type ContactRuntime = ReturnType<typeof startContactRuntime>;

export function startContactRuntime(
  config: ContactConfig,
  log: Logger,
  opts: { metrics?: ContactMetrics; tokens?: FormTokens } = {},
) {
  let made: Awaited<ReturnType<typeof createContactPipeline>> | null = null;
  let reason = "starting";
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = 1_000;
  let starting: Promise<void> | null = null;

  const attempt = async () => {
    try {
      const pipeline = await createContactPipeline(config, log, { metrics: opts.metrics, tokens: opts.tokens });
      if (closed) {
        await pipeline.close();
        return;
      }
      made = pipeline;
      made.pipeline.worker.start();
    } catch (err) {
      const message = (err as Error).message;
      if (message !== reason) {
        log.error(
          { reason: message, retryInMs: delay },
          "contact storage unavailable at start: pages are served, the contact form answers 503 until it works",
        );
      }
      reason = message;
      if (closed) return;
      timer = setTimeout(() => {
        starting = attempt();
      }, delay);
      timer.unref();
      delay = Math.min(delay * 2, 30_000);
    }
  };
  starting = attempt();

  return {
    /** The pipeline; its submit throws StorageUnavailableError until storage works. */
    pipeline: {
      submit(submission: Submission): Promise<Outcome> {
        if (!made) return Promise.reject(new StorageUnavailableError(`contact storage not ready: ${reason}`, 10));
        return made.pipeline.submit(submission);
      },
    },
    /** Ready when the pipeline started and the database answers a query within 2 s. */
    async readiness(): Promise<{ ready: true } | { ready: false; reason: string }> {
      const timeoutMs = 2_000;
      if (!made) return { ready: false, reason };
      const db = made.db;
      let timeout: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          db.ping(),
          new Promise((_, reject) => {
            timeout = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { ready: true };
      } catch (err) {
        return { ready: false, reason: `database: ${(err as Error).message}` };
      } finally {
        clearTimeout(timeout);
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await starting;
      await made?.close();
    },
  };
}
