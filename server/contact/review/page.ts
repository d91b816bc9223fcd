import type { Logger } from "pino";
import {
  type LeadPage,
  type LeadSummary,
  type LeadView,
  type OverviewView,
  type ReviewAction,
  TAKEN_BY_MAX,
} from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { cutAt } from "../delivery/channel.ts";
import type { ContactPipeline, LimitSpec } from "../intake/pipeline.ts";
import type { Sql } from "../storage/database.ts";
import { StorageUnavailableError } from "../storage/database.ts";
import { get, markOf } from "../storage/inquiries.ts";
import { type Inquiry, verdictOf } from "../storage/records.ts";
import { performAction } from "./actions.ts";
import { officeTime } from "./clock.ts";
import { deadlineOf, openLeads } from "./digest.ts";
import type { LeadLinks } from "./links.ts";

/**
 * What the page behind a lead's signed links (app/routes/lead.tsx) asks the server. Opening a link
 * only shows the inquiry and a button (mail scanners and link unfurlers follow links); the button's
 * POST acts, through the one implementation the CLI uses too (actions.ts). Every use is one log
 * line naming the inquiry and the action, never the token. POSTs are limited per client address,
 * counted as the form's submissions are (table rate_limits), so the limit holds across instances.
 */

/** At most this many actions per client address per window: a person clicks a few; a script is stopped. */
export const ACTIONS_PER_WINDOW = 30;
export const ACTION_WINDOW_MS = 10 * 60_000;
const ACTION_LIMIT: LimitSpec = {
  prefix: "lead_action",
  per: "address",
  points: ACTIONS_PER_WINDOW,
  durationMs: ACTION_WINDOW_MS,
};

