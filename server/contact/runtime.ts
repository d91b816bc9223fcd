import type { Logger } from "pino";
import type { ContactConfig } from "./config.ts";
import { StorageUnavailableError } from "./db.ts";
import type { FormTokens } from "./form-token.ts";
import type { ContactMetrics } from "./metrics.ts";
import { createContactPipeline, type Submitter } from "./service.ts";

/**
 * The contact pipeline as the server holds it: started in the background, so a storage that does
 * not work at start (a read-only DATA_DIR, a database that does not answer) does not take the
 * static site down. Until it works the contact endpoint and form answer 503, readiness says why,
 * and the start is tried again with backoff (one log line when it fails, one when it succeeds).
 */

export type ContactRuntime = {
  /** The pipeline; its submit throws StorageUnavailableError until storage works. */
  pipeline: Submitter;
  /** Ready when the pipeline started and the database answers a query within `timeoutMs`. */
  readiness(timeoutMs?: number): Promise<{ ready: true } | { ready: false; reason: string }>;
  close(): Promise<void>;
};

export function startContactRuntime(
  config: ContactConfig,
  log: Logger,
  opts: { retryMinMs?: number; retryMaxMs?: number; metrics?: ContactMetrics; tokens?: FormTokens } = {},
): ContactRuntime {
  const retryMin = opts.retryMinMs ?? 1_000;
  const retryMax = opts.retryMaxMs ?? 30_000;
  let made: Awaited<ReturnType<typeof createContactPipeline>> | null = null;
  let reason = "starting";
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = retryMin;
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
      delay = Math.min(delay * 2, retryMax);
    }
  };
  starting = attempt();

  return {
    pipeline: {
      submit(submission) {
        if (!made) return Promise.reject(new StorageUnavailableError(`contact storage not ready: ${reason}`, 10));
        return made.pipeline.submit(submission);
      },
    },
    async readiness(timeoutMs = 2_000) {
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
