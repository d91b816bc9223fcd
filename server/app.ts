import { timingSafeEqual } from "node:crypto";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import onHeaders from "on-headers";
import type { Logger } from "pino";
import type { ServerBuild } from "react-router";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import type { ContactContextKey } from "../app/contact/context.ts";
import { LEAD_PATH, OVERVIEW_PATH } from "../app/contact/lead.ts";
import type { Config } from "./config.ts";
import { contactEndpoint, MAX_BODY_BYTES, noted } from "./contact/http/endpoint.ts";
import type { FormTokens } from "./contact/intake/form-token.ts";
import type { ContactMetrics } from "./contact/metrics.ts";
import type { LeadLinks } from "./contact/review/links.ts";
import type { ContactRuntime } from "./contact/runtime.ts";
import {
  bodyLimit,
  canonicalRedirect,
  formPostGuard,
  hostsOf,
  httpsRedirect,
  methodGuard,
  warnUntrustedProxy,
} from "./guards.ts";
import { NON_HTML_POLICY, setBaseHeaders } from "./security.ts";
import type { StaticFile } from "./static.ts";
import { serveNotFound, serveStatic } from "./static.ts";

/**
 * The site as one Express app, in the order a request meets it: the request log, security headers,
 * the HTTPS redirect and the body cap; the probes and /metrics; the contact endpoint; what is refused
 * or redirected before any page (methods, case variants); the prerendered pages and files from
 * memory, and the prebuilt 404 pages; and last React Router, for the no-JavaScript form post.
 * server/main.ts makes it and serves it.
 */
export type AppOptions = {
  config: Config;
  log: Logger;
  /** React Router's server build: loaded while the first pages are served (only the form post without JavaScript and the lead page need it). */
  build: Promise<ServerBuild>;
  files: Map<string, StaticFile>;
  notFound: Array<[string, StaticFile]>;
  tokens: FormTokens;
  /** Signs and checks the links in a lead (contact/review/links.ts). */
  links: LeadLinks;
  metrics: ContactMetrics;
  /** The contact pipeline as the server holds it (its doors answer 503 until storage works). */
  runtime: ContactRuntime;
};

const FORM_PATHS = new Set(["/contact", "/contact/"]);

/** The app, and once React Router is loaded `ready` (rejected, naming why, for a build it cannot run). */
export function createApp(o: AppOptions): { app: express.Express; ready: Promise<void> } {
  const { config, log, files, tokens, metrics } = o;
  const probePaths = new Set(config.METRICS_TOKEN ? ["/healthz", "/readyz", "/metrics"] : ["/healthz", "/readyz"]);
  const isPage = (path: string) => files.has(path);

  const app = express();
  app.disable("x-powered-by");
  // Pages and assets carry their own validators (static.ts); JSON answers are no-store and need none.
  app.set("etag", false);
  app.set("trust proxy", config.TRUST_PROXY);

  app.use(requestLog(log));
  app.use(warnUntrustedProxy(app.get("trust proxy fn"), log));

  app.use((req, res, next) => {
    setBaseHeaders(res, req.secure);
    next();
  });
  app.use(httpsRedirect(hostsOf([config.SITE_URL, ...config.allowedOrigins]), log));
  // Every body is capped before anything reads it; the JSON endpoint caps its own (chunked too) with JSON answers.
  app.use(bodyLimit(MAX_BODY_BYTES, (req) => req.path === CONTACT_API_PATH));

  app.use(probes(o));

  // Both doors (the JSON endpoint and the form's action, through React Router) submit to the one pipeline.
  app.use(
    contactEndpoint({
      submitter: o.runtime,
      log,
      publicKeys: config.publicKeys,
      allowedOrigins: config.allowedOrigins,
      metrics,
    }),
  );

  const router = reactRouter(o);
  const pages: RequestHandler = (req, res, next) => {
    router.then((handle) => handle(req, res, next), next);
  };
  // Only React Router's answers are compressed here (static.ts has its own): loaded with it.
  const compressor = o.build.then(async () => (await import("compression")).default());
  const compression: RequestHandler = (req, res, next) => {
    compressor.then((compress) => compress(req, res, next), next);
  };
  // The page behind a lead's signed links (contact/review/page.ts): React Router renders it on
  // every request; GET shows, POST (its button) acts. Never stored, indexed or passed on as a referrer.
  app.all([LEAD_PATH, OVERVIEW_PATH], leadHeaders(), compression, policyFromRouter(), pages);

  app.use(methodGuard({ isKnown: (path) => isPage(path) || probePaths.has(path), formPaths: FORM_PATHS }));
  app.use(canonicalRedirect(isPage));
  app.use(serveStatic(files, { formToken: () => tokens.issue() }));
  app.use(serveNotFound(o.notFound));
  app.post([...FORM_PATHS], formPostGuard(MAX_BODY_BYTES));
  app.use(compression);
  app.use(policyFromRouter());

  app.use(pages);
  app.use(lastResort(log));
  return { app, ready: router.then(() => undefined) };
}

