import { CalendarCheck, FileText } from "lucide-react";
import { CallToAction } from "#app/components/ui/CallToAction.tsx";
import { CheckList } from "#app/components/ui/CheckList.tsx";
import { NamedIcon } from "#app/components/ui/NamedIcon.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { rowSizeOf } from "#app/components/ui/rows.ts";
import { buttonOnDark, card, container } from "#app/components/ui/styles.ts";
import { contactHrefFor } from "#app/config/service-options.ts";
import { serviceLines } from "#app/content/services.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { breadcrumbs, JsonLd, services } from "#app/lib/structured-data.tsx";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/services";

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Services",
    description:
      "IT infrastructure to buy, rent or run as a service; IT and AI consulting; and custom AI software for marketing, finance and risk.",
    path: link.services,
  });

/** Each row fills the six-column grid: its cards share it equally. */
const wideSpan: Record<number, string> = {
  1: "lg:col-span-6",
  2: "lg:col-span-3",
  3: "lg:col-span-2",
};

export default function Services() {
  return (
    <>
      <JsonLd
        graph={[
          ...services(serviceLines),
          breadcrumbs([
            { name: "Home", path: link.home },
            { name: "Services", path: link.services },
          ]),
        ]}
      />
      <PageHeader title="Our Services">
        Comprehensive IT and AI solutions, from the hardware you own to the models that run your
        business.
      </PageHeader>
      {serviceLines.map((line, i) => (
        <section
          key={line.id}
          id={line.id}
          aria-labelledby={`${line.id}-heading`}
          className={`scroll-mt-20 py-16 ${i % 2 === 1 ? "bg-slate-50 dark:bg-slate-900/50" : ""}`}
        >
          <div className={container}>
            <div className="flex items-center gap-4">
              <span className="inline-flex size-12 items-center justify-center rounded-xl bg-blue-100 text-blue-800 dark:bg-slate-800 dark:text-blue-300">
                <NamedIcon name={line.icon} className="size-6" />
              </span>
              <h2
                id={`${line.id}-heading`}
                className="text-3xl font-bold text-slate-900 dark:text-white"
              >
                {line.title}
              </h2>
            </div>
            <p className="mt-4 max-w-3xl text-lg">{line.summary}</p>
            <div className="mt-10 grid gap-6 lg:grid-cols-6">
              {line.offerings.map((o, n) => (
                <article
                  key={o.title}
                  className={`${card} flex flex-col ${wideSpan[rowSizeOf(line.offerings.length, n)]}`}
                >
                  <h3 className="text-xl font-semibold text-slate-900 dark:text-white">
                    {o.title}
                  </h3>
                  <p className="mt-3 text-sm leading-relaxed">{o.description}</p>
                  <CheckList items={o.features} className="mt-5" />
                </article>
              ))}
            </div>
          </div>
        </section>
      ))}
      <CallToAction
        title="Not sure where to start?"
        text="Tell us what you are working on. We will suggest the right mix of services and a realistic budget."
      >
        <div className="mt-8 flex flex-col justify-center gap-4 sm:flex-row">
          <a href={contactHrefFor("General Inquiry")} className={buttonOnDark}>
            <CalendarCheck aria-hidden="true" className="size-5" /> Schedule Consultation
          </a>
          <a
            href={contactHrefFor("General Inquiry")}
            className="inline-flex items-center justify-center gap-2 rounded-lg border-2 border-white px-6 py-3 font-semibold text-white hover:bg-blue-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
          >
            <FileText aria-hidden="true" className="size-5" /> Request Quote
          </a>
        </div>
      </CallToAction>
    </>
  );
}
