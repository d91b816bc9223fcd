import express, { type ErrorRequestHandler, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { CONTACT_API_PATH } from "../../../app/contact/api.ts";
import { KEY_REUSED, SUCCESS_MESSAGE, TOO_MANY } from "../../../app/contact/messages.ts";
import type { Config } from "../../config.ts";
import { isUtf8 } from "../../guards.ts";
import type { Outcome, Submitter } from "../intake/pipeline.ts";
import type { ContactMetrics, InquiryOutcome } from "../metrics.ts";
import { StorageUnavailableError } from "../storage/database.ts";

/**
 * POST /functions/v1/send-email, the contact page's call (spec §7), answered with JSON always: 201,
 * a documented 4xx, never a stack trace. It takes the headers @supabase/supabase-js sends too (apikey,
 * x-client-info, tracing), so that library works unchanged.
 */

export const MAX_BODY_BYTES = 32 * 1024;
const ALLOWED_HEADERS =
  "authorization, content-type, idempotency-key, x-form-token, apikey, x-client-info, x-retry-count, traceparent, tracestate, baggage";
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const BODY_ERRORS: Record<string, [number, string]> = {
  "entity.too.large": [413, `The message is too large (at most ${MAX_BODY_BYTES / 1024} KB).`],
  "entity.parse.failed": [400, "The request body is not valid JSON."],
  "encoding.unsupported": [415, "Unsupported content encoding or charset."],
};
const OUTCOMES: Record<number, InquiryOutcome> = {
  400: "invalid",
  401: "unauthorized",
  503: "unavailable",
};

type Options = Pick<Config, "publicKeys" | "ALLOWED_ORIGINS"> & {
  submitter: Submitter;
  log: Logger;
  metrics: ContactMetrics;
};

// The inquiry stored, noted on the response for the request's log line.
export const noted = (submitter: Submitter, res: Response): Submitter => ({
  async submit(submission) {
    const outcome = await submitter.submit(submission);
    if (outcome.kind === "stored" || outcome.kind === "replayed") res.locals.inquiryId = outcome.id;
    return outcome;
  },
});

export function contactEndpoint({ submitter, log, publicKeys, ALLOWED_ORIGINS, metrics }: Options) {
  const router = express.Router();
  const fail = (res: Response, status: number, error: string) => {
    if (res.req.method === "POST") metrics.inquiry("api", OUTCOMES[status] ?? "refused");
    res.status(status).json({ error });
  };
  const allowed = new Set(ALLOWED_ORIGINS);
  let lastKeyWarning = 0;

  const cors: RequestHandler = (req, res, next) => {
    const origin = req.get("origin");
    res.setHeader("Vary", "Origin");
    if (origin && origin !== `${req.protocol}://${req.get("host") ?? ""}`) {
      if (!allowed.has(origin)) return fail(res, 403, "This origin may not call this endpoint.");
      res.setHeader("Access-Control-Allow-Origin", origin);
    }
    next();
  };

  router.use(CONTACT_API_PATH, (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  router.options(CONTACT_API_PATH, cors, (_req, res) => {
    res.set({
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": "600",
    });
    res.status(204).end();
  });

  router.post(
    CONTACT_API_PATH,
    cors,
    (req, res, next) => {
      const given = /^Bearer (.*)$/.exec(req.get("authorization") ?? "")?.[1] ?? req.get("apikey");
      if (!given || !publicKeys.includes(given)) {
        // A page built with a key the server no longer takes: every message refused. Said once a minute.
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
      if (!req.is("application/json"))
        return fail(res, 415, "Send the message as application/json.");
      if (!isUtf8(req.get("content-type")))
        return fail(res, 415, "Unsupported content encoding or charset: send UTF-8.");
      const key = req.get("idempotency-key");
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
        return fail(res, 400, "Idempotency-Key must be 1 to 255 visible ASCII characters.");
      next();
    },
    express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true }),
    // Express 5 hands a rejection to the error handler below.
    async (req, res) => {
      const outcome = await noted(submitter, res).submit({
        body: req.body,
        source: "api",
        formToken: req.get("x-form-token"),
        fromAllowedOrigin: allowed.has(req.get("origin") ?? ""),
        idempotencyKey: req.get("idempotency-key"),
        ip: req.ip,
        userAgent: req.get("user-agent"),
        page: req.get("referer"),
      });
      const { status, body, headers } = jsonAnswer(outcome);
      res.set(headers).status(status).json(body);
    },
  );

  router.all(CONTACT_API_PATH, (_req, res) => {
    res.setHeader("Allow", "POST, OPTIONS");
    fail(res, 405, "Use POST.");
  });

  // Body errors from express.json (any other 4xx: unreadable), and anything unexpected: JSON, never a stack trace.
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const known = BODY_ERRORS[err.type];
    if (known) return fail(res, ...known);
    const status = err.status ?? err.statusCode ?? 500;
    if (status >= 400 && status < 500) return fail(res, 400, "The request body could not be read.");
    // An outage was logged once by the database's watcher.
    const outage = err instanceof StorageUnavailableError;
    if (!outage) log.error({ err }, "contact endpoint failed");
    res.setHeader("Retry-After", String(outage ? err.retryAfterSeconds : 30));
    fail(
      res,
      503,
      "We could not take your message right now. Please try again or contact us directly.",
    );
  };
  router.use(CONTACT_API_PATH, onError);

  return router;
}

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };
export function jsonAnswer(outcome: Outcome): Answer {
  switch (outcome.kind) {
    case "stored":
    case "replayed":
      return {
        status: 201,
        body: { ok: true, id: outcome.id, message: SUCCESS_MESSAGE, booking: outcome.booking },
      };
    case "key-reused":
      return { status: 422, body: { error: KEY_REUSED } };
    case "invalid":
      return { status: 400, body: { error: outcome.error, fields: outcome.fields } };
    case "rate-limited":
      return {
        status: 429,
        body: { error: TOO_MANY },
        headers: { "Retry-After": String(outcome.retryAfterSeconds) },
      };
  }
}
