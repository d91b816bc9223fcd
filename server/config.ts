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
import { START_WHEN_IDLE_MS } from "./contact/runtime.ts";
import { loadEnv, setVariables } from "./env.ts";
import { externalOrigin } from "./security.ts";

/**
 * The environment parsed once (server/env.ts) and what follows from it, made by the composition root
 * (server/main.ts; scripts/inquiries.ts) and passed down: nothing else reads `process.env`. TUNING:
 * timings and limits no operator sets, each beside the code that uses it; tests turn them through
 * the composition root (`server.js --tuning=JSON`, `loadConfig(env, tuning)`).
 */

export type Config = ReturnType<typeof loadConfig>;

export const TUNING = {
  OUTBOX_POLL_MS,
  OUTBOX_RETRY_BASE_MS,
  OUTBOX_RETRY_MAX_MS,
  OUTBOX_GIVE_UP_AFTER_MS,
  OUTBOX_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  HOUSEKEEPING_TURN_MS,
  START_WHEN_IDLE_MS,
  RETENTION_INTERVAL_MS,
  SPAM_HOLD_SCORE: HOLD_SCORE,
  SPAM_SUSPECT_SCORE: SUSPECT_SCORE,
  SPAM_MIN_FILL_MS: MIN_FILL_MS,
  SPAM_MAX_LINKS: MAX_LINKS,
  FORM_TOKEN_MAX_AGE_MS,
  SPAM_CORPUS_DIR: undefined as string | undefined,
};
export type Tuning = typeof TUNING;

export function tuningFromArgs(argv: readonly string[]): Partial<Tuning> {
  const arg = argv.find((a) => a.startsWith("--tuning="));
  return arg ? (JSON.parse(arg.slice("--tuning=".length)) as Partial<Tuning>) : {};
}

/** For the build (vite.config.ts, scripts/postbuild.js). */
export const loadBuildEnv = (source: NodeJS.ProcessEnv = process.env) => loadEnv(source);

export function loadConfig(source: NodeJS.ProcessEnv = process.env, tuning: Partial<Tuning> = {}) {
  const env = loadEnv(source);
  const tuned = { ...TUNING, ...tuning };
  return {
    ...env,
    ...tuned,
    dataDir: resolve(env.DATA_DIR),
    siteUrlSet: "SITE_URL" in setVariables(source),
    siteHost: new URL(env.SITE_URL).hostname,
    publicKeys: [
      contactPublicKey(env.CONTACT_PUBLIC_KEY),
      ...(env.CONTACT_PUBLIC_KEY_PREVIOUS ? [env.CONTACT_PUBLIC_KEY_PREVIOUS] : []),
    ],
    allowedOrigins: (env.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean),
    contactOrigin: externalOrigin(env.CONTACT_ENDPOINT),
    routes: env.CONTACT_ROUTES ?? {},
  };
}
