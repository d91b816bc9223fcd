// First, before anything imports app/config/site.ts: the environment gives it the site's URL.
import "./env.ts";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import pino from "pino";
import { RouterContextProvider } from "react-router";
import { site } from "../app/config/site.ts";
import { FORM_TOKEN_PLACEHOLDER } from "../app/contact/fields.ts";
import { loadAddressSecret } from "./contact/address-hash.ts";
import { loadConfig } from "./contact/config.ts";
import { StorageUnavailableError } from "./contact/db.ts";
import { formTokens } from "./contact/form-token.ts";
import { contactEndpoint, ENDPOINT, MAX_BODY_BYTES } from "./contact/http.ts";
import { createMetrics } from "./contact/metrics.ts";
import { startContactRuntime } from "./contact/runtime.ts";
import { loadEnv } from "./env.ts";
import {
  bodyLimit,
  canonicalRedirect,
  formPostGuard,
  hostsOf,
  httpsRedirect,
  methodGuard,
  warnUntrustedProxy,
} from "./guards.ts";
import { BASE_HEADERS, HSTS, NON_HTML_POLICY, policyForHtml } from "./security.ts";
import { loadNotFoundPages, loadStaticFiles, serveNotFound, serveStatic } from "./static.js";

/**
 * The production server (started by server.js, which checks the Node version first): prerendered pages and assets from memory; the contact endpoint and its
 * outbox worker; everything else (404 pages, the no-JavaScript form post) through React Router.
 * `npm start` builds first if needed (scripts/ensure-build.js).
 */

const root = fileURLToPath(new URL("../", import.meta.url));
const clientDir = `${root}build/client`;
const serverBuild = `${root}build/server/index.js`;
if (!existsSync(serverBuild)) {
  console.error("No build found: run `npm run build` first (npm start does it for you).");
  process.exit(1);
}

const log = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
// Nothing may end the process by accident: a rejection nobody handled is a bug, logged in one line.
process.on("unhandledRejection", (reason) => {
  log.error({ err: { message: reason instanceof Error ? reason.message : String(reason) } }, "unhandled rejection");
});

let env;
let config;
try {
  env = loadEnv();
  config = loadConfig();
} catch (err) {
  log.fatal(err.message);
  process.exit(1);
}
const { PORT: port, HOST: host, TRUST_PROXY: trustProxy } = env;

const build = await import(serverBuild);
const files = loadStaticFiles(clientDir);
// The contact page's form tokens are signed with the address-hash secret (outside the database).
// If DATA_DIR cannot hold it yet, a key for this process only: the form works, tokens from before
// a restart are held for review.
let tokenSecret;
try {
  tokenSecret = loadAddressSecret(config);
} catch (err) {
  tokenSecret = randomBytes(32).toString("hex");
  log.warn({ reason: err.message }, "no address-hash secret yet: form tokens are signed with a key of this process");
}
const tokens = formTokens(tokenSecret);
const notFound = loadNotFoundPages(clientDir);

// React Router checks a form post's Origin against the Host; behind a proxy, name the public hosts.
const actionHosts = config.allowedOrigins.map((o) => new URL(o).host);
const routerBuild = actionHosts.length > 0 ? { ...build, allowedActionOrigins: actionHosts } : build;

// Started in the background: pages are served even while storage does not work (server/contact/runtime.ts).
let contact = null;

const FORM_PATHS = new Set(["/contact", "/contact/"]);
const PROBES = new Set(["/healthz", "/readyz"]);
// /metrics exists on the site's port only with METRICS_TOKEN; otherwise it is an unknown path (404).
const metrics = createMetrics();
if (config.metrics.token) PROBES.add("/metrics");
const isPage = (path) => files.has(path);

const app = express();
app.disable("x-powered-by");
// Pages and assets carry their own validators (static.js); JSON answers are no-store and need none.
app.set("etag", false);
app.set("trust proxy", trustProxy);

// One JSON line per request. No query strings, addresses or bodies: they can carry personal data.
app.use((req, res, next) => {
  const start = process.hrtime.bigint();
  res.on("finish", () => {
    log.info({
      method: req.method,
      path: req.path,
      status: res.statusCode,
      ms: Number((process.hrtime.bigint() - start) / 10_000n) / 100,
      bytes: Number(res.getHeader("content-length") ?? 0) || undefined,
    });
  });
  next();
});
app.use(warnUntrustedProxy(app.get("trust proxy fn"), log));

// Security headers on every response (server/security.ts); pages replace the CSP with their own.
app.use((req, res, next) => {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
  if (req.secure) res.setHeader("Strict-Transport-Security", HSTS);
  next();
});
app.use(httpsRedirect(hostsOf([site.url, ...config.allowedOrigins])));
// Every body is capped before anything reads it; the JSON endpoint caps its own (chunked too) with JSON answers.
app.use(bodyLimit(MAX_BODY_BYTES, (req) => req.path === ENDPOINT));

