import { resolve } from "node:path";
import { site } from "../../app/config/site.ts";
import { contactPublicKey } from "../../app/contact/api.ts";
import { loadEnv } from "../env.ts";
import { seedCorpus } from "./intake/content-filter.ts";

/**
 * The contact pipeline's settings, from the one validated environment (server/env.ts): a bad
 * value stops the process at start with one line naming the variable.
 */

export type ContactConfig = ReturnType<typeof loadConfig>;

export function loadConfig(source?: NodeJS.ProcessEnv) {
  const e = loadEnv(source);
  const siteHost = new URL(e.SITE_URL).hostname.replace(/^www\./, "");
  return {
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.SMTP_FROM ?? `${site.name} Website <no-reply@${siteHost}>`,
    mailTo: e.CONTACT_TO ?? site.email,
    /** The anonymous public key the page sends as its bearer token (app/contact/api.ts). */
    publicKey: contactPublicKey(e.CONTACT_PUBLIC_KEY),
    /** Origins (scheme://host[:port]) allowed to call the endpoint from a browser, besides the site's own. */
    allowedOrigins: (e.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean),
    /** The secret client addresses are hashed with (HMAC); never stored in the database. */
    ipHashKey: e.IP_HASH_KEY,
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      perDay: e.RATE_LIMIT_PER_DAY,
      networkPerMinute: e.RATE_LIMIT_NETWORK_PER_MINUTE,
    },
    outbox: {
      pollMs: e.OUTBOX_POLL_MS,
      retryBaseMs: e.OUTBOX_RETRY_BASE_MS,
      retryMaxMs: e.OUTBOX_RETRY_MAX_MS,
      giveUpAfterMs: e.OUTBOX_GIVE_UP_AFTER_MS,
      leaseMs: e.OUTBOX_LEASE_MS,
    },
    webhook: e.WEBHOOK_URL && e.WEBHOOK_SECRET ? { url: e.WEBHOOK_URL, secret: e.WEBHOOK_SECRET } : undefined,
    webhookSecret: e.WEBHOOK_SECRET,
    /** Leads routed by service line (delivery/routing.ts). */
    routes: e.CONTACT_ROUTES ?? {},
    slack: e.SLACK_WEBHOOK_URL ? { url: e.SLACK_WEBHOOK_URL } : undefined,
    deliveryTimeoutMs: e.DELIVERY_TIMEOUT_MS,
    /** /metrics: with a bearer token on the site's port, or without one on a port of its own (localhost). */
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST },
    /** Spam layers (intake/spam.ts); off: only the honeypot holds (tests of delivery use it). */
    spam: {
      filter: e.SPAM_FILTER === "on",
      /** The content filter's seed corpus (intake/content-filter.ts): read here, so a bad folder stops the start. */
      seed: seedCorpus(e.SPAM_CORPUS_DIR ? resolve(e.SPAM_CORPUS_DIR) : undefined),
      minFillMs: e.SPAM_MIN_FILL_MS,
      maxLinks: e.SPAM_MAX_LINKS,
      maxTokenAgeMs: e.FORM_TOKEN_MAX_AGE_MS,
      summaryIntervalMs: e.HELD_SUMMARY_INTERVAL_MS,
    },
  };
}
