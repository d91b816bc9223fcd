import { ConsultationForm } from "#app/components/sections/ConsultationForms.tsx";
import { buttonPrimary, buttonSecondary, card, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import {
  BOOK_LABEL,
  BOOK_NOTE_FIELD,
  BOOK_PATH,
  BOOK_PHONE_FIELD,
  BOOK_PHONE_MAX,
  BOOK_SLOT_FIELD,
  BOOK_TOKEN_FIELD,
  BOOK_ZONE_FIELD,
  type BookingView,
} from "#app/contact/booking.ts";
import { contactContext } from "#app/contact/context.ts";
import { TAKEN_BY_FIELD } from "#app/contact/lead.ts";
import { linkAnswer } from "#app/contact/link-answer.ts";
import type { Route } from "./+types/book";

/**
 * The consultation booking (server/booking/; ADR 0029), behind the visitor's signed link from the
 * answer to their message, and behind the company's Confirm and Decline and the visitor's Cancel
 * links. Served as the lead page is: never prerendered, noindex, no-store, no-referrer,
 * rate-limited; GET shows, each button POSTs. Works without JavaScript (the time zone is a GET
 * form); with it, one inline line shows the times in the browser's zone.
 */

const answer = (view: BookingView) => linkAnswer(view);

export async function loader({ request, context }: Route.LoaderArgs) {
  const contact = context.get(contactContext);
  if (!contact) return answer({ kind: "unavailable" });
  const query = new URL(request.url).searchParams;
  const token = query.get(BOOK_TOKEN_FIELD);
  return answer(
    token
      ? await contact.booking.open(token, query.get(BOOK_ZONE_FIELD), contact.clientIp)
      : { kind: "invalid" },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const contact = context.get(contactContext);
  if (!contact) return answer({ kind: "unavailable" });
  const field = (form: FormData | null, name: string) => {
    const v = form?.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const form = await request.formData().catch(() => null);
  const token = field(form, BOOK_TOKEN_FIELD);
  if (!token) return answer({ kind: "invalid" });
  const given = {
    slot: field(form, BOOK_SLOT_FIELD),
    zone: field(form, BOOK_ZONE_FIELD),
    note: field(form, BOOK_NOTE_FIELD),
    by: field(form, TAKEN_BY_FIELD),
    phone: field(form, BOOK_PHONE_FIELD),
  };
  return answer(await contact.booking.act(token, given, contact.clientIp));
}

export const meta: Route.MetaFunction = () => [
  { title: `Free consultation | ${site.name}` },
  { name: "robots", content: "noindex, nofollow" },
];

const REFUSED: Record<
  Exclude<BookingView["kind"], "book" | "company" | "cancel">,
  [string, string]
> = {
  invalid: [
    "This link is not valid",
    `It is not a link we sent, or it was changed on the way. Nothing was changed. Write to us at ${site.email} or call ${site.phone.display}.`,
  ],
  expired: [
    "This link has expired",
    `Booking links work for two weeks. Nothing was changed. Write to us at ${site.email} or call ${site.phone.display}, and we will find a time.`,
  ],
  retired: [
    "This link no longer works",
    `Nothing was changed. Write to us at ${site.email} or call ${site.phone.display}.`,
  ],
  gone: [
    "This inquiry is not in our records",
    `It may have been deleted at its sender's request or at the end of our privacy notice's retention period. Write to us at ${site.email}.`,
  ],
  "rate-limited": ["Too many requests", "Please wait a few minutes, then try again."],
  unavailable: [
    "Please try again in a moment",
    "We could not reach our records just now. Nothing was changed.",
  ],
};

const heading = "text-3xl font-bold text-slate-900 dark:text-white";
/**
 * A day's times, each with its zone ("10:30 AM MST": also what a screen reader says), the visitor's
 * above, the office's below, never broken inside: the buttons' style set once on their grid (`*:`),
 * not on each of the page's 150-odd buttons (a smaller page, parsed sooner on a phone). The focus ring is styles.ts' `focusRing`, as children's utilities.
 */
const slotGrid =
  "mt-3 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-6 *:flex *:flex-col *:items-center *:rounded-lg *:border-2 *:border-blue-700 *:px-2 *:py-2 *:font-semibold *:whitespace-nowrap *:text-blue-700 *:hover:bg-blue-50 dark:*:border-blue-300 dark:*:text-blue-200 dark:*:hover:bg-slate-800 *:focus-visible:outline-2 *:focus-visible:outline-offset-2 *:focus-visible:outline-blue-700 dark:*:focus-visible:outline-blue-300";

export default function Book({ loaderData, actionData }: Route.ComponentProps) {
  const view = (actionData ?? loaderData) as BookingView;
  return (
    <section aria-labelledby="book-title" className={`${container} max-w-4xl py-16`}>
      {view.kind === "book" ? (
        <Visitor view={view} />
      ) : view.kind === "company" ? (
        <Company view={view} />
      ) : view.kind === "cancel" ? (
        <Cancel view={view} />
      ) : (
        <>
          <h1 id="book-title" className={heading}>
            {REFUSED[view.kind][0]}
          </h1>
          <p className="mt-4 text-lg">{REFUSED[view.kind][1]}</p>
        </>
      )}
    </section>
  );
}

/** With JavaScript, the browser's time zone instead of the office's (one reload; nothing leaves the site). */
const ZONE_SCRIPT = `(()=>{const u=new URL(location.href),z=Intl.DateTimeFormat().resolvedOptions().timeZone;if(u.searchParams.has("${BOOK_TOKEN_FIELD}")&&!u.searchParams.has("${BOOK_ZONE_FIELD}")&&z&&z!==document.getElementById("book-zone").value){u.searchParams.set("${BOOK_ZONE_FIELD}",z);location.replace(u.href)}})()`;

function Visitor({ view }: { view: Extract<BookingView, { kind: "book" }> }) {
  const booked = view.asked?.state === "confirmed";
  const status =
    view.asked?.state === "confirmed"
      ? view.asked.move
        ? `Your consultation is booked for ${view.asked.when}. ${view.result === "asked" ? "Thank you! " : ""}You asked to move it to ${view.asked.move}: we confirm that by email, and until then ${view.asked.when} stays booked. Picking another time replaces the request.`
        : `Your consultation is booked for ${view.asked.when}. ${view.result === "taken" ? "Sorry, the time you picked is no longer open. " : ""}To move it, pick another time below: it stays booked until we confirm the new one. To cancel it, use the Cancel link in the email we sent you.`
      : view.result === "taken"
        ? "Sorry, that time is no longer open: please pick another."
        : view.asked
          ? `${view.result === "asked" ? "Thank you! " : ""}You asked for ${view.asked.when}. We confirm it by email with a calendar invitation. Picking another time replaces it.`
          : null;
  return (
    <>
      <h1 id="book-title" className={heading}>
        {BOOK_LABEL}
      </h1>
      <p className="mt-4 text-lg">
        Hello {view.name}: pick a time that suits you. We already have your message; you need not
        write it again.
      </p>
      {/* The zone first, before any time: without JavaScript the office's is shown, and a visitor
          who misses the choice must not read those times as their own (each time says its zone too). */}
      <form method="get" action={BOOK_PATH} className={`${card} mt-6`}>
        <input type="hidden" name={BOOK_TOKEN_FIELD} value={view.token} />
        <p className="text-lg">
          Times are shown in{" "}
          <strong className="text-slate-900 dark:text-white">{view.zoneSaid}</strong>
          {view.zone === site.timeZone ? ", our office's time zone" : ""}. Not your time zone?
          Choose yours:
        </p>
        <div className="mt-3 flex flex-wrap items-end gap-3">
          <p>
            <label
              htmlFor="book-zone"
              className="block font-semibold text-slate-900 dark:text-white"
            >
              Your time zone
            </label>
            <select
              id="book-zone"
              name={BOOK_ZONE_FIELD}
              defaultValue={view.zone}
              className="mt-1 rounded-md border border-slate-300 px-3 py-2 dark:border-slate-600 dark:bg-slate-900"
            >
              {view.zones.map(([zone, label]) => (
                <option key={zone} value={zone}>
                  {label}
                </option>
              ))}
            </select>
          </p>
          <button type="submit" className={buttonSecondary}>
            Show times
          </button>
        </div>
      </form>
      {status ? (
        <p className={`${card} mt-6 text-lg font-semibold`} role="status">
          {status}
        </p>
      ) : null}
      {view.unchecked ? (
        <p className="mt-8 text-lg">
          We cannot check our calendar just now, so we offer no times here.{" "}
          {booked
            ? "Your consultation stays as booked."
            : "We will reply to your message by email as we promised, and agree on a time with you there."}
        </p>
      ) : view.days.length === 0 ? (
        <p className="mt-8 text-lg">
          No time is open in the next days.{" "}
          {booked
            ? "Your consultation stays as booked."
            : "We will reply to your message by email as we promised, and agree on a time with you there."}
        </p>
      ) : (
        // Posted to the bare path: the answer's address carries no token.
        <form method="post" action={BOOK_PATH} className="mt-8 space-y-8">
          <input type="hidden" name={BOOK_TOKEN_FIELD} value={view.token} />
          <input type="hidden" name={BOOK_ZONE_FIELD} value={view.zone} />
          {view.phone ? <PhoneField phone={view.phone} /> : null}
          <p>
            Each time is {site.consultationMinutes} minutes.
            {view.days[0]?.slots[0]?.office ? " Our office's time is under each." : ""}
          </p>
          {view.days.map(({ day, slots }) => (
            <fieldset key={day}>
              <legend className="text-xl font-semibold text-slate-900 dark:text-white">
                {day}
              </legend>
              <div className={slotGrid}>
                {slots.map((s) => (
                  <button key={s.at} type="submit" name={BOOK_SLOT_FIELD} value={s.at}>
                    {s.visitor}
                    {/* A space for assistive technology between the two times (the column shows none). */}
                    {s.office ? " " : null}
                    {s.office ? <span className="text-sm font-normal">({s.office})</span> : null}
                  </button>
                ))}
              </div>
            </fieldset>
          ))}
        </form>
      )}
      {/* A constant of this file: the page's CSP allows exactly its hash (entry.server.tsx). */}
      <script dangerouslySetInnerHTML={{ __html: ZONE_SCRIPT }} />
    </>
  );
}

/** The number we call, with why it was refused (under its label, read with the field): the time picked is picked again. */
function PhoneField({ phone }: { phone: { value: string; problem?: string } }) {
  const described = phone.problem ? "book-phone-problem book-phone-hint" : "book-phone-hint";
  return (
    <div>
      <label htmlFor="book-phone" className="block font-semibold text-slate-900 dark:text-white">
        Your phone number
      </label>
      <p id="book-phone-hint">We call you at this number at the time you pick. US numbers only.</p>
      {phone.problem ? (
        <p id="book-phone-problem" className="font-semibold text-red-700 dark:text-red-300">
          {phone.problem} Then pick your time again.
        </p>
      ) : null}
      <input
        id="book-phone"
        name={BOOK_PHONE_FIELD}
        type="tel"
        autoComplete="tel"
        inputMode="tel"
        required
        maxLength={BOOK_PHONE_MAX}
        defaultValue={phone.value}
        aria-invalid={phone.problem ? true : undefined}
        aria-describedby={described}
        className="mt-1 w-full max-w-xs rounded-md border border-slate-300 px-3 py-2 dark:border-slate-600 dark:bg-slate-900"
      />
    </div>
  );
}

const COMPANY_DONE = {
  confirmed:
    "Confirmed: the invitation is on its way to them and to you, and the lead counts as taken.",
  declined: "Declined: they get your line and a link to pick another time.",
  conflict: "Another visitor holds this time now: decline this request so they can pick another.",
  passed:
    "This time has begun or passed: nothing was sent. Decline it, and they get a link to pick another time.",
  unchanged:
    "Nothing changed: the request was confirmed, declined, cancelled or changed to another time before.",
  cancelled: "The visitor cancelled it.",
};
const STATE = {
  asked: "waiting for you",
  confirmed: "confirmed",
  cancelled: "cancelled by the visitor",
  declined: "declined",
  none: "no request",
};

function Company({ view }: { view: Extract<BookingView, { kind: "company" }> }) {
  const confirm = view.action === "confirm";
  return (
    <>
      <h1 id="book-title" className={heading}>
        {confirm ? "Confirm the consultation" : "Decline the consultation"}
      </h1>
      <div className={`${card} mt-6`}>
        <p className="wrap-anywhere">
          {view.from
            ? `${view.who} asks to move their consultation from ${view.from} to ${view.when}`
            : `${view.who} asks for ${view.when || "a time"}`}
          : {STATE[view.state]}.
        </p>
      </div>
      {view.done ? (
        <p className="mt-6 text-lg font-semibold" role="status">
          {COMPANY_DONE[view.done]}
        </p>
      ) : view.state === "asked" ? (
        <ConsultationForm
          action={view.action}
          token={view.token}
          at={view.at}
          move={view.from !== null}
        />
      ) : null}
    </>
  );
}

function Cancel({ view }: { view: Extract<BookingView, { kind: "cancel" }> }) {
  return (
    <>
      <h1 id="book-title" className={heading}>
        {view.done || view.state === "cancelled"
          ? "Your consultation is cancelled"
          : "Cancel your consultation"}
      </h1>
      {view.done || view.state === "cancelled" ? (
        <p className="mt-4 text-lg" role="status">
          {view.when ? `The time ${view.when} is free again.` : ""} We sent you a confirmation; its
          link lets you pick another time.
        </p>
      ) : view.state === "confirmed" || view.state === "asked" ? (
        <form method="post" action={BOOK_PATH} className="mt-6">
          <input type="hidden" name={BOOK_TOKEN_FIELD} value={view.token} />
          <input type="hidden" name={BOOK_SLOT_FIELD} value={view.at} />
          <p className="text-lg">Your consultation: {view.when}.</p>
          <button type="submit" className={`${buttonPrimary} mt-4`}>
            Cancel it
          </button>
        </form>
      ) : (
        <p className="mt-4 text-lg">There is no consultation to cancel.</p>
      )}
    </>
  );
}