/** One JSON line per request. No query strings, addresses or bodies: they can carry personal data. */
function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    // The path as the request came (a router mounted on a path sees less of it while it runs).
    const path = req.path;
    res.on("finish", () => {
      log.info({
        method: req.method,
        path,
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - start) / 10_000n) / 100,
        bytes: Number(res.getHeader("content-length") ?? 0) || undefined,
        // A page the browser loads ahead of a click (speculation rules): "prefetch;prerender".
        purpose: req.get("sec-purpose"),
        // The inquiry a submission stored (or replayed): one lead's journey is one grep.
        inquiryId: res.locals.inquiryId,
      });
    });
    next();
  };
}

/** Liveness, readiness and (with METRICS_TOKEN) /metrics: never cached. */
function probes({ runtime, config, metrics }: AppOptions): express.Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const state = await runtime.readiness();
    if (state.ready) {
      res.json({ status: "ready" });
      return;
    }
    res.setHeader("Retry-After", "10");
    res.status(503).json({ status: "not ready", reason: state.reason });
  });
  if (config.METRICS_TOKEN) {
    const expected = Buffer.from(config.METRICS_TOKEN);
    router.get("/metrics", async (req, res) => {
      res.setHeader("Cache-Control", "no-store");
      // The scheme is case-insensitive (RFC 9110 §11.1): "bearer" and "BEARER" are "Bearer".
      const given = Buffer.from(/^bearer +(.*)$/i.exec(req.get("authorization") ?? "")?.[1] ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
        res.status(401).type("text/plain").send("Unauthorized");
        return;
      }
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  return router;
}

/**
 * React Router's handler, for the no-JavaScript form post: the route's action reads the pipeline
 * under the bundle's own context key (app/entry.server.tsx exports it; a build without it stops the start).
 */
async function reactRouter({ config, runtime, tokens, links, log, ...o }: AppOptions): Promise<RequestHandler> {
  const build = await o.build;
  const [{ createRequestHandler }, { RouterContextProvider }, { leadPage }] = await Promise.all([
    import("@react-router/express"),
    import("react-router"),
    import("./contact/review/page.ts"),
  ]);
  // React Router checks a form post's Origin against the Host; behind a proxy, name the public hosts.
  const actionHosts = config.allowedOrigins.map((origin) => new URL(origin).host);
  const contactContext = (build.entry.module as { contactContext?: ContactContextKey }).contactContext;
  if (!contactContext) {
    throw new Error(
      "The server build does not export contactContext from app/entry.server.tsx: the form without JavaScript could not reach the pipeline. Rebuild after restoring that export.",
    );
  }
  const lead = leadPage({ pipeline: () => runtime.pipeline(), links, config, log });
  return createRequestHandler({
    build: actionHosts.length > 0 ? { ...build, allowedActionOrigins: actionHosts } : build,
    mode: "production",
    getLoadContext(req, res) {
      const context = new RouterContextProvider();
      context.set(contactContext, {
        submitter: noted(runtime, res),
        clientIp: req.ip,
        formToken: () => tokens.issue(),
        lead,
      });
      return context;
    },
  });
}

/** The lead page's headers and methods: GET, HEAD, and the button's form POST (checked as the contact form's is). */
function leadHeaders(): RequestHandler {
  const formPost = formPostGuard(MAX_BODY_BYTES);
  return (req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Robots-Tag", "noindex, nofollow");
    res.setHeader("Referrer-Policy", "no-referrer");
    if (req.method === "GET" || req.method === "HEAD") return next();
    // The overview page only shows: its links lead to /lead, whose buttons post.
    const posts = req.path === LEAD_PATH;
    if (req.method === "POST" && posts) {
      // A page with no-referrer makes the browser send `Origin: null` with its form (Fetch standard),
      // which React Router's check of the action's origin refuses. The token in the form is the
      // credential here (a page elsewhere cannot know it), so a null origin is dropped; a named
      // origin other than the site's is still refused.
      if (req.headers.origin === "null") delete req.headers.origin;
      return formPost(req, res, next);
    }
    res.setHeader("Allow", posts ? "GET, HEAD, POST" : "GET, HEAD");
    res.status(405).type("text/plain").send("Method Not Allowed");
  };
}

/**
 * React Router's answers carry their own policy: a page gets the one entry.server.tsx made for its
 * HTML; anything else (the form's 303) keeps the default, set as the headers go out. (The adapter
 * appends headers, so the default must not be there already, or a page would carry both.)
 */
function policyFromRouter(): RequestHandler {
  return (_req, res, next) => {
    res.removeHeader("Content-Security-Policy");
    onHeaders(res, () => {
      if (!res.hasHeader("Content-Security-Policy")) res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
    });
    next();
  };
}

/** Last resort: a visitor never sees a stack trace, and the log gets one line without one. */
function lastResort(log: Logger): ErrorRequestHandler {
  return (err: Error & { status?: number; statusCode?: number }, _req, res, _next) => {
    const status = err.status ?? err.statusCode ?? 500;
    const clientError = Number.isInteger(status) && status >= 400 && status < 500;
    if (!clientError) log.error({ err: { message: err.message } }, "unhandled error");
    if (res.headersSent) {
      res.end();
      return;
    }
    if (clientError) {
      res.status(status).type("text/plain").send("Bad Request");
      return;
    }
    res.status(500).type("text/plain").send("Internal Server Error");
  };
}
