import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import pino from "pino";
import { RouterContextProvider } from "react-router";
import { loadConfig } from "./server/contact/config.ts";
import { contactEndpoint, MAX_BODY_BYTES } from "./server/contact/http.ts";
import { createContactPipeline } from "./server/contact/service.ts";
import { BASE_HEADERS, HSTS, NON_HTML_POLICY, policyForHtml } from "./server/security.ts";
import { loadStaticFiles, serveStatic } from "./server/static.js";

/**
 * The production server: prerendered pages and assets from memory; the contact endpoint and its
 * outbox worker; everything else (404 pages, the no-JavaScript form post) through React Router.
 * `npm start` builds first if needed (scripts/ensure-build.js).
 */

const root = fileURLToPath(new URL(".", import.meta.url));
const clientDir = `${root}build/client`;
const serverBuild = `${root}build/server/index.js`;
if (!existsSync(serverBuild)) {
  console.error("No build found: run `npm run build` first (npm start does it for you).");
  process.exit(1);
}

const log = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
const port = Number.parseInt(process.env.PORT ?? "3000", 10);
const host = process.env.HOST ?? "0.0.0.0";

const build = await import(serverBuild);
const files = loadStaticFiles(clientDir);

let config;
try {
  config = loadConfig();
} catch (err) {
  log.fatal(err.message);
  process.exit(1);
}
const contact = await createContactPipeline(config, log);
contact.pipeline.worker.start();

// React Router checks a form post's Origin against the Host; behind a proxy, name the public hosts.
const actionHosts = config.allowedOrigins.map((o) => new URL(o).host);
const routerBuild = actionHosts.length > 0 ? { ...build, allowedActionOrigins: actionHosts } : build;

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", process.env.TRUST_PROXY ?? "loopback");

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

// Security headers on every response (server/security.ts); pages replace the CSP with their own.
app.use((req, res, next) => {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
  if (req.secure) res.setHeader("Strict-Transport-Security", HSTS);
  // Behind a TLS proxy that reports a plain-HTTP request: send the visitor to HTTPS first.
  if (req.get("x-forwarded-proto") && req.protocol === "http" && req.get("host")) {
    return res.redirect(308, `https://${req.get("host")}${req.originalUrl}`);
  }
  next();
});

app.get("/healthz", (_req, res) => {
  res.setHeader("Cache-Control", "no-store");
  res.json({ status: "ok" });
});

app.use(
  contactEndpoint({
    service: contact.pipeline,
    log,
    publicKey: config.publicKey,
    allowedOrigins: config.allowedOrigins,
  }),
);

// The no-JavaScript form post: refuse oversized bodies before React Router reads them.
app.post(["/contact", "/contact/"], (req, res, next) => {
  const length = req.get("content-length");
  if (length === undefined) return res.status(411).type("text/plain").send("Length Required");
  if (Number(length) > MAX_BODY_BYTES) return res.status(413).type("text/plain").send("Message too large");
  next();
});

app.use(serveStatic(files));
// Pages that are not prerendered (404s) and form posts: React Router, compressed on the fly.
app.use(compression());
app.use(hashInlineScripts);
app.use(
  createRequestHandler({
    build: routerBuild,
    mode: "production",
    getLoadContext(req) {
      const context = new RouterContextProvider();
      context.set(build.entry.module.contactContext, { service: contact.pipeline, clientIp: req.ip });
      return context;
    },
  }),
);

// Last resort: a visitor never sees a stack trace.
app.use((err, _req, res, _next) => {
  log.error({ err }, "unhandled error");
  if (res.headersSent) return res.end();
  res.status(500).type("text/plain").send("Internal Server Error");
});

const server = app.listen(port, host, () => {
  log.info({ url: `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`, files: files.size }, "server started");
});

/**
 * Server-rendered HTML (a 404 page, the answer to a form post) gets the same policy as a prerendered
 * page: buffer it (it is small), hash its inline scripts, then send it with its CSP.
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
    const body = Buffer.concat(chunks);
    res.setHeader("Content-Security-Policy", policyForHtml(body.toString("utf8")));
    return end(body, typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback);
  };
  next();
}

let stopping = false;
function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  server.close(async () => {
    await contact.close().catch((err) => log.error({ err: { message: err.message } }, "closing the contact pipeline"));
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