app.get("/healthz", (_req, res) => {
  res.setHeader("Cache-Control", "no-store");
  res.json({ status: "ok" });
});
app.get("/readyz", async (_req, res) => {
  res.setHeader("Cache-Control", "no-store");
  const state = contact ? await contact.readiness() : { ready: false, reason: "starting" };
  if (state.ready) return res.json({ status: "ready" });
  res.setHeader("Retry-After", "10");
  res.status(503).json({ status: "not ready", reason: state.reason });
});

if (config.metrics.token) {
  const expected = Buffer.from(`Bearer ${config.metrics.token}`);
  app.get("/metrics", async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const given = Buffer.from(req.get("authorization") ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
      return res.status(401).type("text/plain").send("Unauthorized");
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

const service = {
  submit: (submission) =>
    contact ? contact.service.submit(submission) : Promise.reject(new StorageUnavailableError("starting", 5)),
};
app.use(contactEndpoint({ service, log, publicKey: config.publicKey, allowedOrigins: config.allowedOrigins, metrics }));

app.use(methodGuard({ isKnown: (path) => isPage(path) || PROBES.has(path), formPaths: FORM_PATHS }));
app.use(canonicalRedirect(isPage));
app.use(serveStatic(files, { formToken: () => tokens.issue() }));
app.use(serveNotFound(notFound));
// Only the no-JavaScript form post gets this far: React Router runs its action and renders the page.
app.post([...FORM_PATHS], formPostGuard(MAX_BODY_BYTES));
app.use(compression());
app.use(hashInlineScripts);
app.use(
  createRequestHandler({
    build: routerBuild,
    mode: "production",
    getLoadContext(req) {
      const context = new RouterContextProvider();
      context.set(build.entry.module.contactContext, { service, clientIp: req.ip });
      return context;
    },
  }),
);

// Last resort: a visitor never sees a stack trace, and the log gets one line without one.
app.use((err, _req, res, _next) => {
  const status = err.status ?? err.statusCode;
  const clientError = Number.isInteger(status) && status >= 400 && status < 500;
  if (!clientError) log.error({ err: { message: err.message } }, "unhandled error");
  if (res.headersSent) return res.end();
  if (clientError) return res.status(status).type("text/plain").send("Bad Request");
  res.status(500).type("text/plain").send("Internal Server Error");
});

const server = createServer(app);
server.on("error", (err) => {
  const why = err.code === "EADDRINUSE" ? "the address is already in use" : err.message;
  log.fatal({ code: err.code }, `cannot listen on ${host}:${port}: ${why}`);
  process.exit(1);
});
server.listen(port, host, () => {
  contact = startContactRuntime(config, log, { metrics, tokens });
  if (config.metrics.port) serveMetricsPrivately(config.metrics);
  log.info({ url: `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`, files: files.size }, "server started");
});

/**
 * Server-rendered HTML (the answer to a form post) gets the same policy as a prerendered page:
 * buffer it (it is small), put in a fresh form token, hash its inline scripts, send it with its CSP.
 */
function hashInlineScripts(_req, res, next) {
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  const chunks = [];
  const isHtml = () => String(res.getHeader("content-type") ?? "").startsWith("text/html");
  res.write = (chunk, encoding, callback) => {
    if (!isHtml()) return write(chunk, encoding, callback);
    chunks.push(Buffer.from(chunk, typeof encoding === "string" ? encoding : undefined));
    if (typeof encoding === "function") encoding();
    else if (typeof callback === "function") callback();
    return true;
  };
  res.end = (chunk, encoding, callback) => {
    if (!isHtml()) return end(chunk, encoding, callback);
    if (chunk && typeof chunk !== "function") {
      chunks.push(Buffer.from(chunk, typeof encoding === "string" ? encoding : undefined));
    }
    // A re-rendered contact form gets a fresh form token, as the served page does.
    const html = Buffer.concat(chunks)
      .toString("utf8")
      .replace(FORM_TOKEN_PLACEHOLDER, () => tokens.issue());
    const body = Buffer.from(html);
    res.setHeader("Content-Security-Policy", policyForHtml(html));
    return end(body, typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback);
  };
  next();
}

/** /metrics without a token on a port of its own, bound to localhost unless METRICS_HOST says otherwise. */
function serveMetricsPrivately({ port: metricsPort, host: metricsHost }) {
  const metricsServer = createServer(async (req, res) => {
    if (req.method !== "GET" || req.url !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
    res.end(await metrics.registry.metrics());
  });
  metricsServer.on("error", (err) => log.error({ code: err.code }, `metrics port ${metricsPort}: ${err.message}`));
  metricsServer.listen(metricsPort, metricsHost, () =>
    log.info({ port: metricsPort, host: metricsHost }, "metrics served"),
  );
  metricsServer.unref();
}

let stopping = false;
function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  server.close(async () => {
    await contact?.close().catch((err) => log.error({ err: { message: err.message } }, "closing the contact pipeline"));
    log.info("server stopped");
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => {
    server.closeAllConnections();
    process.exit(0);
  }, 10_000).unref();
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
