import { ArrowLeft, CalendarCheck, CircleCheck } from "lucide-react";
import { buttonPrimary, buttonSecondary, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { BOOK_LABEL, BOOK_PATH, BOOK_TOKEN_FIELD } from "#app/contact/booking.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/contact-sent";

/**
 * Where the form without JavaScript lands after a stored message (Post/Redirect/Get: the action
 * answers 303 here). A reload or Back never posts the form again, and the message is in neither
 * the URL nor a cookie. Rendered by the server (BOOKING_PATHS), no-store: with the visitor's booking
 * link (`?t=`, the form's answer), it adds the action "Book your free consultation".
 */

export function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get(BOOK_TOKEN_FIELD);
  return {
    booking: token ? `${BOOK_PATH}?${new URLSearchParams({ [BOOK_TOKEN_FIELD]: token })}` : null,
  };
}

export const meta: Route.MetaFunction = () => [
  { title: `${site.response.dialogTitle} | ${site.name}` },
  { name: "description", content: site.response.dialogMessage },
  { name: "robots", content: "noindex" },
];

export default function ContactSent({ loaderData }: Route.ComponentProps) {
  return (
    <section aria-labelledby="sent-title" className={`${container} py-24 text-center`}>
      <CircleCheck
        aria-hidden="true"
        className="mx-auto size-16 text-green-700 dark:text-green-400"
      />
      <h1 id="sent-title" className="mt-6 text-4xl font-bold text-slate-900 dark:text-white">
        {site.response.dialogTitle}
      </h1>
      <p className="mx-auto mt-4 max-w-xl text-lg">{site.response.dialogMessage}</p>
      <p className="mt-8 flex flex-wrap justify-center gap-4">
        {loaderData?.booking ? (
          <a href={loaderData.booking} className={buttonPrimary}>
            <CalendarCheck aria-hidden="true" className="size-5" /> {BOOK_LABEL}
          </a>
        ) : null}
        <a href={link.home} className={loaderData?.booking ? buttonSecondary : buttonPrimary}>
          <ArrowLeft aria-hidden="true" className="size-5" /> Back to the home page
        </a>
      </p>
    </section>
  );
}
