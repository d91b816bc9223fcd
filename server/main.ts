import { mkdirSync } from "node:fs";
import { flushCompileCache } from "node:module";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import type { ServerBuild } from "react-router";
import { site } from "../app/config/site.ts";
import { createApp } from "./app.ts";
import { type Config, loadConfig, tuningFromArgs } from "./config.ts";
import { channelsOf, routingOf, unnamedProcessors } from "./contact/delivery/routing.ts";
import { secretKeys } from "./contact/intake/address-hash.ts";
import { KeyRing } from "./contact/keys.ts";
import { createMetrics } from "./contact/metrics.ts";
import { siteUrlProblem } from "./contact/review/links.ts";
import { figureHolder } from "./contact/review/public-figure.ts";
import { startContactRuntime } from "./contact/runtime.ts";
import { dataDirHolder, holdDataDir } from "./contact/storage/data-dir.ts";
import { PLACEHOLDER_WARNING, placeholderContacts } from "./facts.ts";
import { loadNotFoundPages, loadStaticFiles } from "./static.ts";

/**
 * The composition root (started by server.js): the configuration read once, the keys, metrics and
 * app made and handed what they need; what the first page does not need (React Router's build, the
 * contact pipeline) loads once it is served.
 */

const root = fileURLToPath(new URL("../", import.meta.url));
const clientDir = `${root}build/client`;

// A full pipe (a reader that stopped) is waited for, at shutdown only until the grace period ends.
let logDeadline = Number.POSITIVE_INFINITY;
const logOut = pino.destination({ sync: false, retryEAGAIN: () => Date.now() < logDeadline });
let logGone = false;
const gone = () => {
  logGone = true;
};
logOut.on("error", gone).on("close", gone);
const log = pino(
  {
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  },
  logOut,
);
// A rejection nobody handled is a bug, logged in one line, not the end of the process.
process.on("unhandledRejection", (reason) => {
  log.error({ err: reason }, "unhandled rejection");
});

function refuseToStart(err: unknown): never {
  log.fatal((err as Error).message);
  log.flush();
  process.exit(1);
}

let config: Config;
let leadsLeave = false;
try {
  config = loadConfig(process.env, tuningFromArgs(process.argv));
  // The privacy notice never falls behind the running system: a lead goes to no one it does not name.
  const unnamed = unnamedProcessors(config, site.privacy.processors);
  if (unnamed) throw new Error(unnamed);
  // The links in a lead point at SITE_URL: refused when they would be wrong and leave this machine.
  leadsLeave = Boolean(config.SMTP_URL) || channelsOf(routingOf(config)).some((c) => c !== "email");
  const wrongLinks = siteUrlProblem(config, leadsLeave);
  if (wrongLinks) throw new Error(wrongLinks);
} catch (err) {
  refuseToStart(err);
}
const { PORT: port, HOST: host } = config;
const placeholders = placeholderContacts(site);
if (placeholders.length > 0) log.warn({ placeholders }, PLACEHOLDER_WARNING);
// A deployment whose leads leave this machine, on SQLite in a folder relative to the release's: a new
// release in a folder of its own would start on an empty database (docs/deployment.md, "Upgrades").
// The image's DATA_DIR is /data; a laptop's `npm start` keeps its leads in ./data/mail, unwarned.
if (leadsLeave && !config.DATABASE_URL && !isAbsolute(config.DATA_DIR)) {
  log.warn(
    { dataDir: config.dataDir },
    `DATA_DIR is relative (${config.DATA_DIR}): the leads are kept under the folder the server started in, and a release in a folder of its own starts without them. Set an absolute DATA_DIR outside every release, such as /var/lib/teton (docs/deployment.md, "Upgrades")`,
  );
}

const keys = secretKeys(new KeyRing(), config);

// What holds a lead is its owner's alone, whatever the shell's umask.
process.umask(0o077);
// On SQLite one server per data folder: a second refuses, and so does `restore` while this one runs.
let inUse: { release(): void } | null = null;
if (!config.DATABASE_URL) {
  const { dataDir } = config;
  try {
    mkdirSync(dataDir, { recursive: true });
    inUse = holdDataDir(dataDir);
    if (!inUse) {
      const holder = dataDirHolder(dataDir);
      const who = holder ? ` (process ${holder.pid} on ${holder.host})` : "";
      refuseToStart(new Error(`another server uses ${dataDir}${who}: one server per data folder`));
    }
  } catch (err) {
    log.warn(
      { reason: (err as Error).message },
      "the data folder cannot be used yet: the contact storage will say why",
    );
  }
}
const metrics = createMetrics();
const figure = figureHolder();
const files = loadStaticFiles(clientDir, config.contactOrigin);
const { promise: served, resolve: firstServed } = Promise.withResolvers<void>();
const runtime = startContactRuntime(config, log, { keys, metrics, after: served, figure });

const { app, ready } = createApp({
  config,
  log,
  build: served.then(() => import(`${root}build/server/index.js`) as Promise<ServerBuild>),
  files,
  notFound: loadNotFoundPages(clientDir, config.contactOrigin),
  tokens: keys.tokens,
  links: keys.links,
  metrics,
  runtime,
  figure,
});
// The compile cache (server.js) written once everything is loaded, not only at a clean exit.
ready.then(flushCompileCache, async (err) => {
  await runtime.close().catch(() => undefined);
  refuseToStart(err);
});

// Not `import "node:http"`: its ES module facade reads every export, and the lazy ones load undici
// (~20 ms of CPU at a start). Once stopping, a proxy's pooled connections end after their request.
const server = process.getBuiltinModule("node:http").createServer((req, res) => {
  if (stopping) res.setHeader("Connection", "close");
  res.once("finish", firstServed);
  app(req, res);
});
// A proxy (nginx's keepalive_timeout is 60 s) closes an idle connection first: a POST is never cut.
server.keepAliveTimeout = 75_000;
server.headersTimeout = 76_000;
server.on("error", (err: NodeJS.ErrnoException) => {
  const why = err.code === "EADDRINUSE" ? "the address is already in use" : err.message;
  log.fatal({ code: err.code }, `cannot listen on ${host}:${port}: ${why}`);
  process.exit(1);
});
server.listen(port, host, () => {
  log.info(
    { url: `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`, files: files.size },
    "server started",
  );
  setTimeout(firstServed, config.START_WHEN_IDLE_MS);
});

let stopping = false;
const GRACE_MS = 10_000;
function shutdown(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  runtime.leaveRotation();
  logDeadline = Date.now() + config.SHUTDOWN_DELAY_MS + GRACE_MS;
  log.info({ signal, delayMs: config.SHUTDOWN_DELAY_MS }, "shutting down");
  setTimeout(drain, config.SHUTDOWN_DELAY_MS);
}

function drain() {
  server.close(async () => {
    await runtime.close().catch((err: Error) => log.error({ err }, "closing the contact pipeline"));
    inUse?.release();
    log.info("server stopped");
    exitOnceLogged();
  });
  server.closeIdleConnections();
  setTimeout(() => {
    server.closeAllConnections();
    inUse?.release();
    exitOnceLogged();
  }, GRACE_MS).unref();
}

// pino's own flush at exit would retry a write to a reader that has gone for ever: closed first.
function exitOnceLogged() {
  const exit = () => {
    logOut.destroy();
    process.exit(0);
  };
  if (logGone) return exit();
  logOut.once("close", exit).once("error", exit);
  setTimeout(exit, Math.max(0, logDeadline - Date.now()));
  logOut.end();
}
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => shutdown(signal));
