import { createContext } from "react-router";
import type { Submitter } from "../../server/contact/intake/pipeline.ts";
import type { BookingPage } from "./booking.ts";
import type { LeadPage } from "./lead.ts";

/**
 * How the contact route's action reaches the server's pipeline. server/app.ts sets it per request
 * in the load context, with this very key: entry.server.tsx re-exports it, so the server uses the
 * instance in the bundle that the route reads (an import of this file would be another instance).
 */
export type ContactContext = {
  submitter: Submitter;
  clientIp?: string;
  /** A fresh form token for a page the server renders (the answer to a form post). */
  formToken: () => string;
  /** The reply promise's public figure, as HTML, for its placeholder (FIGURE_PLACEHOLDER). */
  replyFigure: () => string;
  /** The page behind a lead's signed links (app/routes/lead.tsx). */
  lead: LeadPage;
  /** The consultation booking's page (app/routes/book.tsx). */
  booking: BookingPage;
};

export const contactContext = createContext<ContactContext | null>(null);

export type ContactContextKey = typeof contactContext;
