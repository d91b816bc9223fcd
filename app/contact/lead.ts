import type { SpamVerdict } from "../../server/contact/storage/records.ts";

/**
 * The page behind the signed links in a lead (server/contact/review/): its path, the two actions'
 * words, and what the server hands the route (app/routes/lead.tsx) to show. GET only shows; POST acts.
 */

export const LEAD_PATH = "/lead";
/** Its route module, relative to app/ (routes.ts; the client-rendered baseline of bench:site leaves it empty). */
export const LEAD_MODULE = "routes/lead.tsx";
/** The morning digest's page of the open leads (app/routes/overview.tsx), behind one signed link. */
export const OVERVIEW_PATH = "/overview";
export const OVERVIEW_MODULE = "routes/overview.tsx";
/** The query parameter and form field that carry a link's token. */
export const LEAD_TOKEN_FIELD = "t";
/** The form field of the Undo button: it posts the same token, so it works as long as the link does. */
export const LEAD_UNDO_FIELD = "undo";

/**
 * What a person can say of an inquiry: "spam" (it is held from now on), "not-spam", or
 * "take" ("I'm on it": someone is answering it; ADR 0020).
 */
export type ReviewAction = "spam" | "not-spam" | "take";

/** Each action's button, the same words in the email, Slack, the morning digest and the page. */
export const ACTION_LABEL: Record<ReviewAction, string> = {
  spam: "Spam",
  "not-spam": "Not spam",
  take: "I'm on it",
};

/** The optional form field of the "I'm on it" page: the name the others who read the lead see. */
export const TAKEN_BY_FIELD = "by";
export const TAKEN_BY_MAX = 60;

/** What each action does, as the email's links and the page say it. */
export const ACTION_EFFECT: Record<ReviewAction, string> = {
  spam: "the filter learns from it and deliveries not made yet are cancelled, except one under way, which is not tried again; an email you already have stays where it is",
  "not-spam":
    "the filter learns it is not spam; a held message is delivered as a new lead would be",
  take: "records that you are answering it, and when, so the others who read it know, and no reminder goes",
};

/** An inquiry as the page shows it: enough to recognise it, no more. */
export type LeadSummary = {
  name: string;
  email: string;
  company: string;
  service: string;
  /** On the office's clock, as every time a person reads (server/contact/review/clock.ts). */
  received: string;
  /** "Reply by …" and how much business time is left or by how much it was missed; null: held, or no hours ahead. */
  deadline: { replyBy: string; state: string } | null;
  /** Marked as spam by a person: when, on the office's clock; null otherwise. */
  markedSpam: string | null;
  /** The start of the message. */
  excerpt: string;
  verdict: SpamVerdict;
  /** Who pressed "I'm on it" first (null: no name given) and when, in UTC and on the office's clock; null: nobody yet. */
  taken: { by: string | null; at: string; local: string } | null;
  /** The consultation the visitor asked for; null: none. */
  consultation: Consultation | null;
};

/**
 * A consultation as the company reads it: its state, its time on the office's clock and (when
 * another) the visitor's, who confirmed it; `answer`: a request waiting for one (not held as spam),
 * with the Confirm and Decline tokens for the time shown (the booking page's, app/contact/booking.ts).
 */
export type Consultation = {
  state: "asked" | "confirmed" | "declined" | "cancelled";
  office: string;
  visitor: string | null;
  confirmedBy: string | null;
  /** A confirmed call's move the visitor asked for, waiting for an answer: its time, as `office`. */
  move: { office: string; visitor: string | null } | null;
  /** Confirm and Decline of what waits (the request, or the move), while its time is still ahead. */
  answer: { at: number; confirm: string; decline: string } | null;
};

export type LeadView =
  /** A link that is not one of ours, or was altered. */
  | { kind: "invalid" }
  | { kind: "expired" }
  /** Signed by us with a key that has since been rotated out: the link was real, it no longer works. */
  | { kind: "retired" }
  /** Signed, but this database does not hold its inquiry (deleted, or newer than a restored backup). */
  | { kind: "gone" }
  | { kind: "rate-limited"; retryAfterSeconds: number }
  | { kind: "unavailable" }
  /** GET: what the button will do. */
  | { kind: "confirm"; action: ReviewAction; summary: LeadSummary; token: string }
  /** POST: what was done (`changed` false: it had been done before); Undo posts `token` again. */
  | {
      kind: "done";
      action: ReviewAction;
      changed: boolean;
      summary: LeadSummary;
      cancelled: string[];
      /** Spam: where it had been delivered already, and where an attempt was under way (it is not retried). */
      delivered: string[];
      underWay: string[];
      queued: string[];
      token: string;
    }
  /** POST of Undo: put back as it was (`changed` false: nothing to undo); `token` does the action again. */
  | {
      kind: "undone";
      action: ReviewAction;
      changed: boolean;
      summary: LeadSummary;
      cancelled: string[];
      underWay: string[];
      queued: string[];
      token: string;
    }
  /** POST of "I'm on it": `first` false when someone had already taken it (summary.taken says who, when). */
  | { kind: "taken"; first: boolean; summary: LeadSummary };

/** A lead on the overview page: as its own page shows it, with the links that fit it. */
export type OverviewLead = {
  id: string;
  summary: LeadSummary;
  links: Array<{ label: string; url: string }>;
};

export type OverviewView =
  | { kind: "invalid" | "expired" | "retired" | "unavailable" }
  | { kind: "rate-limited"; retryAfterSeconds: number }
  /**
   * The consultation requests waiting for an answer, the calls of today and tomorrow (office days),
   * the leads nobody has taken yet, and the messages held as spam in the last week.
   */
  | {
      kind: "overview";
      asOf: string;
      requests: OverviewLead[];
      calls: OverviewLead[];
      waiting: OverviewLead[];
      held: OverviewLead[];
    };

/** What the route asks the server (app/contact/context.ts). */
export interface LeadPage {
  /** The morning digest's overview page (app/routes/overview.tsx): read-only, each lead with its links. */
  overview(token: string, clientIp: string | undefined): Promise<OverviewView>;
  open(token: string): Promise<LeadView>;
  /** `undo`: the Undo button of Spam / Not spam; `by`: the name given on the "I'm on it" page, if any. */
  act(
    token: string,
    clientIp: string | undefined,
    opts?: { undo?: boolean; by?: string },
  ): Promise<LeadView>;
}
