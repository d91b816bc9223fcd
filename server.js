import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import pino from "pino";
import { loadStaticFiles, serveStatic } from "./server/static.js";

/**
 * The production server: prerendered pages and assets from memory, everything else (404 pages,
 * the contact form) through React Router. `npm start` builds first if needed (scripts/ensure-build.js).
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

app.use((_req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
  next();
});

app.get("/healthz", (_req, res) => {
  res.setHeader("Cache-Control", "no-store");
  res.json({ status: "ok" });
});

app.use(serveStatic(files));
// Pages that are not prerendered (404s) and form posts: React Router, compressed on the fly.
app.use(compression());
app.use(createRequestHandler({ build, mode: "production" }));

// Last resort: a visitor never sees a stack trace.
app.use((err, _req, res, _next) => {
  log.error({ err }, "unhandled error");
  if (res.headersSent) return res.end();
  res.status(500).type("text/plain").send("Internal Server Error");
});

const server = app.listen(port, host, () => {
  log.info({ url: `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`, files: files.size }, "server started");
});

let stopping = false;
function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  server.close(() => {
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
