import proxyaddr from "proxy-addr";
import { z } from "zod";
import { serviceOptions } from "../app/config/service-options.ts";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import { bookingVariables } from "./booking/feeds.ts";
import { CHANNELS, channelVariables } from "./contact/delivery/channels.ts";

/**
 * Every environment variable, declared once with its type and default (what each does is written in
 * docs/configuration.md, checked against this schema). A bad value stops the start with one line
 * naming the variable and what is wrong.
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
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    };
    let json: unknown;
    try {
      json = JSON.parse(v);
    } catch {
      return fail('not JSON, like {"AI Consulting": {"to": "ai@example.com"}}');
    }
    if (typeof json !== "object" || json === null || Array.isArray(json))
      return fail("a JSON object of service names");
    const twice = keyNamedTwice(v);
    if (twice !== null)
      return fail(
        `names "${twice}" twice: the first would be dropped without a word (merge the two)`,
      );
    for (const key of Object.keys(json).filter((k) => !ROUTE_KEYS.includes(k)))
      fail(`unknown service "${key}" (one of ${ROUTE_KEYS.join(", ")})`);
    const parsed = z.record(z.string(), route).safeParse(json);
    for (const i of parsed.error?.issues ?? [])
      fail(`"${String(i.path[0])}".${i.path.slice(1).join(".")}: ${i.message}`);
    return parsed.data;
  });

/** The first key an object of `json` (valid JSON) names twice: JSON.parse keeps the last one silently. */
function keyNamedTwice(json: string): string | null {
  // Strings are read whole, so a brace or a colon inside one is no token.
  const objects: Array<Set<string> | null> = [];
  let key = false;
  for (const [token] of json.matchAll(/"(?:[^"\\]|\\.)*"|[{}[\]:,]/g)) {
    if (token === "{" || token === "[") objects.push(token === "{" ? new Set() : null);
    else if (token === "}" || token === "]") objects.pop();
    else if (key) {
      const name = JSON.parse(token) as string;
      const keys = objects.at(-1) as Set<string>;
      if (keys.has(name)) return name;
      keys.add(name);
    }
    // A key comes first in an object and after each of its commas.
    key = (token === "{" || token === ",") && objects.at(-1) instanceof Set;
  }
  return null;
}

const origins = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const list = (v ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean);
    for (const o of list)
      if (URL.parse(o)?.origin !== o || !/^https?:/.test(o))
        ctx.addIssue({
          code: "custom",
          message: `"${o}" is not an origin like https://www.example.com (no path)`,
        });
    return list;
  });

const publicKey = z
  .string()
  .regex(/^[\x21-\x7e]{8,200}$/, "8 to 200 visible ASCII characters")
  .optional();

export const schema = z.object({
  SITE_URL: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .default("https://www.example.com")
    .transform((u) => u.replace(/\/+$/, "")),
  CONTACT_ENDPOINT: z
    .string()
    .regex(/^(\/|https?:\/\/)\S*$/, "a path starting with / or an http(s):// URL")
    .default(CONTACT_API_PATH),
  CONTACT_PUBLIC_KEY: publicKey,
  CONTACT_PUBLIC_KEY_PREVIOUS: publicKey,
  PORT: z.coerce
    .number({ error: "a port number" })
    .int()
    .min(1, "a port number 1-65535")
    .max(65_535, "a port number 1-65535")
    .default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  NODE_ENV: z.string().optional(),
  SHUTDOWN_DELAY_MS: z.coerce
    .number({ error: "milliseconds" })
    .int()
    .min(0, "0 or more milliseconds")
    .max(60_000, "at most 60000 milliseconds")
    .default(0),
  // As Express documents `trust proxy`, checked by proxy-addr.
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((given, ctx) => {
      const v = (given ?? "").trim();
      if (v === "") return ["loopback"];
      if (v === "true" || v === "false") return v === "true";
      if (/^\d+$/.test(v)) return Number(v);
      const parts = v.split(",").map((p) => p.trim());
      try {
        proxyaddr.compile(parts);
      } catch (err) {
        const message = `"${v}" is not an address, a subnet, a hop count or one of loopback, linklocal, uniquelocal (${(err as Error).message})`;
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return parts;
    }),
  DATA_DIR: z.string().default("./data"),
  LITESTREAM_REPLICA_URL: z
    .url({ error: "a URL such as s3://bucket/leads or file:///backups/leads" })
    .optional(),
  ...channelVariables,
  ...bookingVariables,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional(),
  CONTACT_ROUTES: routes,
  ALLOWED_ORIGINS: origins,
  RATE_LIMIT_PER_MINUTE: positiveInt.default(5),
  RATE_LIMIT_PER_DAY: positiveInt.default(50),
  RATE_LIMIT_NETWORK_PER_MINUTE: positiveInt.default(20),
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
  SPAM_FILTER: z.enum(["on", "off"], { error: "on or off" }).default("on"),
  INQUIRY_LINK_DAYS: positiveInt.default(30),
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
