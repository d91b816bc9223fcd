import type { ReactNode } from "react";
import { container } from "#app/components/ui/styles.ts";

/** The blue band that closes a page: a question, a sentence, and what to do next (`children`). */
export function CallToAction(props: {
  title: string;
  text: ReactNode;
  children: ReactNode;
  largeTitle?: boolean;
}) {
  const { title, text, children, largeTitle = false } = props;
  return (
    <section className="bg-blue-800 dark:bg-blue-950">
      <div className={`${container} py-16 text-center text-white`}>
        <h2 className={`text-3xl font-bold${largeTitle ? " sm:text-4xl" : ""}`}>{title}</h2>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-blue-100">{text}</p>
        {children}
      </div>
    </section>
  );
}
