import { consultationLine } from "#app/components/sections/ConsultationForms.tsx";
import { buttonSecondary, card, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { contactContext } from "#app/contact/context.ts";
import { LEAD_TOKEN_FIELD, type OverviewLead, type OverviewView } from "#app/contact/lead.ts";
import { linkAnswer } from "#app/contact/link-answer.ts";
import type { Route } from "./+types/overview";

/**
 * The overview page behind the morning digest's one signed link (server/contact/review/digest.ts):
 * the consultation requests waiting for an answer, today's and tomorrow's calls (office days), the
 * leads nobody has taken yet and the messages held as spam, each with its own links (each opens
 * the lead's page, whose button acts; they expire with the digest's link). Read-only itself; served
 * as /lead is: never prerendered, noindex, no-store, no-referrer, rate-limited (server/app.ts); no
 * JavaScript.
 */

export async function loader({ request, context }: Route.LoaderArgs) {
  const contact = context.get(contactContext);
  const token = new URL(request.url).searchParams.get(LEAD_TOKEN_FIELD);
  const view: OverviewView = !contact
    ? { kind: "unavailable" }
    : token
      ? await contact.lead.overview(token, contact.clientIp)
      : { kind: "invalid" };
  return linkAnswer(view);
}

export const meta: Route.MetaFunction = () => [
  { title: `Open leads | ${site.name}` },
  { name: "robots", content: "noindex, nofollow" },
];

const ELSE =
  "Each business morning's digest email carries a new link; or ask whoever runs this website.";
const REFUSED: Record<Exclude<OverviewView["kind"], "overview">, [string, string]> = {
  invalid: [
    "This link is not valid",
    `It is not a link we sent, or it was changed on the way. ${ELSE}`,
  ],
  expired: ["This link has expired", `The overview's link works for a few days. ${ELSE}`],
  retired: ["This link's key was replaced", `It no longer works. ${ELSE}`],
  "rate-limited": ["Too many requests", "Please wait a few minutes, then open the link again."],
  unavailable: [
    "Please try again in a moment",
    "We could not reach our records just now. Open the link again in a minute.",
  ],
};

export default function Overview({ loaderData }: Route.ComponentProps) {
  const view = loaderData as OverviewView;
  if (view.kind !== "overview") {
    return (
      <section aria-labelledby="overview-title" className={`${container} max-w-3xl py-16`}>
        <h1 id="overview-title" className="text-3xl font-bold text-slate-900 dark:text-white">
          {REFUSED[view.kind][0]}
        </h1>
        <p className="mt-4 text-lg">{REFUSED[view.kind][1]}</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="overview-title" className={`${container} max-w-3xl py-16`}>
      <h1 id="overview-title" className="text-3xl font-bold text-slate-900 dark:text-white">
        Open leads
      </h1>
      <p className="mt-4">
        As of {view.asOf}. Each link opens the lead's page; only its button there changes anything.
      </p>
      <Leads
        title={`Requests waiting for an answer (${view.requests.length})`}
        leads={view.requests}
        none="No consultation request is waiting."
      />
      <Leads
        title={`Today's and tomorrow's calls (${view.calls.length})`}
        leads={view.calls}
        none="No call is booked for today or tomorrow."
      />
      <Leads
        title={`Waiting for a reply (${view.waiting.length})`}
        leads={view.waiting}
        none="Nobody is waiting."
      />
      <Leads
        title={`Held as spam this week (${view.held.length})`}
        leads={view.held}
        none="Nothing was held."
      />
    </section>
  );
}

function Leads({ title, leads, none }: { title: string; leads: OverviewLead[]; none: string }) {
  return (
    <>
      <h2 className="mt-10 text-2xl font-semibold text-slate-900 dark:text-white">{title}</h2>
      {leads.length === 0 ? <p className="mt-4">{none}</p> : null}
      <ul className="mt-4 space-y-4">
        {leads.map(({ id, summary: s, links }) => (
          <li key={id} className={card}>
            <p className="font-semibold text-slate-900 wrap-anywhere dark:text-white">
              {s.name} &lt;{s.email}&gt;{s.company ? `, ${s.company}` : ""}
            </p>
            <p>
              {s.service || "General"}, received {s.received}
            </p>
            {s.deadline ? (
              <p>
                {s.deadline.replyBy}: {s.deadline.state}
              </p>
            ) : null}
            {s.consultation ? <p>Consultation: {consultationLine(s.consultation)}</p> : null}
            <p className="mt-2 whitespace-pre-wrap wrap-anywhere">{s.excerpt}</p>
            <p className="mt-4 flex flex-wrap gap-2">
              {links.map((l) => (
                <a key={l.label} href={l.url} className={buttonSecondary}>
                  {l.label}
                </a>
              ))}
            </p>
          </li>
        ))}
      </ul>
    </>
  );
}
