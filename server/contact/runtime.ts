import type { Logger } from "pino";
import { site } from "../../app/config/site.ts";
import type { Config } from "../config.ts";
import type { Channel } from "./delivery/channel.ts";
import { channelNamed } from "./delivery/channels.ts";
import { channelsOf, routingOf } from "./delivery/routing.ts";
import type { SecretKeys } from "./intake/address-hash.ts";
import type { ContactPipeline, LimitSpec, Outcome, Submission } from "./intake/pipeline.ts";
import type { ContactMetrics } from "./metrics.ts";
import type { Promised } from "./review/promise.ts";
import { type Database, logStorageTransitions, StorageUnavailableError } from "./storage/database.ts";

/**
 * Open the database, apply migrations, and assemble the pipeline with its outbox worker and the
 * channels its routing uses. `keys` (intake/address-hash.ts) are made once by the composition root.
 */
export async function createContactPipeline(
  config: Config,
  log: Logger,
  opts: {
    keys: SecretKeys;
    db?: Database;
    metrics?: ContactMetrics;
    clock?: () => number;
    facts?: Promised;
  },
) {
  // Loaded here, not with the server: the first page does not wait for them (server/main.ts).
  const [
    { OutboxWorker },
    { Housekeeping },
    { ContentFilter },
    { ContactPipeline },
    { openDatabase },
    { writeSetting },
  ] = await Promise.all([
    import("./delivery/worker.ts"),
    import("./housekeeping.ts"),
    import("./intake/content-filter.ts"),
    import("./intake/pipeline.ts"),
    import("./storage/open.ts"),
    import("./storage/settings.ts"),
  ]);
  const db = opts.db ?? openDatabase(config, logStorageTransitions(log));
  try {
    const applied = await db.migrate();
    if (applied.length > 0) log.info({ applied }, "database migrations applied");
    await opts.keys.ring.attach(db);
    const routing = routingOf(config);
    const channels: Channel[] = channelsOf(routing).flatMap(
      (name) => channelNamed(name)?.create(config, opts.keys.links) ?? [],
    );
    // Where the server sends each service's leads, so that "Not spam" from any shell queues the same.
    await writeSetting(db, "routing", JSON.stringify(routing));
    const { metrics } = opts;
    const { clock, facts } = opts;
    const links = opts.keys.links;
    const worker = new OutboxWorker({ db, channels, routing, log, config, metrics, clock, facts, links });
    const housekeeping = new Housekeeping({
      db,
      log,
      config,
      ...site.privacy,
      ring: opts.keys.ring,
      worker,
      clock,
      facts,
    });
    metrics?.watchOutbox(db);
    const pipeline = new ContactPipeline({
      db,
      worker,
      log,
      hasher: opts.keys.hasher,
      tokens: opts.keys.tokens,
      config,
      content: new ContentFilter(db, config.SPAM_CORPUS_DIR),
      routing,
      metrics,
      limits: limitsOf(config),
      clock,
    });
    log.info({ storage: db.describe(), channels: channels.map((c) => c.describe()) }, "contact pipeline ready");
    return {
      pipeline,
      db,
      housekeeping,
      async close() {
        await Promise.all([worker.stop(), housekeeping.stop()]);
        for (const c of channels) c.close?.();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

const limitsOf = (config: Config): LimitSpec[] => [
  { prefix: "contact_min", per: "address", points: config.RATE_LIMIT_PER_MINUTE, durationMs: 60_000 },
  { prefix: "contact_day", per: "address", points: config.RATE_LIMIT_PER_DAY, durationMs: 86_400_000 },
  { prefix: "contact_net_min", per: "network", points: config.RATE_LIMIT_NETWORK_PER_MINUTE, durationMs: 60_000 },
];

/**
 * The contact pipeline as the server holds it: started in the background, so storage that does not
 * work at start does not take the pages down. Until it works the contact doors answer 503, readiness
 * says why, and the start is tried again with backoff. Once the server is stopping it is not ready,
 * so a balancer takes the instance out of rotation before it stops accepting (server/main.ts).
 */

export type ContactRuntime = ReturnType<typeof startContactRuntime>;

export function startContactRuntime(
  config: Config,
  log: Logger,
  opts: { keys: SecretKeys; metrics?: ContactMetrics; after?: Promise<void> },
) {
  let made: Awaited<ReturnType<typeof createContactPipeline>> | null = null;
  let reason = "starting";
  let closed = false;
  let leaving = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = 1_000;
  let starting: Promise<void> | null = null;

  const attempt = async () => {
    try {
      const pipeline = await createContactPipeline(config, log, opts);
      if (closed) {
        await pipeline.close();
        return;
      }
      made = pipeline;
      made.pipeline.worker.start();
      made.housekeeping.start();
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
  starting = (opts.after ?? Promise.resolve()).then(attempt);

  return {
    submit(submission: Submission): Promise<Outcome> {
      if (!made) return Promise.reject(new StorageUnavailableError(`contact storage not ready: ${reason}`, 10));
      return made.pipeline.submit(submission);
    },
    pipeline(): ContactPipeline {
      if (!made) throw new StorageUnavailableError(`contact storage not ready: ${reason}`, 10);
      return made.pipeline;
    },
    leaveRotation() {
      leaving = true;
    },
    async readiness(): Promise<{ ready: true } | { ready: false; reason: string }> {
      const timeoutMs = 2_000;
      if (leaving) return { ready: false, reason: "shutting down" };
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
