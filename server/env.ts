import { z } from "zod";
import { serviceOptions } from "../app/config/service-options.ts";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import { CHANNELS, channelVariables } from "./contact/delivery/channels.ts";
import { parseTrustProxy } from "./guards.ts";

/**
 * Every environment variable the build, the server and the operator CLI read, declared once with
 * its type, its default and when it is read: **build** (baked into the prerendered pages: change
 * it, rebuild), or **run** (read when the server or the CLI starts). Nothing else in the product
 * reads `process.env`: server/config.ts hands it to `loadEnv` (test and benchmark tooling has its own
 * variables, listed in docs/configuration.md).
 * A bad value stops the process at start with one line naming the variable and what is wrong.
 * `.env` is read by every npm script (node --env-file-if-exists=.env); the environment wins.
 */

const positiveInt = z.coerce.number().int().positive();

/** Where one service line's leads go: each channel's field (`to`, `slack`, `webhook`), all optional. */
const route = z.strictObject(
  Object.fromEntries(CHANNELS.map((c) => [c.routeField.key, c.routeField.schema.optional()])),
) as unknown as z.ZodType<Route>;
export type Route = Partial<Record<string, string>>;
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

export const schema = z.object({
  // ---------------------------------------------------------------- build time
  /** build — the public URL: canonical links, sitemap, feeds, social images. */
  SITE_URL: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .default("https://www.example.com")
    .transform((u) => u.replace(/\/+$/, ""))
    .meta({
      description:
        "public URL of the site: **at build time** canonical links, sitemap and feeds are baked into the pages; **at run time** the address the links in a lead point at, the sender's domain of lead emails (`no-reply@…`), their Message-IDs, and the host the HTTP → HTTPS redirect serves. The server refuses to start, in one line, when the links would be wrong: not set while leads leave this machine (`SMTP_URL`, Slack or a webhook), with a path, with `user:password`, or `http://` to anything but this machine",
    }),
  /** build — where the contact page sends the form with JavaScript (a path here, or another site's URL). */
  CONTACT_ENDPOINT: z
    .string()
    .regex(/^(\/|https?:\/\/)\S*$/, "a path starting with / or an http(s):// URL")
    .default(CONTACT_API_PATH)
    .meta({
      description:
        "where the contact page sends the form with JavaScript (another origin's hosted function works too): **at build time** into the page, **at run time** into the pages' Content-Security-Policy",
    }),
  /** build and run — the anonymous public key (app/contact/api.ts has the default). */
  CONTACT_PUBLIC_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
    .optional()
    .meta({
      description:
        "the anonymous **public** key of spec §7 — not a secret: at build time the page embeds it and sends it as `Authorization: Bearer …`; at run time the server requires it (401 without). Set it in `.env` so build and server agree",
      shownDefault: "`pk_public_teton_contact_2025` (`app/contact/api.ts`)",
    }),
  CONTACT_PUBLIC_KEY_PREVIOUS: z
    .string()
    .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
    .optional()
    .meta({
      description:
        "a second public key accepted at run time while the key changes: first the next one (every instance accepts it before any page carries it), then the old one (pages built or cached with it keep working). See [Rotating secrets](deployment.md#rotating-secrets)",
    }),
  // ---------------------------------------------------------------- run time
  PORT: z.coerce
    .number({ error: "a port number" })
    .int()
    .min(1, "a port number 1-65535")
    .max(65_535, "a port number 1-65535")
    .default(3000)
    .meta({ description: "port of the production server (1–65535)" }),
  HOST: z.string().min(1).default("0.0.0.0").meta({ description: "address the production server binds to" }),
  /** run — read by React and Express, not by our code; server.js sets it before either loads. */
  NODE_ENV: z.string().optional().meta({
    description:
      "React's build on the server: production unless set (`npm start`, `npx node server.js` and the image alike). `npm run dev` is the development server; there is no need to set it. Whatever it says, the server refuses to start when the links in a lead would be wrong (see `SITE_URL`)",
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
        "on `SIGTERM`, how long the server keeps serving with `/readyz` answering 503 (`shutting down`) before it stops accepting connections and drains (10 s): a balancer that checks readiness takes it out of rotation first. The check's interval times its failure threshold; 0 behind nginx, which tries a refused connection on the next instance. See [Restarting without losing a visitor](deployment.md#restarting-without-losing-a-visitor)",
    }),
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
    })
    .meta({
      description:
        "Express `trust proxy`: which proxies may set `X-Forwarded-For` (the client address used for rate limits): `true`, `false`, a hop count (`1`), or a comma-separated list of addresses, CIDR subnets and `loopback`, `linklocal`, `uniquelocal`. Anything else stops the start with one line. **Read [Behind a proxy](operations.md#behind-a-proxy)**",
    }),
  DATA_DIR: z
    .string()
    .default("./data")
    .meta({ description: "where SQLite keeps `inquiries.sqlite`, and where emails are written without `SMTP_URL`" }),
  LITESTREAM_REPLICA_URL: z.url({ error: "a URL such as s3://bucket/leads or file:///backups/leads" }).optional().meta({
    description:
      "the image's start (`deploy/start.sh`) runs the server under [Litestream](https://litestream.io), replicating the SQLite database here continuously (`s3://…`, or `file:///…` for a mounted folder), and restores from it when `DATA_DIR` has no database. See [Backups](deployment.md#backups-and-restore)",
  }),
  // ---------------------------------------------------------------- the delivery channels' own
  ...channelVariables,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional()
    .meta({
      description:
        "`postgres://…`: store inquiries in PostgreSQL instead of SQLite (needed for several server instances)",
    }),
  CONTACT_ROUTES: routes.meta({
    description:
      'leads routed by service line, as JSON: `{"AI Consulting": {"to": "ai@…", "slack": "https://hooks.slack.com/…", "webhook": "https://…"}, "none": {…}}` — a form\'s service option (or `none`: no service chosen) to its own email recipients (comma-separated) and, optionally, its own Slack and webhook receivers; what a route does not name goes to the general ones. Checked at start, one reason per mistake',
  }),
  ALLOWED_ORIGINS: z.string().optional().meta({
    description:
      "comma-separated origins (`https://www.example.com,https://example.com`) that may call the endpoint from a browser (CORS) and post the form; the request's own origin is always allowed. Set it behind a proxy that changes the Host",
  }),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(5).meta({ description: "submissions per client address per minute" }),
  RATE_LIMIT_PER_DAY: positiveInt.default(50).meta({ description: "submissions per client address per day" }),
  RATE_LIMIT_NETWORK_PER_MINUTE: positiveInt.default(20).meta({
    description:
      "submissions per minute from one network (IPv4 /24, IPv6 /48), for a sender who rotates addresses. An IPv6 client counts as its /64 for the per-address limits",
  }),
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional().meta({
    description:
      "serve Prometheus metrics at `/metrics` on the site's port to requests with `Authorization: Bearer <token>` (≥ 16 characters); Prometheus sends it with `authorization: {credentials: …}`. Unset: `/metrics` does not exist",
  }),
  SPAM_FILTER: z.enum(["on", "off"], { error: "on or off" }).default("on").meta({
    description:
      "the spam layers (form token, fill time, links, duplicates, content); `off` leaves only the honeypot. See [Spam](operations.md#spam)",
  }),
  INQUIRY_LINK_DAYS: positiveInt.default(30).meta({
    description:
      "how long the signed Spam / Not spam links in a lead's email, Slack message, webhook and the morning digest work. See [The links in a lead](operations.md#the-links-in-a-lead)",
  }),
});

export type Env = z.infer<typeof schema>;

/** Which variables are read at build time, and again at run time (the rest only at run time). */
export const BUILD_TIME = ["SITE_URL", "CONTACT_ENDPOINT", "CONTACT_PUBLIC_KEY"] as const;

/**
 * The variables that are set, as the server reads them. `podman run --env-file` and `docker run
 * --env-file` keep the quotes that a shell, Node's --env-file and compose's env_file take away: a
 * value in one pair of matching quotes is read without them, however it came
 * (`WEBHOOK_SECRET="whsec_NEW whsec_OLD"` as the docs show it); an empty value is not set.
 */
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
