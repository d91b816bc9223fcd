import { ArrowLeft, CircleCheck } from "lucide-react";
import { buttonPrimary, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/contact-sent";

/**
 * Where the form without JavaScript lands after a stored message (Post/Redirect/Get: the action
 * answers 303 here). A reload or Back never posts the form again, and the message is in neither
 * the URL nor a cookie. Prerendered: the same page for everyone.
 */

export const meta: Route.MetaFunction = () => [
  { title: `${site.response.dialogTitle} | ${site.name}` },
  { name: "description", content: site.response.dialogMessage },
  { name: "robots", content: "noindex" },
];

export default function ContactSent() {
  return (
    <section aria-labelledby="sent-title" className={`${container} py-24 text-center`}>
      <CircleCheck aria-hidden="true" className="mx-auto size-16 text-green-700 dark:text-green-400" />
      <h1 id="sent-title" className="mt-6 text-4xl font-bold text-slate-900 dark:text-white">
        {site.response.dialogTitle}
      </h1>
      <p className="mx-auto mt-4 max-w-xl text-lg">{site.response.dialogMessage}</p>
      <a href={link.home} className={`${buttonPrimary} mt-8`}>
        <ArrowLeft aria-hidden="true" className="size-5" /> Back to the home page
      </a>
    </section>
  );
}
