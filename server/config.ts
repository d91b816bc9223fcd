import { resolve } from "node:path";
import { contactPublicKey } from "../app/contact/api.ts";
import { DELIVERY_TIMEOUT_MS } from "./contact/delivery/channel.ts";
import {
  OUTBOX_GIVE_UP_AFTER_MS,
  OUTBOX_LEASE_MS,
  OUTBOX_POLL_MS,
  OUTBOX_RETRY_BASE_MS,
  OUTBOX_RETRY_MAX_MS,
} from "./contact/delivery/worker.ts";
import { HOUSEKEEPING_TURN_MS, RETENTION_INTERVAL_MS } from "./contact/housekeeping.ts";
import { HOLD_SCORE, SUSPECT_SCORE } from "./contact/intake/content-filter.ts";
import { FORM_TOKEN_MAX_AGE_MS, MAX_LINKS, MIN_FILL_MS } from "./contact/intake/spam.ts";
import { loadEnv, setVariables } from "./env.ts";
import { externalOrigin } from "./security.ts";

/**
 * The configuration: the environment, parsed once (server/env.ts), and what follows from it, made
 * once by the composition root (server/main.ts; scripts/inquiries.ts for the CLI) and passed down.
 * Nothing else reads `process.env`. A bad value stops the start with one line naming the variable.
 */

export type Config = ReturnType<typeof loadConfig>;

/**
 * Timings and limits no operator needs to set: each is a named constant beside the code that uses it,
 * gathered here so the composition root can pass it down. A test changes them through the composition
 * root (`server.js --tuning=JSON`, see tests/support/server.ts; `loadConfig(env, tuning)` in process),
 * never through the environment.
 */
export const TUNING = {
  OUTBOX_POLL_MS,
  OUTBOX_RETRY_BASE_MS,
  OUTBOX_RETRY_MAX_MS,
  OUTBOX_GIVE_UP_AFTER_MS,
  OUTBOX_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  HOUSEKEEPING_TURN_MS,
  RETENTION_INTERVAL_MS,
  SPAM_HOLD_SCORE: HOLD_SCORE,
  SPAM_SUSPECT_SCORE: SUSPECT_SCORE,
  SPAM_MIN_FILL_MS: MIN_FILL_MS,
  SPAM_MAX_LINKS: MAX_LINKS,
  FORM_TOKEN_MAX_AGE_MS,
  /** The content filter's seed corpus folder; unset, the one shipped in server/contact/intake/corpus/. */
  SPAM_CORPUS_DIR: undefined as string | undefined,
};
export type Tuning = typeof TUNING;

/** The `--tuning=JSON` argument a test starts the server (or the CLI) with; none for everyone else. */
export function tuningFromArgs(argv: readonly string[]): Partial<Tuning> {
  const arg = argv.find((a) => a.startsWith("--tuning="));
  return arg ? (JSON.parse(arg.slice("--tuning=".length)) as Partial<Tuning>) : {};
}

/** The environment alone, for the build (vite.config.ts, scripts/postbuild.js): what the pages bake in. */
export const loadBuildEnv = (source: NodeJS.ProcessEnv = process.env) => loadEnv(source);

export function loadConfig(source: NodeJS.ProcessEnv = process.env, tuning: Partial<Tuning> = {}) {
  const env = loadEnv(source);
  const tuned = { ...TUNING, ...tuning };
  return {
    ...env,
    ...tuned,
    dataDir: resolve(env.DATA_DIR),
    /** Whether SITE_URL was set (unset, it is the example's: review/links.ts refuses that in production). */
    siteUrlSet: "SITE_URL" in setVariables(source),
    /** The host of SITE_URL: the sender's domain and the Message-IDs' right side. */
    siteHost: new URL(env.SITE_URL).hostname,
    /** The anonymous public keys the server accepts as bearer token: the pages' (app/contact/api.ts has the default), and while it changes the previous one. */
    publicKeys: [
      contactPublicKey(env.CONTACT_PUBLIC_KEY),
      ...(env.CONTACT_PUBLIC_KEY_PREVIOUS ? [env.CONTACT_PUBLIC_KEY_PREVIOUS] : []),
    ],
    /** Origins (scheme://host[:port]) allowed to call the endpoint from a browser, besides the site's own. */
    allowedOrigins: (env.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean),
    /** The origin of CONTACT_ENDPOINT when it is another site's (a hosted function): pages may call it. */
    contactOrigin: externalOrigin(env.CONTACT_ENDPOINT),
    /** Leads routed by service line (delivery/routing.ts). */
    routes: env.CONTACT_ROUTES ?? {},
  };
}
