import { CONTACT_API_PATH } from "#app/contact/api.ts";
import {
  FIELDS,
  type FieldErrors,
  FORM_TOKEN_FIELD,
  HONEYPOT_FIELD,
  serviceOptions,
} from "#app/contact/fields.ts";

/**
 * The contact form, enhanced: with JavaScript it sends JSON to the configured endpoint (spec §7)
 * and answers in place; without, the same form posts to /contact. React renders the markup on the
 * server (ContactForm.tsx); this module only adds behaviour, so the page needs no framework in the
 * browser (docs/decisions/0005-contact-page-without-hydration.md).
 *
 * The form carries what the page needs: data-endpoint, data-public-key and data-failure; [data-send-status]
 * is the polite live region that says a message is being sent again.
 */

/**
 * How long after the first failure a message is sent again, with its Idempotency-Key: long enough for
 * nginx to reach the other instance, or for a single instance to come back; short enough that a
 * visitor whose network is down sees the spec's alert within 10 s.
 */
const RETRY_FOR_MS = 7_500;
/** The last try's own limit past RETRY_FOR_MS: a request still unanswered then ends in the alert. */
const LAST_ANSWER_MS = 2_000;
/** Said politely while a message is sent again, so the form does not look frozen. */
const RETRYING = "No answer yet: trying again...";
/** Answers of a proxy or a site that is restarting or briefly unavailable: worth sending again. */
const TRANSIENT = new Set([502, 503, 504]);

/**
 * POST it; on a network error or a 502/503/504, again with the same headers (its Idempotency-Key:
 * stored once however many arrive) after 0.5, 1, 2, 2… s (or the Retry-After asked for, up to what
 * is left) until RETRY_FOR_MS after the first failure, calling `retrying` before each. Not when the
 * browser says it is offline: no answer can come. The last answer, or the last error thrown.
 */
async function send(endpoint: string, init: RequestInit, retrying: () => void): Promise<Response> {
  let until = 0;
  for (let wait = 500; ; wait = Math.min(wait * 2, 2_000)) {
    const abort = new AbortController();
    const timer = until
      ? setTimeout(() => abort.abort(), until + LAST_ANSWER_MS - Date.now())
      : undefined;
    let response: Response | null = null;
    let error: unknown = null;
    try {
      response = await fetch(endpoint, { ...init, signal: abort.signal });
      if (!TRANSIENT.has(response.status)) return response;
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timer);
    }
    until ||= Date.now() + RETRY_FOR_MS;
    const left = until - Date.now();
    const asked = Number(response?.headers.get("retry-after")) * 1_000;
    const pause = asked > 0 ? Math.min(asked, left) : wait;
    if (navigator.onLine === false || left <= 0 || pause > left) {
      if (response) return response;
      throw error;
    }
    retrying();
    await new Promise((r) => setTimeout(r, pause));
  }
}

