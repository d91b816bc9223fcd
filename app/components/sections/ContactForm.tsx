import { Send } from "lucide-react";
import { site } from "~/config/site";
import { buttonPrimary } from "../ui/styles";

const field =
  "mt-1 block w-full rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 shadow-sm focus:border-blue-700 focus:outline-2 focus:outline-blue-700 dark:border-slate-500 dark:bg-slate-950 dark:text-white";
const label = "block text-sm font-medium text-slate-900 dark:text-white";

/** The contact form of spec §5. */
export function ContactForm() {
  return (
    <form method="post" action="/contact" className="mt-6 space-y-5">
      <div className="grid gap-5 sm:grid-cols-2">
        <div>
          <label htmlFor="name" className={label}>
            Full Name <span aria-hidden="true">*</span>
          </label>
          <input id="name" name="name" type="text" required autoComplete="name" className={field} />
        </div>
        <div>
          <label htmlFor="email" className={label}>
            Email Address <span aria-hidden="true">*</span>
          </label>
          <input id="email" name="email" type="email" required autoComplete="email" className={field} />
        </div>
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <div>
          <label htmlFor="company" className={label}>
            Company
          </label>
          <input id="company" name="company" type="text" autoComplete="organization" className={field} />
        </div>
        <div>
          <label htmlFor="service" className={label}>
            Service Interest
          </label>
          <select id="service" name="service" className={field} defaultValue="">
            <option value="">Select a service</option>
            {site.serviceOptions.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div>
        <label htmlFor="message" className={label}>
          Message <span aria-hidden="true">*</span>
        </label>
        <textarea id="message" name="message" rows={6} required className={field} />
      </div>
      <button type="submit" className={`${buttonPrimary} w-full sm:w-auto`}>
        <Send aria-hidden="true" className="size-5" /> Send Message
      </button>
    </form>
  );
}
