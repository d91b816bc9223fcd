import { resolve } from "node:path";
import { z } from "zod";
import { site } from "../../app/config/site.ts";
import { contactPublicKey } from "../../app/contact/public-key.ts";

/**
 * The contact pipeline's environment, validated once at start: a bad value stops the server with
 * a message naming the variable instead of failing on the first inquiry.
 */

const positiveInt = z.coerce.number().int().positive();

const envSchema = z.object({
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")
    .optional(),
  SMTP_FROM: z.string().optional(),
  CONTACT_TO: z.email().default(site.email),
  CONTACT_PUBLIC_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
    .optional(),
  ALLOWED_ORIGINS: z.string().optional(),
  IP_HASH_KEY: z.string().min(32, "at least 32 characters").optional(),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(5),
  RATE_LIMIT_PER_DAY: positiveInt.default(50),
  RATE_LIMIT_NETWORK_PER_MINUTE: positiveInt.default(20),
  OUTBOX_POLL_MS: positiveInt.default(1_000),
  OUTBOX_RETRY_BASE_MS: positiveInt.default(30_000),
  OUTBOX_RETRY_MAX_MS: positiveInt.default(60 * 60_000),
  OUTBOX_GIVE_UP_AFTER_MS: positiveInt.default(24 * 60 * 60_000),
  OUTBOX_LEASE_MS: positiveInt.default(2 * 60_000),
  WEBHOOK_URL: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }).optional(),
  WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "a Standard Webhooks secret: whsec_ and at least 24 bytes in base64")
    .optional(),
  SLACK_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }).optional(),
  DELIVERY_TIMEOUT_MS: positiveInt.default(10_000),
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  METRICS_HOST: z.string().default("127.0.0.1"),
  SPAM_FILTER: z.enum(["on", "off"], { error: "on or off" }).default("on"),
  SPAM_MIN_FILL_MS: z.coerce.number().int().min(0).default(3_000),
  SPAM_MAX_LINKS: z.coerce.number().int().min(0).default(2),
  FORM_TOKEN_MAX_AGE_MS: positiveInt.default(24 * 60 * 60_000),
  HELD_SUMMARY_INTERVAL_MS: positiveInt.default(24 * 60 * 60_000),
});

export type ContactConfig = {
  dataDir: string;
  databaseUrl?: string;
  smtpUrl?: string;
  mailFrom: string;
  mailTo: string;
  /** The anonymous public key the page sends as its bearer token (app/contact/public-key.ts). */
  publicKey: string;
  /** Origins (scheme://host[:port]) allowed to call the endpoint from a browser, besides the site's own. */
  allowedOrigins: string[];
  /** The secret client addresses are hashed with (HMAC); never stored in the database. */
  ipHashKey?: string;
  rateLimit: { perMinute: number; perDay: number; networkPerMinute: number };
  outbox: { pollMs: number; retryBaseMs: number; retryMaxMs: number; giveUpAfterMs: number; leaseMs: number };
  /** Delivery channels besides email (on always): a signed webhook, a Slack incoming webhook. */
  webhook?: { url: string; secret: string };
  slack?: { url: string };
  deliveryTimeoutMs: number;
  /** /metrics: with a bearer token on the site's port, or without one on a port of its own (localhost). */
  metrics: { token?: string; port?: number; host: string };
  /** Spam layers (server/contact/spam.ts); off: only the honeypot holds (tests of delivery use it). */
  spam: { filter: boolean; minFillMs: number; maxLinks: number; maxTokenAgeMs: number; summaryIntervalMs: number };
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ContactConfig {
  // An empty variable (DATABASE_URL= in a .env file) means "not set".
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if (e.WEBHOOK_URL && !e.WEBHOOK_SECRET) {
    throw new Error("Invalid environment:\n  WEBHOOK_SECRET: required with WEBHOOK_URL (whsec_…, see the README)");
  }
  const siteHost = new URL(site.url).hostname.replace(/^www\./, "");
  return {
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.SMTP_FROM ?? `${site.name} Website <no-reply@${siteHost}>`,
    mailTo: e.CONTACT_TO,
    publicKey: contactPublicKey(e.CONTACT_PUBLIC_KEY),
    allowedOrigins: (e.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean),
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
    slack: e.SLACK_WEBHOOK_URL ? { url: e.SLACK_WEBHOOK_URL } : undefined,
    deliveryTimeoutMs: e.DELIVERY_TIMEOUT_MS,
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST },
    spam: {
      filter: e.SPAM_FILTER === "on",
      minFillMs: e.SPAM_MIN_FILL_MS,
      maxLinks: e.SPAM_MAX_LINKS,
      maxTokenAgeMs: e.FORM_TOKEN_MAX_AGE_MS,
      summaryIntervalMs: e.HELD_SUMMARY_INTERVAL_MS,
    },
  };
}
