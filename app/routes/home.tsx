import { ArrowRight, ShieldCheck } from "lucide-react";
import { HeroIllustration } from "#app/components/sections/HeroIllustration.tsx";
import { CallToAction } from "#app/components/ui/CallToAction.tsx";
import { CheckList } from "#app/components/ui/CheckList.tsx";
import { NamedIcon } from "#app/components/ui/NamedIcon.tsx";
import {
  buttonOnDark,
  buttonPrimary,
  buttonSecondary,
  card,
  container,
  focusRing,
} from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { serviceLines } from "#app/content/services.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: `${site.name} — IT & AI Services for US Businesses`,
    description: site.description,
    path: link.home,
  });

export default function Home() {
  return (
    <>
      <section className="bg-gradient-to-br from-slate-50 to-blue-50 dark:from-slate-950 dark:to-slate-900">
        <div
          className={`${container} grid items-center gap-12 py-20 sm:py-28 lg:grid-cols-[minmax(0,1fr)_auto]`}
        >
          <div>
            <p className="inline-flex items-center gap-2 rounded-full bg-blue-100 px-4 py-1.5 text-sm font-semibold text-blue-900 dark:bg-slate-800 dark:text-blue-100">
              <ShieldCheck aria-hidden="true" className="size-4" />
              SOC 2 Compliant · Enterprise Security
            </p>
            <h1 className="mt-6 max-w-4xl text-4xl font-bold tracking-tight text-slate-900 sm:text-6xl lg:text-5xl xl:text-6xl dark:text-white">
              IT infrastructure and AI solutions that move your business forward
            </h1>
            <p className="mt-6 max-w-2xl text-lg leading-relaxed sm:text-xl">
              From the servers in your rack to the models in production, {site.name} plans, builds
              and supports the technology that growing US companies run on.
            </p>
            <div className="mt-10 flex flex-col gap-4 sm:flex-row">
              <a href={link.services} className={buttonPrimary}>
                Explore Services <ArrowRight aria-hidden="true" className="size-5" />
              </a>
              <a href={link.contact} className={buttonSecondary}>
                Get Consultation
              </a>
            </div>
          </div>
          {/* Beside the text from 1024 px; below that the text has the width and the picture would only push it down. */}
          <HeroIllustration className="hidden h-auto w-[22rem] lg:block xl:w-[27.5rem]" />
        </div>
      </section>

      <section
        aria-label="Company figures"
        className="border-y border-slate-200 dark:border-slate-800"
      >
        <dl className={`${container} grid grid-cols-2 gap-8 py-12 text-center md:grid-cols-4`}>
          {site.stats.map((s) => (
            <div key={s.label} className="flex flex-col-reverse">
              <dt className="mt-1 text-sm font-medium">{s.label}</dt>
              <dd className="text-3xl font-bold text-blue-800 sm:text-4xl dark:text-blue-300">
                {s.value}
              </dd>
            </div>
          ))}
        </dl>
      </section>

      <section className={`${container} py-20`} aria-labelledby="services-heading">
        <div className="max-w-2xl">
          <h2
            id="services-heading"
            className="text-3xl font-bold text-slate-900 sm:text-4xl dark:text-white"
          >
            Our services
          </h2>
          <p className="mt-4 text-lg">
            Four service lines, one accountable team — from hardware to AI in production.
          </p>
        </div>
        <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {serviceLines.map((s) => (
            <li key={s.id} className={`${card} flex flex-col`}>
              <span className="inline-flex size-12 items-center justify-center rounded-xl bg-blue-100 text-blue-800 dark:bg-slate-800 dark:text-blue-300">
                <NamedIcon name={s.icon} className="size-6" />
              </span>
              <h3 className="mt-4 text-xl font-semibold text-slate-900 dark:text-white">
                {s.cardTitle}
              </h3>
              <p className="mt-2 text-sm">{s.summary}</p>
              <CheckList items={s.highlights} className="mt-4" />
            </li>
          ))}
        </ul>
        <div className="mt-10 text-center">
          <a
            href={link.services}
            className={`inline-flex items-center gap-2 rounded font-semibold text-blue-800 hover:underline dark:text-blue-300 ${focusRing}`}
          >
            View All Services <ArrowRight aria-hidden="true" className="size-5" />
          </a>
        </div>
      </section>

      <CallToAction
        largeTitle
        title="Ready to transform your business?"
        text={`Book a free ${site.consultationMinutes}-minute consultation. We will listen, ask the right questions and tell you honestly where we can help.`}
      >
        <a href={link.contact} className={`${buttonOnDark} mt-8`}>
          Start Your Project <ArrowRight aria-hidden="true" className="size-5" />
        </a>
      </CallToAction>
    </>
  );
}
