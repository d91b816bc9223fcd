import type { Logger } from "pino";
import { site } from "../../../app/config/site.ts";
import { type LeadPage, type LeadSummary, type LeadView, TAKEN_BY_MAX } from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { cutAt } from "../delivery/channel.ts";
import type { ContactPipeline, LimitSpec } from "../intake/pipeline.ts";
import { StorageUnavailableError } from "../storage/database.ts";
import { get } from "../storage/inquiries.ts";
import { type Inquiry, verdictOf } from "../storage/records.ts";
import { performAction } from "./actions.ts";
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
  const guarded = async (fn: () => Promise<LeadView>): Promise<LeadView> => {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof StorageUnavailableError))
        log.error({ err: { message: (err as Error).message } }, "lead link failed");
      return { kind: "unavailable" };
    }
  };

  return {
    open: (token) =>
      guarded(async () => {
        const check = await o.links.verify(token);
        if (!check.ok) return refused(check.reason, "opened");
        const inquiry = await get(o.pipeline().db, check.inquiryId);
        if (!inquiry) return { kind: "gone" };
        return { kind: "confirm", action: check.action, summary: summaryOf(inquiry), token };
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
          // "I'm on it" has no Undo: the others may already have read who is on it.
          const result = await performAction(pipeline.db, o.config, "take", check.inquiryId, now, {
            by: takenBy(opts.by),
          });
          if (result.kind !== "taken") return { kind: "gone" };
          const { inquiry, first } = result.taken;
          log.info({ inquiryId: check.inquiryId, action: check.action, first }, "lead link used");
          return { kind: "taken", first, summary: summaryOf(inquiry) };
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
        const summary = summaryOf(inquiry);
        return undo
          ? { kind: "undone", action: check.action, changed, summary, cancelled, underWay, queued, token }
          : { kind: "done", action: check.action, changed, summary, cancelled, delivered, underWay, queued, token };
      }),
  };

  function refused(reason: "invalid" | "expired" | "retired", how: string): LeadView {
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

/** A time as the office reads it: "Tue, Jan 19, 12:01 PM MST". */
const officeTime = new Intl.DateTimeFormat("en-US", {
  timeZone: site.timeZone,
  weekday: "short",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
});

function summaryOf(i: Inquiry): LeadSummary {
  const message = i.message.replace(/\s+/g, " ").trim();
  return {
    name: i.name,
    email: i.email,
    company: i.company,
    service: i.service,
    receivedAt: new Date(i.receivedAt).toISOString(),
    excerpt: Array.from(message).length > 400 ? `${cutAt(message, 399)}…` : message,
    verdict: verdictOf(i),
    taken:
      i.takenAt == null
        ? null
        : { by: i.takenBy ?? null, at: new Date(i.takenAt).toISOString(), local: officeTime.format(i.takenAt) },
  };
}
