import { Mail } from "lucide-react";
import { container, focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { serviceLines } from "#app/content/services.ts";
import { link } from "#app/pages.ts";

const footerLink = `rounded text-slate-300 hover:text-white ${focusRing}`;

export function SiteFooter() {
  return (
    <footer className="bg-slate-900 text-slate-300 print:hidden">
      <div className={`${container} grid gap-10 py-12 md:grid-cols-4`}>
        <div className="md:col-span-2">
          <p className="text-lg font-bold text-white">{site.name}</p>
          <p className="mt-3 max-w-md text-sm leading-relaxed">{site.blurb}</p>
          <a
            href={`mailto:${site.email}`}
            className={`mt-4 inline-flex items-center gap-2 text-sm ${footerLink}`}
          >
            <Mail aria-hidden="true" className="size-4" />
            {site.email}
          </a>
        </div>
        <div>
          <h2 className="text-sm font-semibold tracking-wide text-white uppercase">Services</h2>
          <ul className="mt-3 space-y-2 text-sm">
            {serviceLines.map((s) => (
              <li key={s.id}>
                <a href={`/services#${s.id}`} className={footerLink}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2 className="text-sm font-semibold tracking-wide text-white uppercase">Company</h2>
          <ul className="mt-3 space-y-2 text-sm">
            <li>
              <a href={link.blog} className={footerLink}>
                Blog
              </a>
            </li>
            <li>
              <a href={link.contact} className={footerLink}>
                Contact
              </a>
            </li>
            <li>
              <a href={link.imprint} className={footerLink}>
                Imprint
              </a>
            </li>
            <li>
              <a href={link.privacy} className={footerLink}>
                Privacy Policy
              </a>
            </li>
          </ul>
        </div>
      </div>
      <div className="border-t border-slate-800">
        <p className={`${container} py-6 text-sm text-slate-400`}>
          © {site.copyrightYear} {site.legalName}. All rights reserved.
        </p>
      </div>
    </footer>
  );
}
