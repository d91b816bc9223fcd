import { timingSafeEqual } from "node:crypto";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import onHeaders from "on-headers";
import type { Logger } from "pino";
import type { ServerBuild } from "react-router";
import { CONTACT_API_PATH } from "../app/contact/api.ts";
import { BOOK_PATH, BOOKING_PATHS } from "../app/contact/booking.ts";
import type { ContactContextKey } from "../app/contact/context.ts";
import { LEAD_PATH, OVERVIEW_PATH } from "../app/contact/lead.ts";
import type { Config } from "./config.ts";
import { contactEndpoint, MAX_BODY_BYTES, noted } from "./contact/http/endpoint.ts";
import type { FormTokens } from "./contact/intake/form-token.ts";
import type { ContactMetrics } from "./contact/metrics.ts";
import type { LeadLinks } from "./contact/review/links.ts";
import type { FigureHolder } from "./contact/review/public-figure.ts";
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
import type { StaticFile, StaticFiles } from "./static.ts";
import { serveNotFound, serveStatic } from "./static.ts";

/**
 * The site as one Express app, in the order a request meets it: log, headers, HTTPS redirect, body
 * cap; probes; the contact endpoint; what is refused or redirected; the prerendered files; and last
 * React Router (the no-JavaScript form post, the lead pages; its build loads after the first page).
 */
type AppOptions = {
  config: Config;
  log: Logger;
  build: Promise<ServerBuild>;
  files: StaticFiles;
  notFound: Array<[string, StaticFile]>;
  tokens: FormTokens;
  links: LeadLinks;
  metrics: ContactMetrics;
  runtime: ContactRuntime;
  /** The reply promise's public figure as this instance serves it; none: the promise alone. */
  figure?: FigureHolder;
};

/** `ready`: React Router is loaded (rejected, naming why, for a build it cannot run). */
export function createApp(o: AppOptions): { app: express.Express; ready: Promise<void> } {
  const { config, log, files, tokens, metrics } = o;
  const probePaths = new Set(
    config.METRICS_TOKEN ? ["/healthz", "/readyz", "/metrics"] : ["/healthz", "/readyz"],
  );
  const isPage = (path: string) => files.get(path) !== undefined;

  const app = express();
  app.disable("x-powered-by");
  // Pages and assets carry their own validators (static.ts); JSON answers are no-store and need none.
  app.set("etag", false);
  app.set("trust proxy", config.TRUST_PROXY);

  app.use(requestLog(log));
  app.use(warnUntrustedProxy(app.get("trust proxy fn"), log));

  app.use(setBaseHeaders);
  app.use(httpsRedirect(hostsOf([config.SITE_URL, ...config.ALLOWED_ORIGINS]), log));
  // Every body is capped before anything reads it; the JSON endpoint caps its own (chunked too) with JSON answers.
  app.use(bodyLimit(MAX_BODY_BYTES, (req) => req.path === CONTACT_API_PATH));

  app.use(probes(o));

  const { publicKeys, ALLOWED_ORIGINS } = config;
  app.use(contactEndpoint({ submitter: o.runtime, log, publicKeys, ALLOWED_ORIGINS, metrics }));

  const router = reactRouter(o);
  const pages = whenLoaded(router);
  // Only React Router's answers are compressed here (static.ts has its own): loaded with it.
  const compression = whenLoaded(o.build.then(async () => (await import("compression")).default()));
  const formPaths = ["/contact", LEAD_PATH, BOOK_PATH];
  const isKnown = (path: string) =>
    isPage(path) || probePaths.has(path) || [OVERVIEW_PATH, ...BOOKING_PATHS].includes(path);
  app.use(methodGuard({ isKnown, formPaths }));
  app.post(formPaths, formPostGuard());
  app.all(
    [LEAD_PATH, OVERVIEW_PATH, ...BOOKING_PATHS],
    leadHeaders,
    compression,
    policyFromRouter(),
    pages,
  );

  app.use(canonicalRedirect(isPage));
  app.use(serveStatic(files, { formToken: () => tokens.issue(), figure: o.figure?.html }));
  app.use(serveNotFound(o.notFound));
  app.use(compression);
  app.use(policyFromRouter());

  app.use(pages);
  app.use(lastResort(log));
  return { app, ready: router.then(() => undefined) };
}

