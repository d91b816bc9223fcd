import { CircleCheck, Send, X } from "lucide-react";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { site } from "~/config/site";
import { type ContactField, FIELDS, type FieldErrors, HONEYPOT_FIELD, LIMITS, serviceOptions } from "~/contact/fields";
import { buttonPrimary, focusRing } from "../ui/styles";

/** What the no-JavaScript form post (the /contact action) answered. */
export type FormResult =
  | { ok: true }
  | { ok: false; error: string; fields?: FieldErrors; values?: Partial<Record<ContactField, string>> };

const fieldClass =
  "mt-1 block w-full rounded-lg border bg-white px-3 py-2 text-slate-900 shadow-sm focus:border-blue-700 focus:outline-2 focus:outline-blue-700 dark:bg-slate-950 dark:text-white";
const okBorder = "border-slate-400 dark:border-slate-500";
const badBorder = "border-red-700 dark:border-red-400";
const labelClass = "block text-sm font-medium text-slate-900 dark:text-white";

/**
 * The contact form of spec §4/§5. With JavaScript it sends JSON to the configured endpoint (§7) and
 * opens the success dialog; without, it posts to /contact and the page comes back with the result.
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
  const formRef = useRef<HTMLFormElement>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(result && !result.ok ? result.error : null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>(result && !result.ok ? (result.fields ?? {}) : {});
  const kept = result && !result.ok ? (result.values ?? {}) : {};

  // "Schedule Consultation" and "Request Quote" link here with ?service=…: preselect it.
  useEffect(() => {
    const wanted = new URLSearchParams(window.location.search).get("service");
    const select = formRef.current?.elements.namedItem("service");
    if (wanted && serviceOptions.includes(wanted) && select instanceof HTMLSelectElement && select.value === "") {
      select.value = wanted;
    }
  }, []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const payload: Record<string, string> = {};
    for (const field of FIELDS) payload[field] = String(data.get(field) ?? "");
    const trap = String(data.get(HONEYPOT_FIELD) ?? "");
    if (trap) payload[HONEYPOT_FIELD] = trap;

    setSending(true);
    setError(null);
    setFieldErrors({});
    try {
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "Idempotency-Key": crypto.randomUUID(),
      };
      if (publicKey) headers.Authorization = `Bearer ${publicKey}`;
      const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(payload) });
      if (response.ok) {
        form.reset();
        dialogRef.current?.showModal();
        return;
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: log the text as it came.
      }
      console.error(`Contact form: the server answered ${response.status}`, body);
      setError(site.response.failure);
      if (body && typeof body === "object" && "fields" in body && body.fields && typeof body.fields === "object") {
        setFieldErrors(body.fields as FieldErrors);
      }
    } catch (err) {
      console.error("Contact form: the message could not be sent", err);
      setError(site.response.failure);
    } finally {
      setSending(false);
    }
  }

  const errorIdFor = (field: ContactField) => (fieldErrors[field] ? `${field}-error` : undefined);
  const border = (field: ContactField) => (fieldErrors[field] ? badBorder : okBorder);
  const fieldError = (field: ContactField) =>
    fieldErrors[field] ? (
      <p id={`${field}-error`} className="mt-1 text-sm font-medium text-red-700 dark:text-red-300">
        {fieldErrors[field]}
      </p>
    ) : null;

  return (
    <>
      <form ref={formRef} method="post" action="/contact" onSubmit={onSubmit} className="mt-6 space-y-5">
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
              aria-invalid={fieldErrors.name ? true : undefined}
              aria-describedby={errorIdFor("name")}
              className={`${fieldClass} ${border("name")}`}
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
              aria-invalid={fieldErrors.email ? true : undefined}
              aria-describedby={errorIdFor("email")}
              className={`${fieldClass} ${border("email")}`}
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
              aria-invalid={fieldErrors.company ? true : undefined}
              aria-describedby={errorIdFor("company")}
              className={`${fieldClass} ${border("company")}`}
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
              aria-invalid={fieldErrors.service ? true : undefined}
              aria-describedby={errorIdFor("service")}
              className={`${fieldClass} ${border("service")}`}
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
          <textarea
            id="message"
            name="message"
            rows={6}
            required
            maxLength={LIMITS.message}
            defaultValue={kept.message}
            aria-invalid={fieldErrors.message ? true : undefined}
            aria-describedby={errorIdFor("message")}
            className={`${fieldClass} ${border("message")}`}
          />
          {fieldError("message")}
        </div>
        {/* A field people never see or reach; bots that fill every input reveal themselves. */}
        <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
          <label htmlFor={HONEYPOT_FIELD}>Leave this field empty</label>
          <input id={HONEYPOT_FIELD} name={HONEYPOT_FIELD} type="text" tabIndex={-1} autoComplete="off" />
        </div>
        <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
          <button type="submit" disabled={sending} className={`${buttonPrimary} w-full sm:w-auto`}>
            <Send aria-hidden="true" className="size-5" /> {sending ? "Sending..." : "Send Message"}
          </button>
          <div role="alert" className="flex-1">
            {error ? (
              <p className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm font-medium text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
                {error}
              </p>
            ) : null}
          </div>
        </div>
      </form>
      <dialog
        ref={dialogRef}
        open={result?.ok ? true : undefined}
        aria-labelledby="sent-title"
        onClose={() => (formRef.current?.elements.namedItem("name") as HTMLInputElement | null)?.focus()}
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
          <CircleCheck aria-hidden="true" className="mx-auto size-14 text-green-700 dark:text-green-400" />
          <h2 id="sent-title" className="mt-4 text-2xl font-bold text-slate-900 dark:text-white">
            {site.response.dialogTitle}
          </h2>
          <p className="mt-3">{site.response.dialogMessage}</p>
          <button type="submit" className={`${buttonPrimary} mt-6 w-full`}>
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}
