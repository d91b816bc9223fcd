import { buttonPrimary, buttonSecondary } from "#app/components/ui/styles.ts";
import {
  BOOK_NOTE_FIELD,
  BOOK_NOTE_MAX,
  BOOK_PATH,
  BOOK_SLOT_FIELD,
  BOOK_TOKEN_FIELD,
} from "#app/contact/booking.ts";
import { type Consultation, TAKEN_BY_FIELD, TAKEN_BY_MAX } from "#app/contact/lead.ts";

/**
 * The company's answers to a consultation request, one form each, for the Confirm and Decline pages
 * (app/routes/book.tsx) and the lead page (app/routes/lead.tsx): both post to the booking page, whose
 * one mechanism acts (server/booking/page.ts). No JavaScript.
 */

const field =
  "mt-1 w-full max-w-sm rounded-md border border-slate-300 px-3 py-2 dark:border-slate-600 dark:bg-slate-900";

/** The optional name "I'm on it" and Confirm ask: `why` says who reads it. */
export function NameField({ id, why }: { id: string; why: string }) {
  return (
    <p className="mb-4">
      <label htmlFor={id} className="block font-semibold text-slate-900 dark:text-white">
        Your name (optional: {why})
      </label>
      <input
        id={id}
        name={TAKEN_BY_FIELD}
        maxLength={TAKEN_BY_MAX}
        autoComplete="name"
        className={field}
      />
    </p>
  );
}

/**
 * Confirm or Decline for the time `at` (the one shown: a newer pick waits for its own answer);
 * `move`: the new time of a confirmed call.
 */
export function ConsultationForm(p: {
  action: "confirm" | "decline";
  token: string;
  at: number;
  primary?: boolean;
  move?: boolean;
}) {
  const confirm = p.action === "confirm";
  return (
    <form method="post" action={BOOK_PATH} className="mt-6">
      <input type="hidden" name={BOOK_TOKEN_FIELD} value={p.token} />
      <input type="hidden" name={BOOK_SLOT_FIELD} value={p.at} />
      {confirm ? (
        <>
          <p className="mb-4">
            {p.move
              ? "Their calendar invitation moves to the new time, and so does yours."
              : "They get a calendar invitation by email, and so do you."}
          </p>
          <NameField
            id="confirm-by"
            why="they read whom they will meet, and the others who read this lead see it"
          />
        </>
      ) : (
        <p className="mb-4">
          <label
            htmlFor="decline-note"
            className="block font-semibold text-slate-900 dark:text-white"
          >
            A line for them (optional)
          </label>
          <input
            id="decline-note"
            name={BOOK_NOTE_FIELD}
            maxLength={BOOK_NOTE_MAX}
            className={field}
          />
        </p>
      )}
      <button type="submit" className={p.primary === false ? buttonSecondary : buttonPrimary}>
        {confirm ? "Confirm" : "Decline"}
      </button>
    </form>
  );
}

/** "Asked for" and on: the consultation as it stands, in a sentence (also the overview's). */
export function consultationLine(c: Consultation) {
  const say = (t: { office: string; visitor: string | null }) =>
    `${t.office}${t.visitor ? ` (their time: ${t.visitor})` : ""}`;
  const when = say(c);
  switch (c.state) {
    case "asked":
      return `Asked for ${when}: waiting for your answer.`;
    case "confirmed":
      return `Confirmed${c.confirmedBy ? ` by ${c.confirmedBy}` : ""} for ${when}.${c.move ? ` They ask to move it to ${say(c.move)}: waiting for your answer.` : ""}`;
    case "declined":
      return `Declined: they had asked for ${when}.`;
    case "cancelled":
      return `Cancelled by the visitor: it was ${when}.`;
  }
}
