import { z } from "zod";
import { serviceOptions } from "../app/config/service-options.ts";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import { bookingVariables } from "./booking/feeds.ts";
import { CHANNELS, channelVariables } from "./contact/delivery/channels.ts";
import { parseTrustProxy } from "./guards.ts";

/**
 * Every environment variable the build, the server and the CLI read, declared once with its type,
 * default and description (docs/configuration.md is made from it). A bad value stops the start with
 * one line naming the variable and what is wrong.
 */

const positiveInt = z.coerce.number().int().positive();

const route = z.strictObject(
  Object.fromEntries(CHANNELS.map((c) => [c.routeField.key, c.routeField.schema.optional()])),
) as unknown as z.ZodType<Route>;
export type Route = Partial<Record<string, string>>;
const ROUTE_KEYS = [...serviceOptions, "none"] as readonly string[];

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

const publicKey = z
  .string()
  .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
  .optional();

export const schema = z.object({
  SITE_URL: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .default("https://www.example.com")
    .transform((u) => u.replace(/\/+$/, ""))
    .meta({
      description:
        "public URL of the site: baked into canonical links, sitemap and feeds; the links in a lead and the lead emails' sender domain. The server refuses to start when the links would be wrong. See [The links in a lead](operations.md#the-links-in-a-lead)",
    }),
  CONTACT_ENDPOINT: z
    .string()
    .regex(/^(\/|https?:\/\/)\S*$/, "a path starting with / or an http(s):// URL")
    .default(CONTACT_API_PATH)
    .meta({ description: "where the contact page sends the form with JavaScript (a path, or another origin's URL)" }),
  CONTACT_PUBLIC_KEY: publicKey.meta({
    description:
      "the anonymous **public** key of spec §7 (not a secret): the page sends it, the server requires it. Set it in `.env` so build and server agree",
    shownDefault: "`pk_public_teton_contact_2025` (`app/contact/api.ts`)",
  }),
  CONTACT_PUBLIC_KEY_PREVIOUS: publicKey.meta({
    description:
      "a second public key accepted while the key changes. See [Rotating secrets](deployment.md#rotating-secrets)",
  }),
  PORT: z.coerce
    .number({ error: "a port number" })
    .int()
    .min(1, "a port number 1-65535")
    .max(65_535, "a port number 1-65535")
    .default(3000)
    .meta({ description: "port of the production server (1–65535)" }),
  HOST: z.string().min(1).default("0.0.0.0").meta({ description: "address the production server binds to" }),
  NODE_ENV: z.string().optional().meta({
    description: "React's build on the server; no need to set it (`npm run dev` is the development server)",
    shownDefault: "`production` (set by `server.js`)",
  }),
  SHUTDOWN_DELAY_MS: z.coerce
    .number({ error: "milliseconds" })
    .int()
    .min(0, "0 or more milliseconds")
    .max(60_000, "at most 60000 milliseconds")
    .default(0)
    .meta({
      description:
        "on `SIGTERM`, how long `/readyz` answers 503 before the server drains. See [Restarting without losing a visitor](deployment.md#restarting-without-losing-a-visitor)",
    }),
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
    })
    .meta({
      description:
        "Express `trust proxy`: `true`, `false`, a hop count, or addresses, subnets and `loopback`. **Read [Behind a proxy](operations.md#behind-a-proxy)**",
    }),
  DATA_DIR: z
    .string()
    .default("./data")
    .meta({ description: "where SQLite keeps `inquiries.sqlite`, and where emails are written without `SMTP_URL`" }),
  LITESTREAM_REPLICA_URL: z.url({ error: "a URL such as s3://bucket/leads or file:///backups/leads" }).optional().meta({
    description:
      "where the image replicates the SQLite database continuously with Litestream. See [Backups](deployment.md#backups-and-restore)",
  }),
  ...channelVariables,
  ...bookingVariables,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional()
    .meta({ description: "`postgres://…`: store inquiries in PostgreSQL (needed for several server instances)" }),
  CONTACT_ROUTES: routes.meta({
    description:
      'leads routed by service line, as JSON: `{"AI Consulting": {"to": "ai@…", "slack": "https://…", "webhook": "https://…"}, "none": {…}}`. See [Where leads go](operations.md#where-leads-go)',
  }),
  ALLOWED_ORIGINS: z.string().optional().meta({
    description:
      "comma-separated origins besides the site's own that may call the endpoint and post the form (behind a proxy that changes the Host)",
  }),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(5).meta({ description: "submissions per client address per minute" }),
  RATE_LIMIT_PER_DAY: positiveInt.default(50).meta({ description: "submissions per client address per day" }),
  RATE_LIMIT_NETWORK_PER_MINUTE: positiveInt
    .default(20)
    .meta({ description: "submissions per minute from one network (IPv4 /24, IPv6 /48)" }),
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional().meta({
    description:
      "the bearer token of `/metrics` (≥ 16 characters); unset, `/metrics` does not exist. See [Metrics](operations.md#metrics-and-alerts)",
  }),
  SPAM_FILTER: z.enum(["on", "off"], { error: "on or off" }).default("on").meta({
    description: "`off` leaves only the honeypot of the spam layers. See [Spam](operations.md#spam)",
  }),
  INQUIRY_LINK_DAYS: positiveInt.default(30).meta({
    description:
      "how long the signed links in a lead and in the morning digest work. See [The links in a lead](operations.md#the-links-in-a-lead)",
  }),
});

export type Env = z.infer<typeof schema>;

/** Read at build time, and again at run time; the rest only at run time. */
export const BUILD_TIME = ["SITE_URL", "CONTACT_ENDPOINT", "CONTACT_PUBLIC_KEY"] as const;

// `podman run --env-file` keeps the quotes that a shell and Node's --env-file take away: one pair of
// matching quotes is dropped however the value came. An empty value is not set.
export function setVariables(source: NodeJS.ProcessEnv): Record<string, string> {
  const unquote = (v: string) => /^(["'])(.*)\1$/s.exec(v)?.[2] ?? v;
  return Object.fromEntries(
    Object.entries(source)
      .map(([k, v]) => [k, v === undefined ? "" : unquote(v)] as const)
      .filter(([, v]) => v !== ""),
  );
}

export function loadEnv(source: NodeJS.ProcessEnv): Env {
  const set = setVariables(source);
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment: ${problems.join("; ")}`);
  }
  const problems = CHANNELS.map((c) => c.check?.(parsed.data)).filter(Boolean);
  if (problems.length > 0) throw new Error(`Invalid environment: ${problems.join("; ")}`);
  return parsed.data;
}
