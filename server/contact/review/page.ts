import type { Logger } from "pino";
import { site } from "../../../app/config/site.ts";
import {
  type Consultation,
  type LeadPage,
  type LeadSummary,
  type LeadView,
  type OverviewView,
  type ReviewAction,
  TAKEN_BY_MAX,
} from "../../../app/contact/lead.ts";
import { bookingOf, bookingsToList } from "../../booking/store.ts";
import type { Config } from "../../config.ts";
import { DAY_MS } from "../../time.ts";
import { cutAt, oneLine } from "../delivery/channel.ts";
import { newDeliveries, type Routing, routingOf } from "../delivery/routing.ts";
import type { ContactPipeline, LimitSpec } from "../intake/pipeline.ts";
import { type Database, type Sql, StorageUnavailableError } from "../storage/database.ts";
import { get, judge, markOf, take, undo } from "../storage/inquiries.ts";
import { type Inquiry, verdictOf } from "../storage/records.ts";
import { officeTime, sayRange } from "./clock.ts";
import { deadlineOf, openLeads } from "./digest.ts";
import type { LeadLinks } from "./links.ts";
import { instantOn, wallClock } from "./promise.ts";
import { reportOf } from "./reminders.ts";

/**
 * The company's actions on an inquiry, one implementation for the lead page (app/routes/lead.tsx) and
 * the CLI, all idempotent (a take says who was first). Opening a link only shows (mail scanners follow links); the button's
 * POST acts, rate-limited per client address across instances; each use is one log line, never the token.
 */

export const ACTIONS_PER_WINDOW = 30;
const ACTION_LIMIT: LimitSpec = {
  prefix: "lead_action",
  per: "address",
  points: ACTIONS_PER_WINDOW,
  durationMs: 10 * 60_000,
};

/**
 * The one take path: "I'm on it" (page and CLI), and a confirmed booking inside the transaction that
 * confirms it (server/booking/page.ts), so a booking is never confirmed on a lead left untaken.
 */
export async function takeLead(
  sql: Sql,
  routing: Routing | null,
  id: string,
  now: number,
  by: string | null,
) {
  const reports = (i: Inquiry) => (routing ? reportOf("inquiry.taken", i, routing, now) : []);
  return take(sql, id, by, now, reports);
}

/**
 * `routing`: the server's own (routingOf its configuration); the CLI's, the one the server recorded
 * at start (`recordedRouting`), null before any start.
 */
export async function performAction(
  db: Database,
  config: Config,
  routing: Routing | null,
  action: ReviewAction,
  id: string,
  now = Date.now(),
  opts: { undo?: boolean; by?: string | null } = {},
) {
  if (action === "take") {
    const taken = await takeLead(db, routing, id, now, opts.by ?? null);
    return taken ? ({ kind: "taken", taken } as const) : ({ kind: "unknown" } as const);
  }
  // Spam queues nothing: it needs no routing.
  if (!routing && (opts.undo || action === "not-spam")) return { kind: "no-routing" } as const;
  const destinations = (inquiry: Inquiry) =>
    routing ? newDeliveries(routing, inquiry, config, now) : [];
  const marked = await (opts.undo ? undo : judge)(db, id, action, destinations, now);
  return marked ? ({ kind: "done", marked } as const) : ({ kind: "unknown" } as const);
}