export function leadPage(o: {
  pipeline: () => ContactPipeline;
  links: LeadLinks;
  config: Config;
  log: Logger;
}): LeadPage {
  const log = o.log.child({ task: "lead-link" });

  /** A storage failure is the page's 503, never a crash. */
  const guarded = async <V>(fn: () => Promise<V>): Promise<V | { kind: "unavailable" }> => {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof StorageUnavailableError))
        log.error({ err: { message: (err as Error).message } }, "lead link failed");
      return { kind: "unavailable" };
    }
  };

  return {
    overview: (token, clientIp) =>
      guarded(async (): Promise<OverviewView> => {
        const now = Date.now();
        const refusal = await o.links.verifyOverview(token, now);
        if (refusal) return refused(refusal, "opened overview");
        const pipeline = o.pipeline();
        const { db } = pipeline;
        // Opening it counts as an action: a person opens it a few times; a script is stopped.
        const wait = await pipeline.overLimit(clientIp, [ACTION_LIMIT], now);
        if (wait !== null) return { kind: "rate-limited", retryAfterSeconds: wait };
        const { waiting, held } = await openLeads(db, now, now - 7 * 86_400_000);
        const listed = async (i: Inquiry) => ({
          id: i.id,
          summary: await summaryOf(db, i, now),
          links: o.links.for(i, now).map(({ label, url }) => ({ label, url })),
        });
        log.info({ waiting: waiting.length, held: held.length }, "overview opened");
        const [w, h] = await Promise.all([Promise.all(waiting.map(listed)), Promise.all(held.map(listed))]);
        return { kind: "overview", asOf: officeTime(now), waiting: w, held: h };
      }),
    open: (token) =>
      guarded(async () => {
        const check = await o.links.verify(token);
        if (!check.ok) return refused(check.reason, "opened");
        const db = o.pipeline().db;
        const inquiry = await get(db, check.inquiryId);
        if (!inquiry) return { kind: "gone" };
        return confirm(db, inquiry, check.action, token);
      }),
    act: (token, clientIp, opts = {}) =>
      guarded(async () => {
        const now = Date.now();
        const check = await o.links.verify(token, now);
        if (!check.ok) return refused(check.reason, "used");
        const pipeline = o.pipeline();
        const wait = await pipeline.overLimit(clientIp, [ACTION_LIMIT], now);
        if (wait !== null) {
          log.warn({ inquiryId: check.inquiryId, action: check.action }, "lead link refused: too many actions");
          return { kind: "rate-limited", retryAfterSeconds: wait };
        }
        if (check.action === "take") {
          // A held message is nobody's lead: its page offers "Not spam" (nothing was done).
          const held = await get(pipeline.db, check.inquiryId);
          if (held?.held) return confirm(pipeline.db, held, "take", token);
          // "I'm on it" has no Undo: the others may already have read who is on it.
          const result = await performAction(pipeline.db, o.config, "take", check.inquiryId, now, {
            by: takenBy(opts.by),
          });
          if (result.kind !== "taken") return { kind: "gone" };
          const { inquiry, first } = result.taken;
          log.info({ inquiryId: check.inquiryId, action: check.action, first }, "lead link used");
          return { kind: "taken", first, summary: await summaryOf(pipeline.db, inquiry, now) };
        }
        const undo = opts.undo === true;
        const result = await performAction(pipeline.db, o.config, check.action, check.inquiryId, now, { undo });
        if (result.kind === "unknown" || result.kind === "taken") return { kind: "gone" };
        if (result.kind === "no-routing") return { kind: "unavailable" };
        const { changed, cancelled, delivered, underWay } = result.marked;
        const queued = result.marked.queued.map((d) => d.channel);
        if (queued.length > 0) pipeline.worker.nudge();
        log.info(
          { inquiryId: check.inquiryId, action: check.action, undo, changed, cancelled, underWay, queued },
          undo ? "lead link undone" : "lead link used",
        );
        // As it is now (a concurrent press could have changed it since): read back.
        const inquiry = (await get(pipeline.db, check.inquiryId)) ?? result.marked.inquiry;
        const summary = await summaryOf(pipeline.db, inquiry, now);
        return undo
          ? { kind: "undone", action: check.action, changed, summary, cancelled, underWay, queued, token }
          : { kind: "done", action: check.action, changed, summary, cancelled, delivered, underWay, queued, token };
      }),
  };

  /** What the button will do; "I'm on it" on a held message becomes "Not spam", with a link of its own. */
  async function confirm(db: Sql, inquiry: Inquiry, action: ReviewAction, token: string): Promise<LeadView> {
    const summary = await summaryOf(db, inquiry, Date.now());
    return inquiry.held && action === "take"
      ? { kind: "confirm", action: "not-spam", summary, token: o.links.token(inquiry.id, "not-spam") }
      : { kind: "confirm", action, summary, token };
  }

  function refused(reason: "invalid" | "expired" | "retired", how: string) {
    log.warn({ reason }, `lead link refused: ${reason} (${how})`);
    return { kind: reason };
  }
}

/** The name given on the "I'm on it" page, as stored and shown: one line, printable, at most TAKEN_BY_MAX characters. */
export function takenBy(given: string | undefined): string | null {
  const name = cutAt(
    (given ?? "")
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
      .replace(/\s+/g, " ")
      .trim(),
    TAKEN_BY_MAX,
  );
  return name || null;
}

/** A lead as its page shows it, with times on the office's clock and its deadline. */
async function summaryOf(sql: Sql, i: Inquiry, now: number): Promise<LeadSummary> {
  const message = i.message.replace(/\s+/g, " ").trim();
  const mark = i.held ? await markOf(sql, i.id) : undefined;
  return {
    name: i.name,
    email: i.email,
    company: i.company,
    service: i.service,
    received: officeTime(i.receivedAt),
    deadline: i.held ? null : deadlineOf(i, now),
    markedSpam: mark?.label === "spam" ? officeTime(mark.markedAt) : null,
    excerpt: Array.from(message).length > 400 ? `${cutAt(message, 399)}…` : message,
    verdict: verdictOf(i),
    taken:
      i.takenAt == null
        ? null
        : { by: i.takenBy ?? null, at: new Date(i.takenAt).toISOString(), local: officeTime(i.takenAt) },
  };
}
