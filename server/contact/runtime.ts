import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { site } from "../../app/config/site.ts";
import { visitorLink } from "../booking/messages.ts";
import type { Config } from "../config.ts";
import { channelNamed } from "./delivery/channels.ts";
import { channelsOf, recordRouting, routingOf } from "./delivery/routing.ts";
import type { SecretKeys } from "./intake/address-hash.ts";
import type { ContactPipeline, Outcome, Submission } from "./intake/pipeline.ts";
import type { ContactMetrics } from "./metrics.ts";
import { fillPromises, type Promised } from "./review/promise.ts";
import type { FigureHolder } from "./review/public-figure.ts";
import {
  type Database,
  logStorageTransitions,
  StorageUnavailableError,
} from "./storage/database.ts";

/**
 * The contact pipeline assembled (database migrated, channels, outbox worker, housekeeping) and held
 * started in the background: storage that fails at start does not take the pages down; the contact
 * doors answer 503, readiness says why, and the start is tried again with backoff.
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
    figure?: FigureHolder;
  },
) {
  const [
    { outboxWorker },
    { createHousekeeping },
    { contentFilter },
    { contactPipeline },
    { openDatabase },
  ] = await Promise.all([
    import("./delivery/worker.ts"),
    import("./housekeeping.ts"),
    import("./intake/content-filter.ts"),
    import("./intake/pipeline.ts"),
    import("./storage/open.ts"),
  ]);
  const db = opts.db ?? openDatabase(config, logStorageTransitions(log));
  try {
    const applied = await db.migrate();
    if (applied.length > 0) log.info({ applied }, "database migrations applied");
    const filled = await fillPromises(db, opts.facts);
    if (filled > 0)
      log.info({ filled }, "reply promises fixed for leads received before they were kept");
    await opts.keys.ring.attach(db);
    const routing = routingOf(config);
    const channels = channelsOf(routing).flatMap(
      (name) => channelNamed(name)?.create(config, opts.keys.links) ?? [],
    );
    await recordRouting(db, routing);
    const parts = {
      db,
      log,
      config,
      routing,
      metrics: opts.metrics,
      clock: opts.clock,
      facts: opts.facts,
    };
    const worker = outboxWorker({ ...parts, channels, links: opts.keys.links });
    const housekeeping = createHousekeeping({
      ...parts,
      ...site.privacy,
      ring: opts.keys.ring,
      links: opts.keys.links,
      worker,
      figure: opts.figure,
    });
    opts.metrics?.watchOutbox(db);
    const content = contentFilter(db, config.SPAM_CORPUS_DIR);
    const pipeline = contactPipeline({ ...parts, ...opts.keys, worker, content });
    log.info(
      { storage: db.describe(), channels: channels.map((c) => c.describe()) },
      "contact pipeline ready",
    );
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

export type ContactRuntime = ReturnType<typeof startContactRuntime>;

export function startContactRuntime(
  config: Config,
  log: Logger,
  opts: { keys: SecretKeys; metrics?: ContactMetrics; after: Promise<void>; figure?: FigureHolder },
) {
  let made: Awaited<ReturnType<typeof createContactPipeline>> | null = null;
  let reason = "starting";
  let closed = false;
  let leaving = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = 1_000;

  const attempt = async () => {
    try {
      const pipeline = await createContactPipeline(config, log, opts);
      if (closed) return await pipeline.close();
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
      }, delay).unref();
      delay = Math.min(delay * 2, 30_000);
    }
  };
  // Started once the first page is out (server/main.ts): a message sent before waits, not a 503.
  const firstStart = opts.after.then(attempt);
  let starting = firstStart;

  const pipeline = (): ContactPipeline => {
    if (!made) throw new StorageUnavailableError(`contact storage not ready: ${reason}`, 10);
    return made.pipeline;
  };
  return {
    pipeline,
    async submit(submission: Submission): Promise<Outcome> {
      if (!made && reason === "starting") {
        log.info("a message waits for the contact pipeline to start");
        await Promise.race([firstStart, sleep(10_000, undefined, { ref: false })]);
      }
      const outcome = await pipeline().submit(submission);
      return "id" in outcome
        ? { ...outcome, booking: visitorLink(config, opts.keys.links, outcome.id) }
        : outcome;
    },
    leaveRotation() {
      leaving = true;
    },
    async readiness(): Promise<{ ready: true } | { ready: false; reason: string }> {
      if (leaving) return { ready: false, reason: "shutting down" };
      if (!made) return { ready: false, reason };
      const late = sleep(2_000, "no answer within 2000 ms", { ref: false });
      const failed = await Promise.race([made.db.ping().then(() => null), late]).catch(
        (err: Error) => err.message,
      );
      return failed === null ? { ready: true } : { ready: false, reason: `database: ${failed}` };
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await starting;
      await made?.close();
    },
  };
}
