import { serviceOptions as options } from "#app/config/service-options.ts";

/**
 * The contact form's fields and limits, without zod: the form reads these for its inputs'
 * attributes (so the browser enforces the same limits), the schema in schema.ts builds on them.
 */

export const LIMITS = { name: 200, email: 254, company: 200, message: 5_000 } as const;

/**
 * The hidden field that carries the page's form token (server/contact/intake/form-token.ts): the
 * prerendered page holds the placeholder, the server puts a fresh token in its place per request.
 */
export const FORM_TOKEN_FIELD = "form_token";
export const FORM_TOKEN_PLACEHOLDER = "__FORM_TOKEN__";
/**
 * Where a page states the reply promise, its public figure goes: the element as React writes it,
 * which the server replaces with the figure's words (server/contact/review/public-figure.ts), or
 * with nothing below its floor, when it is off, or on a host without the server.
 */
export const FIGURE_PLACEHOLDER = '<span data-reply-figure="" hidden=""></span>';

/** The hidden field only bots fill in. */
export const HONEYPOT_FIELD = "website";

export const FIELDS = ["name", "email", "company", "service", "message"] as const;
export type ContactField = (typeof FIELDS)[number];
export type FieldErrors = Partial<Record<ContactField, string>>;

export const serviceOptions: readonly string[] = options;