// No query strings, addresses or bodies in the log: they can carry personal data.
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
        purpose: req.get("sec-purpose"),
        // One lead's journey is one grep.
        inquiryId: res.locals.inquiryId,
      });
    });
    next();
  };
}

function probes({ runtime, config, metrics }: AppOptions): express.Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const state = await runtime.readiness();
    if (state.ready) return void res.json({ status: "ready" });
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

// The route's action reads the pipeline under the bundle's own context key (app/entry.server.tsx).
async function reactRouter({
  config,
  runtime,
  tokens,
  links,
  log,
  ...o
}: AppOptions): Promise<RequestHandler> {
  const build = await o.build;
  const [{ createRequestHandler }, { RouterContextProvider }, { leadPage }, { bookingPage }] =
    await Promise.all([
      import("@react-router/express"),
      import("react-router"),
      import("./contact/review/page.ts"),
      import("./booking/page.ts"),
    ]);
  // React Router checks a form post's Origin against the Host; behind a proxy, name the public hosts.
  const actionHosts = config.ALLOWED_ORIGINS.map((origin) => new URL(origin).host);
  const contactContext = (build.entry.module as { contactContext?: ContactContextKey })
    .contactContext;
  if (!contactContext) {
    throw new Error(
      "The server build does not export contactContext from app/entry.server.tsx: the form without JavaScript could not reach the pipeline. Rebuild after restoring that export.",
    );
  }
  const lead = leadPage({ pipeline: () => runtime.pipeline(), links, config, log });
  const booking = bookingPage({ pipeline: () => runtime.pipeline(), links, config, log });
  return createRequestHandler({
    build: actionHosts.length > 0 ? { ...build, allowedActionOrigins: actionHosts } : build,
    mode: "production",
    getLoadContext(req, res) {
      const context = new RouterContextProvider();
      context.set(contactContext, {
        submitter: noted(runtime, res),
        clientIp: req.ip,
        formToken: () => tokens.issue(),
        replyFigure: () => o.figure?.html() ?? "",
        lead,
        booking,
      });
      return context;
    },
  });
}

/** The lead, overview and booking pages, whose addresses are credentials: never stored, indexed or a referrer. */
const leadHeaders: RequestHandler = (req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Robots-Tag", "noindex, nofollow");
  res.setHeader("Referrer-Policy", "no-referrer");
  // A no-referrer page's form sends `Origin: null` (Fetch standard), which React Router refuses;
  // the token in the form is the credential here, and another named origin is still refused.
  if (req.headers.origin === "null") delete req.headers.origin;
  next();
};

// What loads after the first page (React Router, compression) answers once it has loaded.
const whenLoaded =
  (handler: Promise<RequestHandler>): RequestHandler =>
  (req, res, next) => {
    handler.then((handle) => handle(req, res, next), next);
  };

// A page carries the policy entry.server.tsx made for it, anything else (the form's 303) the default.
// The adapter appends headers, so the default is set only as the headers go out.
function policyFromRouter(): RequestHandler {
  return (_req, res, next) => {
    res.removeHeader("Content-Security-Policy");
    onHeaders(res, () => {
      if (!res.hasHeader("Content-Security-Policy"))
        res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
    });
    next();
  };
}

function lastResort(log: Logger): ErrorRequestHandler {
  return (err: Error & { status?: number; statusCode?: number }, _req, res, _next) => {
    const status = err.status ?? err.statusCode ?? 500;
    const clientError = Number.isInteger(status) && status >= 400 && status < 500;
    if (!clientError) log.error({ err }, "unhandled error");
    if (res.headersSent) return void res.end();
    res
      .status(clientError ? status : 500)
      .type("text/plain")
      .send(clientError ? "Bad Request" : "Internal Server Error");
  };
}
