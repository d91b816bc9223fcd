import { ArrowRight, Compass } from "lucide-react";
import { buttonPrimary, container, focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { link } from "#app/pages.ts";

const destinations = [
  {
    href: link.services,
    label: "Services",
    text: "IT infrastructure, consulting and AI development",
  },
  { href: link.blog, label: "Blog", text: "Articles on infrastructure, AI and compliance" },
  { href: link.contact, label: "Contact", text: "Tell us about your project" },
];

/** The designed page for an unknown address (HTTP 404). */
export function NotFound({
  title = "Page not found",
  message = "The page you are looking for does not exist or has moved.",
}: {
  title?: string;
  message?: string;
}) {
  return (
    <section className={`${container} py-20 text-center`}>
      {/* The route's meta does not run when its loader throws: React 19 hoists these into <head>. */}
      <title>{`${title} | ${site.name}`}</title>
      <meta name="robots" content="noindex" />
      <Compass aria-hidden="true" className="mx-auto size-14 text-blue-700 dark:text-blue-300" />
      <h1 className="mt-6 text-4xl font-bold text-slate-900 dark:text-white">{title}</h1>
      <p className="mx-auto mt-4 max-w-xl text-lg">{message}</p>
      <a href={link.home} className={`${buttonPrimary} mt-8`}>
        Go to the home page
      </a>
      <ul className="mx-auto mt-12 grid max-w-3xl gap-4 text-left sm:grid-cols-3">
        {destinations.map((d) => (
          <li key={d.href}>
            <a
              href={d.href}
              className={`block h-full rounded-xl border border-slate-200 p-5 hover:border-blue-700 dark:border-slate-700 dark:hover:border-blue-300 ${focusRing}`}
            >
              <span className="flex items-center gap-1 font-semibold text-blue-800 dark:text-blue-200">
                {d.label} <ArrowRight aria-hidden="true" className="size-4" />
              </span>
              <span className="mt-1 block text-sm">{d.text}</span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
