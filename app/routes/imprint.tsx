import type { ReactNode } from "react";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { PostalAddress } from "#app/components/ui/PostalAddress.tsx";
import { focusRing, readingColumn } from "#app/components/ui/styles.ts";
import { site, usd } from "#app/config/site.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/imprint";

/** The retention period as the privacy note says it: "one year", or a number of days. */
const retention = (days: number) => (days === 365 ? "one year" : `${days} days`);

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Imprint",
    description: `Legal information about ${site.legalName}: registration, management, liability, licensing and contact details.`,
    path: link.imprint,
  });

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="border-b border-slate-200 py-8 last:border-0 dark:border-slate-800">
      <h2 id={id} className="text-2xl font-bold text-slate-900 dark:text-white">
        {title}
      </h2>
      <div className="mt-4 space-y-3 leading-relaxed">{children}</div>
    </section>
  );
}

const textLink = `rounded font-medium text-blue-800 underline underline-offset-2 dark:text-blue-300 ${focusRing}`;

export default function Imprint() {
  const { imprint } = site;
  return (
    <>
      <PageHeader title="Imprint">Legal information and company details.</PageHeader>
      <div data-print-links className={`${readingColumn} py-12 text-lg`}>
        <Section id="company" title="Company Information">
          <p>
            <strong className="text-slate-900 dark:text-white">{site.legalName}</strong>
            <br />A limited liability company organized under the laws of the State of {site.address.regionName}
          </p>
          <PostalAddress withCountry />
          <p>
            Registration number: {imprint.registrationNumber} ({imprint.registeredIn})
          </p>
        </Section>
        <Section id="contact-details" title="Contact Details">
          <ul className="space-y-1">
            <li>
              Phone:{" "}
              <a href={`tel:${site.phone.e164}`} className={textLink}>
                {site.phone.display}
              </a>
            </li>
            <li>
              Email:{" "}
              <a href={`mailto:${site.email}`} className={textLink}>
                {site.email}
              </a>
            </li>
            <li>Business hours: Monday to Friday, {imprint.supportHours}</li>
          </ul>
          <p>{site.emergencySupport}</p>
        </Section>
        <Section id="management" title="Management">
          <p>{site.legalName} is managed by its officers:</p>
          <ul className="list-disc space-y-1 pl-6">
            {imprint.managementRoles.map((role) => (
              <li key={role}>{role}</li>
            ))}
          </ul>
        </Section>
        <Section id="liability" title="Liability Disclaimer">
          <p>
            The content of this website has been prepared with care, but we cannot guarantee that it is complete,
            accurate or current. It is general information, not professional advice for your specific situation; figures
            in our articles are examples and do not replace advice from your accountant or attorney.
          </p>
          <p>
            We are not responsible for the content of external websites we may refer to. Our professional services are
            covered by professional liability insurance of {usd(imprint.liabilityCoverageUsd)}.
          </p>
        </Section>
        <Section id="copyright" title="Copyright Notice">
          <p>
            All content on this website — text, graphics, logos and software — is the property of {site.legalName} and
            is protected by United States and international copyright law. You may not reproduce or distribute it
            without our written permission.
          </p>
        </Section>
        <Section id="privacy" title="Privacy Note">
          <p>
            This website sets no cookies and uses no tracking, analytics or third-party services. When you send us a
            message through the contact form, we store your name, email address, company, chosen service and message in
            order to answer you, together with the page you sent it from and your browser&rsquo;s user agent. To limit
            abuse of the form we also keep a keyed hash of your network address (never the address itself), made with a
            secret that is not stored with your message and changes every month. We keep all of it no longer than{" "}
            {retention(site.imprint.retentionDays)}. We never sell or share your information. To see or delete what we
            hold about you, write to{" "}
            <a href={`mailto:${site.email}`} className={textLink}>
              {site.email}
            </a>
            .
          </p>
        </Section>
        <Section id="licensing" title="Professional Licensing">
          <p>{imprint.californiaLicensing}</p>
        </Section>
        <Section id="disputes" title="Dispute Resolution">
          <p>
            We aim to resolve every concern directly: please contact us first. Any dispute that we cannot settle
            together shall be resolved by binding arbitration in {site.address.city}, {site.address.regionName}, under
            the laws of the State of {site.address.regionName}, unless the law of your state requires otherwise.
          </p>
        </Section>
        <p className="mt-8 text-sm">Last updated: {imprint.lastUpdated}</p>
      </div>
    </>
  );
}
