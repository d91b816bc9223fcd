import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import proxyaddr from "proxy-addr";
import { CONTACT_API_PATH } from "../../app/contact/api.ts";
import { isUtf8 } from "../guards.ts";
import { jsonAnswer } from "./answers.ts";
import { StorageUnavailableError } from "./db.ts";
import type { ContactMetrics } from "./metrics.ts";
import type { Submitter } from "./service.ts";

/**
 * POST /functions/v1/send-email — the call the contact page makes (spec §7), answered with JSON
 * always: 201 on success, a documented 4xx for every bad request, never a stack trace.
 */

export const ENDPOINT = CONTACT_API_PATH;
export const MAX_BODY_BYTES = 32 * 1024;
const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "idempotency-key",
  "x-form-token",
  "apikey",
  "x-client-info",
  "x-retry-count",
  "traceparent",
  "tracestate",
  "baggage",
].join(", ");
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const NOT_JSON = "The request body is not valid JSON.";

type Options = {
  pipeline: Submitter;
  log: Logger;
  publicKey: string;
  allowedOrigins: string[];
  metrics?: ContactMetrics;
};

/** The site's own origin as the browser sees it (behind a proxy: X-Forwarded-Proto/Host, if trusted). */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get("host") ?? ""}`;
}

/** A POST answered before or without the pipeline's word is counted: refused, invalid, or storage down. */
function countFailure(metrics: ContactMetrics | undefined, status: number) {
  metrics?.inquiry("api", status === 503 ? "unavailable" : status === 400 ? "invalid" : "refused");
}

export function contactEndpoint({ pipeline, log, publicKey, allowedOrigins, metrics }: Options) {
  const router = express.Router();
  /** An answer before the pipeline: a refused request (counted), or storage that is down. */
  const fail = (res: Response, status: number, error: string, extra: Record<string, unknown> = {}) => {
    if (res.req.method === "POST") countFailure(metrics, status);
    res.status(status).json({ error, ...extra });
  };
  const allowed = new Set(allowedOrigins);

  const cors = (req: Request, res: Response): boolean => {
    const origin = req.get("origin");
    res.setHeader("Vary", "Origin");
    if (!origin || origin === ownOrigin(req)) return true;
    if (!allowed.has(origin)) return false;
    res.setHeader("Access-Control-Allow-Origin", origin);
    return true;
  };

  router.use(ENDPOINT, (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  router.options(ENDPOINT, (req, res) => {
    if (!cors(req, res)) return fail(res, 403, "This origin may not call this endpoint.");
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    // The spec's call, and what the hosted platform's client library sends (@supabase/supabase-js:
    // apikey, x-client-info and its tracing headers), so that library works against this server unchanged.
    res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
  });

  router.post(
    ENDPOINT,
    (req, res, next) => {
      if (!cors(req, res)) return fail(res, 403, "This origin may not call this endpoint.");
      // The bearer token of spec §7; the hosted platform's clients may send the key as `apikey` instead.
      if (req.get("authorization") !== `Bearer ${publicKey}` && req.get("apikey") !== publicKey) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="contact"');
        return fail(res, 401, "Missing or invalid authorization.");
      }
      if (!req.is("application/json")) return fail(res, 415, "Send the message as application/json.");
      // UTF-8 only (RFC 8259): utf-7, utf-16 and the rest are refused rather than decoded.
      if (!isUtf8(req.get("content-type"))) {
        return fail(res, 415, "Unsupported content encoding or charset: send UTF-8.");
      }
      const key = req.get("idempotency-key");
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        return fail(res, 400, "Idempotency-Key must be 1 to 255 visible ASCII characters.");
      }
      next();
    },
    express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true }),
    async (req, res, next) => {
      try {
        const answer = await submitFrom(pipeline, req.body, req.headers, req.ip);
        for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
        res.status(answer.status).json(answer.body);
      } catch (err) {
        next(err);
      }
    },
  );

  router.all(ENDPOINT, (_req, res) => {
    res.setHeader("Allow", "POST, OPTIONS");
    fail(res, 405, "Use POST.");
  });

  // Body errors from express.json, and anything unexpected: JSON, never a stack trace.
  router.use(
    ENDPOINT,
    (err: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
      switch (err.type) {
        case "entity.too.large":
          return fail(res, 413, `The message is too large (at most ${MAX_BODY_BYTES / 1024} KB).`);
        case "entity.parse.failed":
          return fail(res, 400, NOT_JSON);
        case "encoding.unsupported":
        case "charset.unsupported":
          return fail(res, 415, "Unsupported content encoding or charset.");
        case "request.aborted":
        case "request.size.invalid":
        case "stream.encoding.set":
          return fail(res, 400, "The request body could not be read.");
      }
      const failure = failureOf(err, log);
      if (failure.retryAfter) res.setHeader("Retry-After", failure.retryAfter);
      fail(res, failure.status, failure.error);
    },
  );

  return router;
}

/** The pipeline's answer to a parsed body, with what the request's headers say of it. */
async function submitFrom(pipeline: Submitter, body: unknown, headers: IncomingMessage["headers"], ip?: string) {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v);
  const outcome = await pipeline.submit({
    body,
    source: "api",
    formToken: one(headers["x-form-token"]),
    idempotencyKey: one(headers["idempotency-key"]),
    ip,
    userAgent: one(headers["user-agent"]),
    page: one(headers.referer),
  });
  return jsonAnswer(outcome);
}

/** What a failed submission answers: the client's fault (400), else storage (503, logged unless an outage). */
function failureOf(err: Error & { status?: number; statusCode?: number }, log: Logger) {
  // Any other fault of the request itself (a corrupt compressed body, say) is the client's: 400.
  const status = err.status ?? err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status: 400, error: "The request body could not be read." };
  // Storage outages were logged once by the database's watcher; anything else is logged here.
  if (!(err instanceof StorageUnavailableError)) {
    log.error({ err: { message: err.message } }, "contact endpoint failed");
  }
  return {
    status: 503,
    error: "We could not take your message right now. Please try again or contact us directly.",
    retryAfter: String(err instanceof StorageUnavailableError ? err.retryAfterSeconds : 30),
  };
}

/**
 * The endpoint's everyday request, answered without Express: a POST of a JSON body of known length
 * within the limit, no content encoding, UTF-8, the public key as a bearer token, a well-formed
 * Idempotency-Key if any, from this site's own origin or an allowed one, and (behind a trusted proxy)
 * over HTTPS. It gives the same answer, headers, metrics and log line as the Express route above,
 * which still answers everything else (every refusal, OPTIONS, other methods, a plain-HTTP request
 * to redirect). Express's routing, body parser and response helpers cost the server 30-40 µs of the
 * 250 it spent on a submission (bench:contact; docs/decisions/0006-delivery-channels-and-observability.md).
 * Returns false, having touched nothing, for a request it leaves to Express.
 */
export function fastContactPath(
  { pipeline, log, publicKey, allowedOrigins, metrics }: Options,
  app: {
    /** Express's `trust proxy fn`: which peers may name the client and the protocol. */
    trust: (address: string, hop: number) => boolean;
    /** The headers every answer carries (the site's security headers), as the app's middleware sets them. */
    setHeaders: (res: ServerResponse, secure: boolean) => void;
    /** The request log line, as the app's middleware writes it. */
    logRequest: (req: IncomingMessage, res: ServerResponse, path: string) => void;
  },
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const bearer = `Bearer ${publicKey}`;
  const allowed = new Set(allowedOrigins);
  const JSON_TYPES = new Set(["application/json", "application/json; charset=utf-8", "application/json;charset=utf-8"]);

  return (req, res) => {
    if (req.method !== "POST" || req.url !== ENDPOINT) return false;
    const h = req.headers;
    const length = h["content-length"];
    if (length === undefined || !/^[1-9]\d{0,5}$/.test(length) || Number(length) > MAX_BODY_BYTES) return false;
    if (h["transfer-encoding"] !== undefined || h["content-encoding"] !== undefined) return false;
    if (!JSON_TYPES.has(h["content-type"]?.toLowerCase() ?? "")) return false;
    if (h.authorization !== bearer) return false;
    const key = h["idempotency-key"];
    if (key !== undefined && (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key))) return false;
    // req.protocol as Express reads it; Express redirects a plain-HTTP request behind a proxy, and
    // warns about X-Forwarded-* from a peer it does not trust.
    if ((req.socket as { encrypted?: boolean }).encrypted) return false;
    const trusted = app.trust(req.socket.remoteAddress ?? "", 0);
    const forwardedProto = h["x-forwarded-proto"];
    if (forwardedProto !== undefined && (!trusted || String(forwardedProto).split(",")[0]?.trim() !== "https")) {
      return false;
    }
    if (h["x-forwarded-for"] !== undefined && !trusted) return false;
    const secure = forwardedProto !== undefined;
    const origin = h.origin;
    const crossOrigin = origin !== undefined && origin !== `${secure ? "https" : "http"}://${h.host ?? ""}`;
    if (crossOrigin && !allowed.has(origin)) return false;

    app.logRequest(req, res, ENDPOINT);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      app.setHeaders(res, secure);
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Vary", "Origin");
      if (crossOrigin) res.setHeader("Access-Control-Allow-Origin", origin);
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
      const json = JSON.stringify(body);
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("Content-Length", Buffer.byteLength(json));
      res.statusCode = status;
      res.end(json);
    };
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A client that goes away mid-body cannot be answered; Express counts it as a body it could not read.
    req.on("error", () => countFailure(metrics, 400));
    const respond = async () => {
      // As express.json reads it: UTF-8 without a byte-order mark; an empty body is {}.
      let text = Buffer.concat(chunks).toString("utf8");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      let body: unknown;
      try {
        body = text.length === 0 ? {} : JSON.parse(text);
      } catch {
        countFailure(metrics, 400);
        return send(400, { error: NOT_JSON });
      }
      try {
        const answer = await submitFrom(pipeline, body, h, proxyaddr(req, app.trust));
        send(answer.status, answer.body, answer.headers);
      } catch (err) {
        const failure = failureOf(err as Error, log);
        countFailure(metrics, failure.status);
        send(failure.status, { error: failure.error }, failure.retryAfter ? { "Retry-After": failure.retryAfter } : {});
      }
    };
    req.on("end", () => {
      // respond() answers every failure itself; were it ever to throw, the connection closes (no 500).
      respond().catch((err: Error) => {
        log.error({ err: { message: err.message } }, "contact endpoint failed");
        res.destroy();
      });
    });
    return true;
  };
}
