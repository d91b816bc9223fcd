import { CircleCheck, Send, X } from "lucide-react";
import type { ReactNode } from "react";
import { retentionPeriod, textLink } from "#app/components/ui/LegalSection.tsx";
import { buttonPrimary, buttonSecondary, focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { BOOK_LABEL } from "#app/contact/booking.ts";
import {
  type ContactField,
  type FieldErrors,
  FORM_TOKEN_FIELD,
  FORM_TOKEN_PLACEHOLDER,
  HONEYPOT_FIELD,
  LIMITS,
  serviceOptions,
} from "#app/contact/fields.ts";
import { link } from "#app/pages.ts";

/** What the no-JavaScript form post (the /contact action) answered when it did not store the message. */
export type FormResult = {
  ok: false;
  error: string;
  fields?: FieldErrors;
  values?: Partial<Record<ContactField, string>>;
};

const summaryClass =
  "rounded-lg border-2 border-red-700 bg-red-50 p-4 text-red-900 focus:outline-3 focus:outline-offset-2 focus:outline-blue-700 dark:border-red-400 dark:bg-red-950 dark:text-red-100";
const summaryLinkClass = `font-medium underline underline-offset-2 ${focusRing}`;

/**
 * The error summary at the top of the form (the GOV.UK pattern): a heading and a link to each
 * field with a problem. Focused when it appears (autofocus without JavaScript, focus() with), so a
 * screen reader reads it and a keyboard user starts there. enhance.ts builds the same markup.
 */
export function ErrorSummary({ errors }: { errors: FieldErrors }) {
  const entries = Object.entries(errors) as Array<[ContactField, string]>;
  if (entries.length === 0) return null;
  return (
    <section
      id="error-summary"
      tabIndex={-1}
      // biome-ignore lint/a11y/noAutofocus: moving focus to the error summary is the pattern's point
      autoFocus
      aria-labelledby="error-summary-title"
      className={summaryClass}
    >
      <h3 id="error-summary-title" className="font-bold">
        There is a problem
      </h3>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
        {entries.map(([field, message]) => (
          <li key={field}>
            <a href={`#${field}`} className={summaryLinkClass}>
              {message}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

const fieldClass =
  "mt-1 block w-full rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 shadow-sm focus:border-blue-700 focus:outline-2 focus:outline-blue-700 aria-[invalid=true]:border-red-700 dark:border-slate-500 dark:bg-slate-950 dark:text-white dark:aria-[invalid=true]:border-red-400";
/** One height for one-line inputs and the select, so the two columns line up. */
const oneLine = `${fieldClass} h-11`;
const labelClass = "block text-sm font-medium text-slate-900 dark:text-white";
const errorClass = "mt-1 text-sm font-medium text-red-700 dark:text-red-300";
const alertClass =
  "rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm font-medium text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200";

/**
 * The contact form of spec §4/§5, rendered on the server. Without JavaScript it posts to /contact
 * and the page comes back with the result (`result`); with JavaScript, app/contact/enhance.ts sends
 * it to the endpoint and answers in place, using the data-* attributes below.
 */
export function ContactForm({
  endpoint,
  publicKey,
  result,
}: {
  endpoint: string;
  publicKey: string;
  result?: FormResult;
}) {
  const errors: FieldErrors = result?.fields ?? {};
  const kept = result?.values ?? {};
  const a11y = (field: ContactField) => ({
    "aria-invalid": errors[field] ? true : undefined,
    "aria-describedby": errors[field] ? `${field}-error` : undefined,
  });
  const fieldError = (field: ContactField): ReactNode =>
    errors[field] ? (
      <p id={`${field}-error`} className={errorClass}>
        {errors[field]}
      </p>
    ) : null;

  return (
    <>
      <form
        method="post"
        action={link.contact}
        data-contact-form=""
        data-endpoint={endpoint}
        data-public-key={publicKey}
        data-failure={site.response.failure}
        data-error-class={errorClass}
        className="mt-6 space-y-5"
        data-summary-class={summaryClass}
        data-summary-link-class={summaryLinkClass}
      >
        <div data-error-summary="">
          <ErrorSummary errors={errors} />
        </div>
        <div className="grid gap-5 sm:grid-cols-2">
          <div>
            <label htmlFor="name" className={labelClass}>
              Full Name <span aria-hidden="true">*</span>
            </label>
            <input
              id="name"
              name="name"
              type="text"
              required
              maxLength={LIMITS.name}
              autoComplete="name"
              defaultValue={kept.name}
              className={oneLine}
              {...a11y("name")}
            />
            {fieldError("name")}
          </div>
          <div>
            <label htmlFor="email" className={labelClass}>
              Email Address <span aria-hidden="true">*</span>
            </label>
            <input
              id="email"
              name="email"
              type="email"
              required
              maxLength={LIMITS.email}
              autoComplete="email"
              defaultValue={kept.email}
              className={oneLine}
              {...a11y("email")}
            />
            {fieldError("email")}
          </div>
        </div>
        <div className="grid gap-5 sm:grid-cols-2">
          <div>
            <label htmlFor="company" className={labelClass}>
              Company
            </label>
            <input
              id="company"
              name="company"
              type="text"
              maxLength={LIMITS.company}
              autoComplete="organization"
              defaultValue={kept.company}
              className={oneLine}
              {...a11y("company")}
            />
            {fieldError("company")}
          </div>
          <div>
            <label htmlFor="service" className={labelClass}>
              Service Interest
            </label>
            <select
              id="service"
              name="service"
              defaultValue={kept.service ?? ""}
              className={oneLine}
              {...a11y("service")}
            >
              <option value="">Select a service</option>
              {serviceOptions.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
            {fieldError("service")}
          </div>
        </div>
        <div>
          <label htmlFor="message" className={labelClass}>
            Message <span aria-hidden="true">*</span>
          </label>
          {/* No maxlength: a long paste is never cut silently. The count below says how far over it is
              (enhance.ts); without JavaScript the server says so and keeps the text. */}
          <textarea
            id="message"
            name="message"
            rows={6}
            required
            data-limit={LIMITS.message}
            defaultValue={kept.message}
            className={fieldClass}
            {...a11y("message")}
          />
          {fieldError("message")}
          <p id="message-count" aria-live="polite" className="mt-1 text-sm" />
        </div>
        {/* The page's form token: the server writes a fresh one here for every page it serves. */}
        <input type="hidden" name={FORM_TOKEN_FIELD} value={FORM_TOKEN_PLACEHOLDER} />
        {/* A field people never see or reach; bots that fill every input reveal themselves. */}
        <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
          <label htmlFor={HONEYPOT_FIELD}>Leave this field empty</label>
          <input
            id={HONEYPOT_FIELD}
            name={HONEYPOT_FIELD}
            type="text"
            tabIndex={-1}
            autoComplete="off"
          />
        </div>
        <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
          <button type="submit" className={`${buttonPrimary} w-full sm:w-auto`}>
            <Send aria-hidden="true" className="size-5" /> <span data-label="">Send Message</span>
          </button>
          <div role="alert" data-message-class={alertClass} className="flex-1">
            {result ? <p className={alertClass}>{result.error}</p> : null}
          </div>
          <p
            role="status"
            data-send-status=""
            className="text-sm text-slate-700 dark:text-slate-300"
          />
        </div>
        <p id="form-privacy" className="text-sm text-slate-700 dark:text-slate-300">
          We use what you send to answer you and to keep spam out, and keep it no longer than{" "}
          {retentionPeriod(site.privacy.retentionDays)}. Read our{" "}
          <a href={link.privacy} className={textLink}>
            Privacy Policy
          </a>
          .
        </p>
      </form>
      <dialog
        id="sent-dialog"
        aria-labelledby="sent-title"
        className="fixed inset-0 m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl bg-white p-0 text-slate-700 shadow-2xl backdrop:bg-slate-950/60 dark:bg-slate-900 dark:text-slate-300"
      >
        {/* method="dialog": the buttons close it natively, with or without JavaScript. */}
        <form method="dialog" className="relative p-8 text-center">
          <button
            type="submit"
            aria-label="Close dialog"
            className={`absolute top-3 right-3 rounded-md p-2 text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800 ${focusRing}`}
          >
            <X aria-hidden="true" className="size-5" />
          </button>
          <CircleCheck
            aria-hidden="true"
            className="mx-auto size-14 text-green-700 dark:text-green-400"
          />
          <h2 id="sent-title" className="mt-4 text-2xl font-bold text-slate-900 dark:text-white">
            {site.response.dialogTitle}
          </h2>
          <p className="mt-3">{site.response.dialogMessage}</p>
          {/* biome-ignore lint/a11y/useValidAnchor: hidden, with no address until enhance.ts gives it the visitor's own link and shows it; /book without one is an error page, and a served page links to none. */}
          <a id="sent-book" hidden className={`${buttonSecondary} mt-6 w-full`}>
            {BOOK_LABEL}
          </a>
          <button type="submit" className={`${buttonPrimary} mt-6 w-full`}>
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}