export function leadPage(o: {
  pipeline: () => ContactPipeline;
  links: LeadLinks;
  config: Config;
  log: Logger;
}): LeadPage {
  const log = o.log.child({ task: "lead-link" });
  const routing = routingOf(o.config);
  const guarded = async <V>(fn: () => Promise<V>): Promise<V | { kind: "unavailable" }> => {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof StorageUnavailableError)) log.error({ err }, "lead link failed");
      return { kind: "unavailable" };
    }
  };
  // The booking page's Confirm and Decline tokens, made by a page another link opened: they expire with it.
  const answerTokens =
    (expires: number): AnswerTokens =>
    (id, action, now) =>
      o.links.token(id, action, now, expires);
  const refused = (reason: "invalid" | "expired" | "retired", how: string) => {
    log.warn({ reason }, `lead link refused: ${reason} (${how})`);
    return { kind: reason };
  };

  return {
    overview: (token, clientIp) =>
      guarded(async (): Promise<OverviewView> => {
        const now = Date.now();
        const overview = await o.links.verifyOverview(token, now);
        if (!overview.ok) return refused(overview.reason, "opened overview");
        const pipeline = o.pipeline();
        const { db } = pipeline;
        // Opening it counts as an action: a person opens it a few times; a script is stopped.
        const wait = await pipeline.overLimit(clientIp, [ACTION_LIMIT], now);
        if (wait !== null) return { kind: "rate-limited", retryAfterSeconds: wait };
        const { waiting, held } = await openLeads(db, now, now - 7 * DAY_MS);
        // Today and tomorrow on the office's clock: from its midnight to the midnight two days on.
        const today = wallClock(now, site.timeZone);
        const bookings = await bookingsToList(
          db,
          instantOn(site.timeZone, today.y, today.m - 1, today.d),
          instantOn(site.timeZone, today.y, today.m - 1, today.d + 2),
          now,
        );
        const tokens = answerTokens(overview.expires);
        const listed = async (i: Inquiry) => ({
          id: i.id,
          summary: await summaryOf(db, i, now, tokens),
          links: o.links.for(i, now, overview.expires).map(({ label, url }) => ({ label, url })),
        });
        const ofBookings = async (ids: string[]) =>
          Promise.all(
            (await Promise.all(ids.map((id) => get(db, id)))).flatMap((i) =>
              i ? [listed(i)] : [],
            ),
          );
        const [requests, calls, w, h] = await Promise.all([
          ofBookings(bookings.asked.map((b) => b.inquiryId)),
          ofBookings(bookings.calls.map((b) => b.inquiryId)),
          Promise.all(waiting.map(listed)),
          Promise.all(held.map(listed)),
        ]);
        log.info(
          { requests: requests.length, calls: calls.length, waiting: w.length, held: h.length },
          "overview opened",
        );
        return { kind: "overview", asOf: officeTime(now), requests, calls, waiting: w, held: h };
      }),
    open: (token) =>
      guarded(async () => {
        const check = await o.links.verify(token);
        if (!check.ok) return refused(check.reason, "opened");
        const db = o.pipeline().db;
        const inquiry = await get(db, check.inquiryId);
        if (!inquiry) return { kind: "gone" };
        return confirm(db, inquiry, check.action, token, check.expires);
      }),
    act: (token, clientIp, opts = {}) =>
      guarded(async () => {
        const now = Date.now();
        const check = await o.links.verify(token, now);
        if (!check.ok) return refused(check.reason, "used");
        const { inquiryId, action } = check;
        const pipeline = o.pipeline();
        const { db } = pipeline;
        const wait = await pipeline.overLimit(clientIp, [ACTION_LIMIT], now);
        if (wait !== null) {
          log.warn({ inquiryId, action }, "lead link refused: too many actions");
          return { kind: "rate-limited", retryAfterSeconds: wait };
        }
        if (action === "take") {
          // A held message is nobody's lead: its page offers "Not spam" (nothing was done).
          const held = await get(db, inquiryId);
          if (held?.held) return confirm(db, held, "take", token, check.expires);
        }
        // "I'm on it" has no Undo: the others may already have read who is on it.
        const undo = opts.undo === true && action !== "take";
        const result = await performAction(db, o.config, routing, action, inquiryId, now, {
          undo,
          by: takenBy(opts.by),
        });
        if (result.kind === "unknown") return { kind: "gone" };
        if (result.kind === "no-routing") return { kind: "unavailable" };
        if (result.kind === "taken") {
          const { inquiry, first } = result.taken;
          log.info({ inquiryId, action, first }, "lead link used");
          const tokens = answerTokens(check.expires);
          return { kind: "taken", first, summary: await summaryOf(db, inquiry, now, tokens) };
        }
        const { changed, cancelled, delivered, underWay } = result.marked;
        const queued = result.marked.queued.map((d) => d.channel);
        if (queued.length > 0) pipeline.worker.nudge();
        log.info(
          { inquiryId, action, undo, changed, cancelled, underWay, queued },
          undo ? "lead link undone" : "lead link used",
        );
        // As it is now (a concurrent press could have changed it since).
        const summary = await summaryOf(
          db,
          (await get(db, inquiryId)) ?? result.marked.inquiry,
          now,
          answerTokens(check.expires),
        );
        return undo
          ? { kind: "undone", action, changed, summary, cancelled, underWay, queued, token }
          : {
              kind: "done",
              action,
              changed,
              summary,
              cancelled,
              delivered,
              underWay,
              queued,
              token,
            };
      }),
  };

  async function confirm(
    db: Sql,
    inquiry: Inquiry,
    action: ReviewAction,
    token: string,
    expires: number,
  ): Promise<LeadView> {
    const now = Date.now();
    const summary = await summaryOf(db, inquiry, now, answerTokens(expires));
    return inquiry.held && action === "take"
      ? {
          kind: "confirm",
          action: "not-spam",
          summary,
          token: o.links.token(inquiry.id, "not-spam", now, expires),
        }
      : { kind: "confirm", action, summary, token };
  }
}

