import type { ReactNode } from "react";
import { focusRing } from "#app/components/ui/styles.ts";

/** One titled section of a legal page (the imprint, the privacy notice). */
export function LegalSection({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={id}
      className="border-b border-slate-200 py-8 last:border-0 dark:border-slate-800"
    >
      <h2 id={id} className="text-2xl font-bold text-slate-900 dark:text-white">
        {title}
      </h2>
      <div className="mt-4 space-y-3 leading-relaxed">{children}</div>
    </section>
  );
}

/** A link inside a legal page's text. */
export const textLink = `rounded font-medium text-blue-800 underline underline-offset-2 dark:text-blue-300 ${focusRing}`;

/** The retention period as the legal pages say it: "one year", or a number of days. */
export const retentionPeriod = (days: number) => (days === 365 ? "one year" : `${days} days`);
