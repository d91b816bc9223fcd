import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { CONTACT_API_PATH } from "../../../app/contact/api.ts";
import { KEY_REUSED, SUCCESS_MESSAGE, TOO_MANY } from "../../../app/contact/messages.ts";
import { isUtf8 } from "../../guards.ts";
import type { Outcome, Submitter } from "../intake/pipeline.ts";
import type { ContactMetrics } from "../metrics.ts";
import { StorageUnavailableError } from "../storage/database.ts";

/**
 * POST /functions/v1/send-email — the call the contact page makes (spec §7), answered with JSON
 * always: 201 on success, a documented 4xx for every bad request, never a stack trace.
 */

export const MAX_BODY_BYTES = 32 * 1024;
// The spec's call, and what the hosted platform's client library sends (@supabase/supabase-js:
// apikey, x-client-info and its tracing headers), so that library works against this server unchanged.
const ALLOWED_HEADERS =
  "authorization, content-type, idempotency-key, x-form-token, apikey, x-client-info, x-retry-count, traceparent, tracestate, baggage";
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

type Options = {
  submitter: Submitter;
  log: Logger;
  /** The public keys accepted: the current one, and during a rotation the previous one. */
  publicKeys: string[];
  allowedOrigins: string[];
  metrics?: ContactMetrics;
};

/** The submitter, noting the inquiry it stored on the response, for the request's log line. */
export const noted = (submitter: Submitter, res: Response): Submitter => ({
  async submit(submission) {
    const outcome = await submitter.submit(submission);
    if (outcome.kind === "stored" || outcome.kind === "replayed") res.locals.inquiryId = outcome.id;
    return outcome;
  },
});

/** The site's own origin as the browser sees it (behind a proxy: X-Forwarded-Proto/Host, if trusted). */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get("host") ?? ""}`;
}

export function contactEndpoint({ submitter, log, publicKeys, allowedOrigins, metrics }: Options) {
  const router = express.Router();
  /** An answer without the pipeline's word: a refused request, or storage that is down (a POST is counted). */
  const fail = (res: Response, status: number, error: string, extra: Record<string, unknown> = {}) => {
    if (res.req.method === "POST") {
      const outcome =
        status === 503 ? "unavailable" : status === 400 ? "invalid" : status === 401 ? "unauthorized" : "refused";
      metrics?.inquiry("api", outcome);
    }
    res.status(status).json({ error, ...extra });
  };
  const allowed = new Set(allowedOrigins);
  let lastKeyWarning = 0;

  const cors = (req: Request, res: Response): boolean => {
    const origin = req.get("origin");
    res.setHeader("Vary", "Origin");
    if (!origin || origin === ownOrigin(req)) return true;
    if (!allowed.has(origin)) return false;
    res.setHeader("Access-Control-Allow-Origin", origin);
    return true;
  };

  router.use(CONTACT_API_PATH, (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  router.options(CONTACT_API_PATH, (req, res) => {
    if (!cors(req, res)) return fail(res, 403, "This origin may not call this endpoint.");
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
  });

  router.post(
    CONTACT_API_PATH,
    (req, res, next) => {
      if (!cors(req, res)) return fail(res, 403, "This origin may not call this endpoint.");
      // The bearer token of spec §7; the hosted platform's clients may send the key as `apikey` instead.
      const given = /^Bearer (.*)$/.exec(req.get("authorization") ?? "")?.[1] ?? req.get("apikey");
      if (!given || !publicKeys.includes(given)) {
        // From a page of this site (or an allowed app), a key it was built with that the server no
        // longer takes: every visitor's message is refused. Said loudly, at most once a minute.
        if (req.get("origin") && Date.now() - lastKeyWarning > 60_000) {
          lastKeyWarning = Date.now();
          log.error(
            { origin: req.get("origin") },
            "a page sent a public key this server does not accept: every JavaScript submission from it is refused (401). Rebuild with CONTACT_PUBLIC_KEY, or accept the old key as CONTACT_PUBLIC_KEY_PREVIOUS while pages change",
          );
        }
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
        const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v);
        const outcome = await noted(submitter, res).submit({
          body: req.body,
          source: "api",
          formToken: one(req.headers["x-form-token"]),
          fromAllowedOrigin: allowed.has(req.get("origin") ?? ""),
          idempotencyKey: one(req.headers["idempotency-key"]),
          ip: req.ip,
          userAgent: one(req.headers["user-agent"]),
          page: one(req.headers.referer),
        });
        const answer = jsonAnswer(outcome);
        for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
        res.status(answer.status).json(answer.body);
      } catch (err) {
        next(err);
      }
    },
  );

  router.all(CONTACT_API_PATH, (_req, res) => {
    res.setHeader("Allow", "POST, OPTIONS");
    fail(res, 405, "Use POST.");
  });

  // Body errors from express.json, and anything unexpected: JSON, never a stack trace.
  router.use(
    CONTACT_API_PATH,
    (
      err: Error & { type?: string; status?: number; statusCode?: number },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      switch (err.type) {
        case "entity.too.large":
          return fail(res, 413, `The message is too large (at most ${MAX_BODY_BYTES / 1024} KB).`);
        case "entity.parse.failed":
          return fail(res, 400, "The request body is not valid JSON.");
        case "encoding.unsupported":
        case "charset.unsupported":
          return fail(res, 415, "Unsupported content encoding or charset.");
        case "request.aborted":
        case "request.size.invalid":
        case "stream.encoding.set":
          return fail(res, 400, "The request body could not be read.");
      }
      // Any other fault of the request itself (a corrupt compressed body, say) is the client's: 400.
      const status = err.status ?? err.statusCode ?? 500;
      if (status >= 400 && status < 500) return fail(res, 400, "The request body could not be read.");
      // Storage outages were logged once by the database's watcher; anything else is logged here.
      const outage = err instanceof StorageUnavailableError;
      if (!outage) log.error({ err: { message: err.message } }, "contact endpoint failed");
      res.setHeader("Retry-After", String(outage ? err.retryAfterSeconds : 30));
      fail(res, 503, "We could not take your message right now. Please try again or contact us directly.");
    },
  );

  return router;
}

/** The JSON door's answer to each outcome (spec §7: 201 with the inquiry's id); a replay answers as the first time. */
export function jsonAnswer(outcome: Outcome): {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
} {
  switch (outcome.kind) {
    case "stored":
    case "replayed":
      return { status: 201, body: { ok: true, id: outcome.id, message: SUCCESS_MESSAGE } };
    case "key-reused":
      return { status: 422, body: { error: KEY_REUSED } };
    case "invalid":
      return { status: 400, body: { error: outcome.error, fields: outcome.fields } };
    case "rate-limited":
      return { status: 429, body: { error: TOO_MANY }, headers: { "Retry-After": String(outcome.retryAfterSeconds) } };
  }
}
