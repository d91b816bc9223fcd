import { Clock, Gift, type LucideIcon, Mail, MapPin, Phone, Users, Zap } from "lucide-react";
import type { ReactNode } from "react";
import { data, redirect } from "react-router";
import { ContactForm, type FormResult } from "#app/components/sections/ContactForm.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { PostalAddress } from "#app/components/ui/PostalAddress.tsx";
import { card, container, focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { contactPublicKey } from "#app/contact/api.ts";
import { contactContext } from "#app/contact/context.ts";
import {
  type ContactField,
  FIELDS,
  type FieldErrors,
  FORM_TOKEN_FIELD,
  HONEYPOT_FIELD,
} from "#app/contact/fields.ts";
import { TOO_MANY } from "#app/contact/messages.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/contact";

// The one interactive page does not hydrate either: a small module (app/contact/enhance.ts, added to
// the page at build by scripts/postbuild.js) sends the form without a page load
// (docs/decisions/0005-contact-page-without-hydration.md).

/** Where the page sends the form with JavaScript on (fixed at build time: the page is prerendered). */
export function loader() {
  return {
    endpoint: __CONTACT_ENDPOINT__,
    publicKey: contactPublicKey(__CONTACT_PUBLIC_KEY__),
  };
}

/**
 * The form without JavaScript: a native POST to /contact, through the same pipeline as the JSON
 * endpoint. Success renders the success dialog; anything else re-renders the form with its values.
 */
export async function action({ request, context }: Route.ActionArgs) {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    // A body that does not parse as the form it says it is (a broken multipart, say): the sender's fault.
    return data<FormResult>(
      { ok: false, error: "We could not read the form. Please try again.", fields: {}, values: {} },
      { status: 400 },
    );
  }
  // The form's own inputs, as posted (anything else in the post is not part of the form and is
  // ignored); the pipeline reads them like any payload, honeypot included. The page token travels
  // beside them, as the JSON door's X-Form-Token header does.
  const body: Record<string, string> = {};
  for (const name of [...FIELDS, HONEYPOT_FIELD]) {
    const value = form.get(name);
    if (typeof value === "string") body[name] = value;
  }
  const values: Partial<Record<ContactField, string>> = {};
  for (const field of FIELDS) if (body[field] !== undefined) values[field] = body[field];
  const contact = context.get(contactContext);
  const failure = (
    status: number,
    error: string,
    fields: FieldErrors = {},
    headers?: Record<string, string>,
  ) => data<FormResult>({ ok: false, error, fields, values }, { status, headers });
  const unavailable = () => failure(503, site.response.failure, {}, { "Retry-After": "30" });
  if (!contact) return unavailable();
  try {
    const token = form.get(FORM_TOKEN_FIELD);
    const outcome = await contact.submitter.submit({
      body,
      source: "form",
      formToken: typeof token === "string" ? token : undefined,
      ip: contact.clientIp,
      userAgent: request.headers.get("user-agent") ?? undefined,
      page: link.contact,
    });
    switch (outcome.kind) {
      case "stored":
      case "replayed":
        // Post/Redirect/Get: a reload or Back on the answer never posts (and stores) the message again.
        // With the visitor's booking link (server/booking/): /contact/sent offers it.
        return redirect(
          `${link.contactSent}${outcome.booking ? new URL(outcome.booking, site.url).search : ""}`,
          {
            status: 303,
          },
        );
      case "invalid":
        return failure(400, "Please correct the fields marked above.", outcome.fields);
      case "rate-limited":
        return failure(429, TOO_MANY, {}, { "Retry-After": String(outcome.retryAfterSeconds) });
      case "key-reused":
        // The form sends no Idempotency-Key; should one ever come, the visitor gets the usual failure.
        return failure(422, site.response.failure);
    }
  } catch {
    return unavailable();
  }
}

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Contact Us",
    description: `Call, write or send us a message. ${site.response.infoLine} Free ${site.consultationMinutes}-minute consultation.`,
    path: link.contact,
  });

const tiles = [
  { icon: Zap, title: "Quick Response", text: site.response.tile },
  {
    icon: Users,
    title: "Expert Team",
    text: "Certified engineers and consultants with years of enterprise infrastructure and AI experience.",
  },
  {
    icon: Gift,
    title: "Free Consultation",
    text: `A free ${site.consultationMinutes}-minute consultation to understand your needs and outline a plan.`,
  },
];

const textLink = `rounded font-medium text-blue-800 hover:underline dark:text-blue-300 ${focusRing}`;

/** One way to reach us: an icon, a heading, and the details. */
function InfoItem({
  icon: Icon,
  title,
  children,
}: {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
}) {
  return (
    <li className="flex gap-4">
      <Icon aria-hidden="true" className="mt-1 size-5 shrink-0 text-blue-700 dark:text-blue-300" />
      <div>
        <h3 className="font-semibold text-slate-900 dark:text-white">{title}</h3>
        {children}
      </div>
    </li>
  );
}

export default function Contact({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <>
      <PageHeader title="Contact Us">
        Tell us about your project. We will get back to you with next steps and an honest
        assessment.
      </PageHeader>
      <div className={`${container} grid gap-10 py-16 lg:grid-cols-5`}>
        <section aria-labelledby="info-heading" className="lg:col-span-2">
          <h2 id="info-heading" className="text-2xl font-bold text-slate-900 dark:text-white">
            Get in touch
          </h2>
          <ul className="mt-6 space-y-6">
            <InfoItem icon={Phone} title="Phone">
              <a href={`tel:${site.phone.e164}`} className={textLink}>
                {site.phone.display}
              </a>
              <p className="text-sm">{site.phone.hours}</p>
            </InfoItem>
            <InfoItem icon={Mail} title="Email">
              <a href={`mailto:${site.email}`} className={textLink}>
                {site.email}
              </a>
            </InfoItem>
            <InfoItem icon={MapPin} title="Office">
              <PostalAddress />
            </InfoItem>
            <InfoItem icon={Clock} title="Office hours">
              <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                {site.officeHours.map((h) => (
                  <div key={h.label} className="contents">
                    <dt>{h.label}</dt>
                    <dd>{h.text}</dd>
                  </div>
                ))}
              </dl>
            </InfoItem>
          </ul>
          <p className="mt-8 rounded-xl bg-blue-50 p-4 text-sm font-medium text-blue-900 dark:bg-slate-800 dark:text-blue-100">
            {site.response.infoLine}
            {site.response.publicFigure.show && (
              <>
                {" "}
                <span data-reply-figure="" hidden />
              </>
            )}
          </p>
        </section>
        <section aria-labelledby="form-heading" className={`${card} lg:col-span-3 sm:p-8`}>
          <h2 id="form-heading" className="text-2xl font-bold text-slate-900 dark:text-white">
            Send us a message
          </h2>
          <ContactForm
            endpoint={loaderData.endpoint}
            publicKey={loaderData.publicKey}
            result={actionData}
          />
        </section>
      </div>
      <section aria-label="Why work with us" className="bg-slate-50 dark:bg-slate-900/50">
        <ul className={`${container} grid gap-6 py-16 md:grid-cols-3`}>
          {tiles.map(({ icon: Icon, title, text }) => (
            <li key={title} className={`${card} text-center`}>
              <Icon
                aria-hidden="true"
                className="mx-auto size-8 text-blue-700 dark:text-blue-300"
              />
              <h2 className="mt-4 text-lg font-semibold text-slate-900 dark:text-white">{title}</h2>
              <p className="mt-2 text-sm">{text}</p>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
