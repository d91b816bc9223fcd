import type { ReactNode } from "react";
import { container } from "#app/components/ui/styles.ts";

/** The band at the top of every inner page: its one <h1> and a lead paragraph. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="bg-gradient-to-br from-blue-800 to-slate-900 py-16 text-white sm:py-20">
      <div className={container}>
        <h1 className="text-4xl font-bold tracking-tight sm:text-5xl">{title}</h1>
        {children ? <p className="mt-4 max-w-3xl text-lg text-blue-100">{children}</p> : null}
      </div>
    </section>
  );
}