export const takenBy = (given: string | undefined) => oneLine(given, TAKEN_BY_MAX) || null;

type AnswerTokens = (id: string, action: "confirm" | "decline", now: number) => string;

/** The inquiry's consultation, if it has one: a request not held as spam with its Confirm and Decline. */
async function consultationOf(
  sql: Sql,
  i: Inquiry,
  now: number,
  tokens: AnswerTokens,
): Promise<Consultation | null> {
  const b = await bookingOf(sql, i.id);
  if (!b) return null;
  // What waits for the company's answer: a request's time, or a confirmed call's move.
  const waits =
    b.state === "asked" ? b.startsAt : b.state === "confirmed" ? (b.move?.startsAt ?? null) : null;
  return {
    state: b.state,
    office: sayRange(b.startsAt, b.endsAt, site.timeZone),
    visitor: b.zone === site.timeZone ? null : sayRange(b.startsAt, b.endsAt, b.zone),
    confirmedBy: b.confirmedBy,
    move: b.move
      ? {
          office: sayRange(b.move.startsAt, b.move.endsAt, site.timeZone),
          visitor:
            b.move.zone === site.timeZone
              ? null
              : sayRange(b.move.startsAt, b.move.endsAt, b.move.zone),
        }
      : null,
    answer:
      waits !== null && !i.held && waits > now
        ? {
            at: waits,
            confirm: tokens(i.id, "confirm", now),
            decline: tokens(i.id, "decline", now),
          }
        : null,
  };
}

async function summaryOf(
  sql: Sql,
  i: Inquiry,
  now: number,
  tokens: AnswerTokens,
): Promise<LeadSummary> {
  const mark = i.held ? await markOf(sql, i.id) : undefined;
  return {
    name: i.name,
    email: i.email,
    company: i.company,
    service: i.service,
    received: officeTime(i.receivedAt),
    deadline: i.held ? null : deadlineOf(i, now),
    markedSpam: mark?.label === "spam" ? officeTime(mark.markedAt) : null,
    excerpt: cutAt(i.message.replace(/\s+/g, " ").trim(), 400, "…"),
    verdict: verdictOf(i),
    taken:
      i.takenAt == null
        ? null
        : {
            by: i.takenBy ?? null,
            at: new Date(i.takenAt).toISOString(),
            local: officeTime(i.takenAt),
          },
    consultation: await consultationOf(sql, i, now, tokens),
  };
}