function enhance(form: HTMLFormElement) {
  const dialog = document.getElementById("sent-dialog") as HTMLDialogElement | null;
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const label = button?.querySelector<HTMLElement>("[data-label]");
  const alert = form.querySelector<HTMLElement>('[role="alert"]');
  const status = form.querySelector<HTMLElement>("[data-send-status]");
  const endpoint = form.dataset.endpoint ?? CONTACT_API_PATH;
  const publicKey = form.dataset.publicKey ?? "";
  const failure = form.dataset.failure ?? "";

  // "Schedule Consultation" and "Request Quote" link here with ?service=…: preselect it.
  const wanted = new URLSearchParams(window.location.search).get("service");
  const select = form.elements.namedItem("service");
  if (
    wanted &&
    serviceOptions.includes(wanted) &&
    select instanceof HTMLSelectElement &&
    select.value === ""
  ) {
    select.value = wanted;
  }
  // Back to the button that sent it: focusing a field would open a phone's keyboard over the page.
  dialog?.addEventListener("close", () => button?.focus());

  function showAlert(text: string | null) {
    if (!alert) return;
    alert.replaceChildren();
    if (!text) return;
    const p = document.createElement("p");
    p.className = alert.dataset.messageClass ?? "";
    p.textContent = text;
    alert.append(p);
  }

  /** The error summary at the top of the form (ContactForm.tsx's ErrorSummary), focused when it appears. */
  function showSummary(errors: FieldErrors) {
    const box = form.querySelector<HTMLElement>("[data-error-summary]");
    if (!box) return;
    box.replaceChildren();
    const entries = FIELDS.filter((f) => errors[f]).map((f) => [f, errors[f] as string] as const);
    if (entries.length === 0) return;
    const summary = document.createElement("section");
    summary.id = "error-summary";
    summary.tabIndex = -1;
    summary.setAttribute("aria-labelledby", "error-summary-title");
    summary.className = form.dataset.summaryClass ?? "";
    const title = document.createElement("h3");
    title.id = "error-summary-title";
    title.className = "font-bold";
    title.textContent = "There is a problem";
    const list = document.createElement("ul");
    list.className = "mt-2 list-disc space-y-1 pl-5 text-sm";
    for (const [field, message] of entries) {
      const link = document.createElement("a");
      link.href = `#${field}`;
      link.className = form.dataset.summaryLinkClass ?? "";
      link.textContent = message;
      const item = document.createElement("li");
      item.append(link);
      list.append(item);
    }
    summary.append(title, list);
    box.append(summary);
    summary.focus();
  }

  // Near the limit, say how many characters the message has (politely, in a live region); over it,
  // by how many. Nothing is cut: the textarea has no maxlength.
  const message = form.elements.namedItem("message") as HTMLTextAreaElement | null;
  const count = document.getElementById("message-count");
  const limit = Number(message?.dataset.limit ?? 0);
  let said = "";
  const updateCount = () => {
    if (!message || !count || !limit) return;
    const n = message.value.length;
    const fmt = (x: number) => x.toLocaleString("en-US");
    const text =
      n > limit
        ? `${fmt(n - limit)} characters over the limit of ${fmt(limit)}. Please shorten your message.`
        : n >= limit * 0.9
          ? `${fmt(n)} of ${fmt(limit)} characters`
          : "";
    if (text !== said) count.textContent = said = text;
  };
  message?.addEventListener("input", updateCount);
  updateCount();

  function showFieldErrors(errors: FieldErrors) {
    for (const field of FIELDS) {
      const input = form.elements.namedItem(field) as HTMLInputElement | null;
      if (!input) continue;
      const id = `${field}-error`;
      document.getElementById(id)?.remove();
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
      const message = errors[field];
      if (!message) continue;
      const p = document.createElement("p");
      p.id = id;
      p.className = form.dataset.errorClass ?? "";
      p.textContent = message;
      input.after(p);
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id);
    }
  }

  function setSending(sending: boolean) {
    if (status) status.textContent = "";
    if (!button) return;
    button.disabled = sending;
    if (label) label.textContent = sending ? "Sending..." : "Send Message";
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const payload: Record<string, string> = {};
    for (const field of FIELDS) payload[field] = String(data.get(field) ?? "");
    const trap = String(data.get(HONEYPOT_FIELD) ?? "");
    if (trap) payload[HONEYPOT_FIELD] = trap;

    setSending(true);
    showAlert(null);
    showFieldErrors({});
    showSummary({});
    try {
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "Idempotency-Key": crypto.randomUUID(),
      };
      if (publicKey) headers.Authorization = `Bearer ${publicKey}`;
      // The token the server wrote into this page (see form-token.ts): proof the message comes from it.
      const token = form.elements.namedItem(FORM_TOKEN_FIELD);
      if (token instanceof HTMLInputElement && token.value) headers["X-Form-Token"] = token.value;
      const response = await send(
        endpoint,
        { method: "POST", headers, body: JSON.stringify(payload) },
        () => {
          if (status) status.textContent = RETRYING;
        },
      );
      if (response.ok) {
        // The visitor's own booking link, from the answer (server/booking/): the dialog's second action.
        const booking = ((await response.json().catch(() => null)) as { booking?: unknown } | null)
          ?.booking;
        const book = document.getElementById("sent-book");
        if (
          book instanceof HTMLAnchorElement &&
          typeof booking === "string" &&
          booking.startsWith("/")
        ) {
          book.href = booking;
          book.hidden = false;
        }
        form.reset();
        updateCount();
        dialog?.showModal();
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
      showAlert(failure);
      if (
        body &&
        typeof body === "object" &&
        "fields" in body &&
        body.fields &&
        typeof body.fields === "object"
      ) {
        showFieldErrors(body.fields as FieldErrors);
        showSummary(body.fields as FieldErrors);
      }
    } catch (err) {
      console.error("Contact form: the message could not be sent", err);
      showAlert(failure);
    } finally {
      setSending(false);
    }
  });
}

const form = document.querySelector<HTMLFormElement>("form[data-contact-form]");
if (form) enhance(form);
