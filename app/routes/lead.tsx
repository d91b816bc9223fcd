import {
  ConsultationForm,
  consultationLine,
  NameField,
} from "#app/components/sections/ConsultationForms.tsx";
import { buttonPrimary, buttonSecondary, card, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { contactContext } from "#app/contact/context.ts";
import {
  ACTION_EFFECT,
  ACTION_LABEL,
  type Consultation,
  LEAD_PATH,
  LEAD_TOKEN_FIELD,
  LEAD_UNDO_FIELD,
  type LeadSummary,
  type LeadView,
  type ReviewAction,
  TAKEN_BY_FIELD,
} from "#app/contact/lead.ts";
import { linkAnswer } from "#app/contact/link-answer.ts";
import type { Route } from "./+types/lead";

/**
 * The page behind the signed links in a lead's email, Slack message, webhook and the morning digest
 * (server/contact/review/; ADR 0016). Opening the link only shows the inquiry and one button:
 * mail scanners and link previews follow links, so only the button's POST acts. Served by the server
 * (never prerendered), noindex, no-store and no-referrer (server/app.ts); no JavaScript.
 */

const answer = (view: LeadView) => linkAnswer(view);

/** GET: what the link would do, and its button. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const lead = context.get(contactContext)?.lead;
  if (!lead) return answer({ kind: "unavailable" });
  const token = new URL(request.url).searchParams.get(LEAD_TOKEN_FIELD);
  return answer(token ? await lead.open(token) : { kind: "invalid" });
}

/** POST (the button): the action, through the same code as the CLI. */
export async function action({ request, context }: Route.ActionArgs) {
  const contact = context.get(contactContext);
  if (!contact) return answer({ kind: "unavailable" });
  let token: FormDataEntryValue | null = null;
  let by: FormDataEntryValue | null = null;
  let undo = false;
  try {
    const form = await request.formData();
    token = form.get(LEAD_TOKEN_FIELD);
    by = form.get(TAKEN_BY_FIELD);
    undo = form.has(LEAD_UNDO_FIELD);
  } catch {
    // A body that is not a form: no token.
  }
  return answer(
    typeof token === "string"
      ? await contact.lead.act(token, contact.clientIp, {
          undo,
          by: typeof by === "string" ? by : undefined,
        })
      : { kind: "invalid" },
  );
}

export const meta: Route.MetaFunction = () => [
  { title: `Inquiry | ${site.name}` },
  { name: "robots", content: "noindex, nofollow" },
];

/** Where a link cannot help: what the reader can do without a shell. */
const BY_HAND =
  "open the overview from this morning's digest email (it has fresh links for every open lead), or ask whoever runs this website to do it for you.";

const TITLES: Record<
  Exclude<LeadView["kind"], "confirm" | "done" | "undone" | "taken">,
  [string, string]
> = {
  invalid: [
    "This link is not valid",
    `It is not a link we sent, or it was changed on the way (a mail program sometimes cuts long links). Nothing was changed. Open the link from the message again; if it still fails, ${BY_HAND}`,
  ],
  expired: [
    "This link has expired",
    `The links in a lead work for a limited time. Nothing was changed. Instead, ${BY_HAND}`,
  ],
  retired: [
    "This link's key was replaced",
    `We signed this link with a key that has since been replaced (a key rotation), so it no longer works. Nothing was changed. Instead, ${BY_HAND}`,
  ],
  // All the server knows is that this database does not hold it: deleted, or newer than a restored backup.
  gone: [
    "This inquiry is not in our records",
    "This website's database has no inquiry for this link. It may have been deleted (at the end of the retention period of our privacy notice, or at its sender's request), or, if the database was restored from a backup, it may be newer than that backup. The email this link came in still holds the message. Nothing was changed.",
  ],
  "rate-limited": ["Too many actions", "Please wait a few minutes, then press the button again."],
  unavailable: [
    "Please try again in a moment",
    "We could not reach our records just now. Nothing was changed. Open the link again in a minute.",
  ],
};

const DONE: Record<ReviewAction, string> = {
  spam: "Marked as spam",
  "not-spam": "Marked as not spam",
  take: "You are on it",
};
const QUESTION: Record<ReviewAction, string> = {
  spam: "Is this message spam?",
  "not-spam": "Is this message not spam?",
  take: "Are you answering this lead?",
};

/** Who took a lead and when, as the page says it. */
const takenLine = (t: NonNullable<LeadSummary["taken"]>) =>
  `${t.by ? `Taken by ${t.by}` : "Taken"} at ${t.local}`;

/** Held while an attempt was under way: said, for it may still arrive. */
const underWay = (channels: string[]) =>
  channels.length > 0
    ? ` Being sent as you pressed: ${channels.join(", ")} (if that attempt fails, it is not tried again).`
    : "";

/** What the action does, as a sentence. */
const effect = (action: ReviewAction) =>
  `${ACTION_EFFECT[action].charAt(0).toUpperCase()}${ACTION_EFFECT[action].slice(1)}.`;

export default function Lead({ loaderData, actionData }: Route.ComponentProps) {
  const view = (actionData ?? loaderData) as LeadView;
  return (
    <section aria-labelledby="lead-title" className={`${container} max-w-3xl py-16`}>
      {view.kind === "confirm" ? (
        <>
          <h1 id="lead-title" className="text-3xl font-bold text-slate-900 dark:text-white">
            {QUESTION[view.action]}
          </h1>
          <Summary summary={view.summary} />
          {view.action === "take" ? (
            <>
              <p className="mt-6">
                {view.summary.taken
                  ? `${takenLine(view.summary.taken)}: pressing again changes nothing.`
                  : `${effect(view.action)}`}
              </p>
              <ActionButton token={view.token} label={ACTION_LABEL.take} primary askName />
            </>
          ) : (
            <>
              <p className="mt-6">{effect(view.action)} You can undo it on the next page.</p>
              <ActionButton token={view.token} label={ACTION_LABEL[view.action]} primary />
            </>
          )}
        </>
      ) : view.kind === "taken" ? (
        <>
          <h1 id="lead-title" className="text-3xl font-bold text-slate-900 dark:text-white">
            {view.first ? DONE.take : "Someone is already on it"}
          </h1>
          <p className="mt-4 text-lg" role="status">
            {view.summary.taken ? `${takenLine(view.summary.taken)}.` : ""}
            {view.first
              ? " The others who read this lead see it here, and no reminder goes."
              : " Nothing changed."}
          </p>
          <Summary summary={view.summary} />
        </>
      ) : view.kind === "done" ? (
        <>
          <h1 id="lead-title" className="text-3xl font-bold text-slate-900 dark:text-white">
            {DONE[view.action]}
          </h1>
          <p className="mt-4 text-lg" role="status">
            {view.changed ? effect(view.action) : "It was already marked so: nothing changed."}
            {view.cancelled.length > 0 ? ` Cancelled: ${view.cancelled.join(", ")}.` : ""}
            {underWay(view.underWay)}
            {view.delivered.length > 0
              ? ` Already delivered before you pressed: ${view.delivered.join(", ")}.`
              : ""}
            {view.queued.length > 0 ? ` Queued for delivery: ${view.queued.join(", ")}.` : ""}
          </p>
          <Summary summary={view.summary} />
          <p className="mt-6">
            Pressed by mistake? Undo puts it back as it was, for as long as the link works.
          </p>
          <ActionButton token={view.token} label="Undo" undo />
        </>
      ) : view.kind === "undone" ? (
        <>
          <h1 id="lead-title" className="text-3xl font-bold text-slate-900 dark:text-white">
            {view.changed ? "Undone" : "Nothing to undo"}
          </h1>
          <p className="mt-4 text-lg" role="status">
            {view.changed
              ? `It is as it was before “${ACTION_LABEL[view.action]}” was pressed.`
              : "It was undone already, or changed since."}
            {view.cancelled.length > 0 ? ` Cancelled: ${view.cancelled.join(", ")}.` : ""}
            {underWay(view.underWay)}
            {view.queued.length > 0 ? ` Queued for delivery: ${view.queued.join(", ")}.` : ""}
          </p>
          <Summary summary={view.summary} />
          <ActionButton token={view.token} label={ACTION_LABEL[view.action]} />
        </>
      ) : (
        <>
          <h1 id="lead-title" className="text-3xl font-bold text-slate-900 dark:text-white">
            {TITLES[view.kind][0]}
          </h1>
          <p className="mt-4 text-lg">{TITLES[view.kind][1]}</p>
        </>
      )}
    </section>
  );
}

/** One button: a form posting the token back to this page (works without JavaScript); Undo says so. */
function ActionButton(p: {
  token: string;
  label: string;
  primary?: boolean;
  undo?: boolean;
  /** "I'm on it": an optional name the others see. */
  askName?: boolean;
}) {
  const { token, label, primary, undo, askName } = p;
  return (
    // Posted to the bare path: the answer's address carries no token (history, screenshots, a shared screen).
    <form method="post" action={LEAD_PATH} className="mt-4">
      <input type="hidden" name={LEAD_TOKEN_FIELD} value={token} />
      {undo ? <input type="hidden" name={LEAD_UNDO_FIELD} value="1" /> : null}
      {askName ? <NameField id="lead-by" why="the others who read this lead see it" /> : null}
      <button type="submit" className={primary ? buttonPrimary : buttonSecondary}>
        {label}
      </button>
    </form>
  );
}

const VERDICT: Record<LeadSummary["verdict"], string> = {
  clean: "Delivered as a lead",
  suspect: "Delivered marked as possible spam",
  held: "Held by the spam filter: it was not delivered",
};

/** What a held message is now: marked by a person, or held by the filter. */
const nowLine = (s: LeadSummary) =>
  s.markedSpam
    ? `Marked as spam by you at ${s.markedSpam}; future deliveries are cancelled`
    : VERDICT[s.verdict];

function Summary({ summary: s }: { summary: LeadSummary }) {
  const rows: Array<[string, string]> = [
    ["From", `${s.name} <${s.email}>`],
    ["Company", s.company || "—"],
    ["Service", s.service || "—"],
    ["Received", s.received],
    ...(s.deadline
      ? [
          ["Reply by", s.deadline.replyBy.replace(/^Reply by /, "")] as [string, string],
          ["Promise", s.deadline.state] as [string, string],
        ]
      : []),
    ["Now", nowLine(s)],
    ...(s.verdict === "held"
      ? []
      : [["Answer", s.taken ? takenLine(s.taken) : "Nobody has taken it yet"] as [string, string]]),
  ];
  return (
    <div className={`${card} mt-6`}>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-semibold text-slate-900 dark:text-white">{k}</dt>
            <dd className="min-w-0 wrap-anywhere">{v}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-4 whitespace-pre-wrap wrap-anywhere">{s.excerpt}</p>
      {s.consultation ? <ConsultationPart c={s.consultation} /> : null}
    </div>
  );
}

/** The consultation, with Confirm and Decline right there while it waits (each its own form). */
function ConsultationPart({ c }: { c: Consultation }) {
  return (
    <section aria-labelledby="lead-consultation" className="mt-6">
      <h2 id="lead-consultation" className="text-xl font-semibold text-slate-900 dark:text-white">
        Free consultation
      </h2>
      <p className="mt-2">{consultationLine(c)}</p>
      {c.answer ? (
        <div className="flex flex-wrap gap-x-12">
          <ConsultationForm action="confirm" token={c.answer.confirm} at={c.answer.at} />
          <ConsultationForm
            action="decline"
            token={c.answer.decline}
            at={c.answer.at}
            primary={false}
          />
        </div>
      ) : null}
    </section>
  );
}
