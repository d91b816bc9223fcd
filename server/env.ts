import addressparser from "nodemailer/lib/addressparser";
import { z } from "zod";
import { serviceOptions } from "../app/config/service-options.ts";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import { parseTrustProxy } from "./guards.ts";

/**
 * Every environment variable the build, the server and the operator CLI read, declared once with
 * its type, its default and when it is read: **build** (baked into the prerendered pages: change
 * it, rebuild), or **run** (read when the server or the CLI starts). Nothing else in the product
 * reads `process.env` (test and benchmark tooling has its own variables, listed in the README).
 * A bad value stops the process at start with one line naming the variable and what is wrong.
 * `.env` is read by every npm script (node --env-file-if-exists=.env); the environment wins.
 */

const positiveInt = z.coerce.number().int().positive();
/** A receiver's URL: http(s), with no user or password in it (they would end in logs and alerts). */
const receiverUrl = z
  .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
  .refine(
    (u) => !new URL(u).username && !new URL(u).password,
    "no user:password@ in the URL (use a secret path or token)",
  );

/** Where one service line's leads go, besides (or instead of) the general inbox and receivers. */
const route = z.strictObject({
  /** Email recipients, comma-separated; the general inbox (CONTACT_TO) when absent. */
  to: z
    .string()
    .refine((v) => v.split(",").every((a) => z.email().safeParse(a.trim()).success), "email addresses, comma-separated")
    .optional(),
  slack: receiverUrl.optional(),
  webhook: receiverUrl.optional(),
});
export type Route = z.infer<typeof route>;
/** Route keys: a service option of the form, or "none" (no service chosen). */
const ROUTE_KEYS = [...serviceOptions, "none"] as readonly string[];

/** CONTACT_ROUTES: JSON mapping each service (or "none") to its recipients; one issue per mistake. */
const routes = z
  .string()
  .optional()
  .transform((v, ctx): Record<string, Route> | undefined => {
    if (!v) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: "custom", message: 'not JSON, like {"AI Consulting": {"to": "ai@example.com"}}' });
      return z.NEVER;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      ctx.addIssue({ code: "custom", message: "a JSON object of service names" });
      return z.NEVER;
    }
    const out: Record<string, Route> = {};
    for (const [key, value] of Object.entries(json)) {
      if (!ROUTE_KEYS.includes(key)) {
        ctx.addIssue({ code: "custom", message: `unknown service "${key}" (one of ${ROUTE_KEYS.join(", ")})` });
        continue;
      }
      const parsed = route.safeParse(value);
      if (parsed.success) out[key] = parsed.data;
      else
        for (const i of parsed.error.issues)
          ctx.addIssue({ code: "custom", message: `"${key}".${i.path.join(".")}: ${i.message}` });
    }
    return out;
  });

const schema = z.object({
  // ---------------------------------------------------------------- build time
  /** build — the public URL: canonical links, sitemap, feeds, social images. */
  SITE_URL: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .default("https://www.example.com")
    .transform((u) => u.replace(/\/+$/, "")),
  /** build — where the contact page sends the form with JavaScript (a path here, or another site's URL). */
  CONTACT_ENDPOINT: z
    .string()
    .regex(/^(\/|https?:\/\/)\S*$/, "a path starting with / or an http(s):// URL")
    .default(CONTACT_API_PATH),
  /** build and run — the anonymous public key (app/contact/api.ts has the default). */
  CONTACT_PUBLIC_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
    .optional(),
  // ---------------------------------------------------------------- run time
  PORT: z.coerce
    .number({ error: "a port number" })
    .int()
    .min(1, "a port number 1-65535")
    .max(65_535, "a port number 1-65535")
    .default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** run — Express `trust proxy`, parsed as Express documents it. */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTrustProxy(v);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message.replace(/^TRUST_PROXY: /, "") });
        return z.NEVER;
      }
    }),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")
    .optional(),
  SMTP_FROM: z
    .string()
    .refine(
      (v) => addressparser(v, { flatten: true }).some((a) => Boolean(a.address)),
      "a sender with an address, such as Teton Digital Website <no-reply@example.com>",
    )
    .optional(),
  CONTACT_TO: z.email().optional(),
  CONTACT_ROUTES: routes,
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
  WEBHOOK_URL: receiverUrl.optional(),
  WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "a Standard Webhooks secret: whsec_ and at least 24 bytes in base64")
    .optional(),
  SLACK_WEBHOOK_URL: receiverUrl.optional(),
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

export type Env = z.infer<typeof schema>;

/** Which variables are read at build time (the rest are read at run time). */
export const BUILD_TIME = ["SITE_URL", "CONTACT_ENDPOINT", "CONTACT_PUBLIC_KEY"] as const;

/** The environment, validated; an empty variable (`DATABASE_URL=` in a .env) means "not set". */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const set = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment: ${problems.join("; ")}`);
  }
  const routedWebhook = Object.values(parsed.data.CONTACT_ROUTES ?? {}).some((r) => r.webhook);
  if ((parsed.data.WEBHOOK_URL || routedWebhook) && !parsed.data.WEBHOOK_SECRET) {
    throw new Error(
      "Invalid environment: WEBHOOK_SECRET: required with WEBHOOK_URL or a route's webhook (whsec_…, see the README)",
    );
  }
  return parsed.data;
}

/**
 * For the modules that run in Node without Vite (the server, the CLI, the build scripts): the
 * site's URL where app/config/site.ts looks for it. Imported first by those entry points.
 */
const early = schema.shape.SITE_URL.safeParse(process.env.SITE_URL || undefined);
const g = globalThis as { __SITE_URL__?: string };
if (early.success && typeof g.__SITE_URL__ !== "string") g.__SITE_URL__ = early.data;
