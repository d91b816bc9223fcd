import { resolve } from "node:path";
import { contactPublicKey } from "../app/contact/api.ts";
import { loadEnv, setVariables } from "./env.ts";
import { externalOrigin } from "./security.ts";
import { DAY_MS } from "./time.ts";

/**
 * The environment parsed once (server/env.ts) and what follows from it, made by the composition root
 * (server/main.ts; server/cli.ts) and passed down: nothing else reads `process.env`. TUNING:
 * timings and limits no operator sets, all here so that reading them loads none of the modules that
 * use them (a restart serves its first page before the contact pipeline loads, ADR 0025); tests
 * turn them through the composition root (`server.js --tuning=JSON`, `loadConfig(env, tuning)`).
 */

export type Config = ReturnType<typeof loadConfig>;

export const TUNING = {
  // The outbox (contact/delivery/worker.ts): a retry doubles from the base to the cap; a lead not
  // delivered within a day fails for good and is reported; a claim lapses if its instance dies.
  OUTBOX_POLL_MS: 1_000,
  OUTBOX_RETRY_BASE_MS: 30_000,
  OUTBOX_RETRY_MAX_MS: 60 * 60_000,
  OUTBOX_GIVE_UP_AFTER_MS: DAY_MS,
  OUTBOX_LEASE_MS: 2 * 60_000,
  DELIVERY_TIMEOUT_MS: 10_000,
  // Housekeeping (contact/housekeeping.ts) looks every minute: the digest goes within it of opening.
  HOUSEKEEPING_TURN_MS: 60_000,
  // What its turns do by the office's clock: the morning digest, the visitors' reminders of their
  // calls, the weekly numbers, the retention pass (inquiries, and copies past the backup period), the
  // reply promise's public figure (once an office day). A server the tests start does none unless the test asks, so
  // none comes at an hour a test did not choose (tests/support/server.ts).
  SCHEDULE: ["digest", "booking-reminders", "weekly-numbers", "retention", "figure"] as Array<
    "digest" | "booking-reminders" | "weekly-numbers" | "retention" | "figure"
  >,
  RETENTION_INTERVAL_MS: DAY_MS,
  // With no request to answer first, the contact pipeline starts this long after the server listens.
  START_WHEN_IDLE_MS: 100,
  // The spam defence (contact/intake/spam.ts): the hold and the band chosen by `npm run bench:spam`
  // (ADR 0023, 0028).
  SPAM_HOLD_SCORE: 0.9995,
  SPAM_SUSPECT_SCORE: 0.5,
  SPAM_MIN_FILL_MS: 3_000,
  SPAM_MAX_LINKS: 2,
  FORM_TOKEN_MAX_AGE_MS: DAY_MS,
  SPAM_CORPUS_DIR: undefined as string | undefined,
};
export type Tuning = typeof TUNING;

export function tuningFromArgs(argv: readonly string[]): Partial<Tuning> {
  const arg = argv.find((a) => a.startsWith("--tuning="));
  return arg ? (JSON.parse(arg.slice("--tuning=".length)) as Partial<Tuning>) : {};
}

/** For the build (vite.config.ts, scripts/postbuild.js). */
export const loadBuildEnv = (source: NodeJS.ProcessEnv) => loadEnv(source);

export function loadConfig(source: NodeJS.ProcessEnv, tuning: Partial<Tuning> = {}) {
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
    contactOrigin: externalOrigin(env.CONTACT_ENDPOINT),
    routes: env.CONTACT_ROUTES ?? {},
  };
}
