import { LegalSection, retentionPeriod, textLink } from "#app/components/ui/LegalSection.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { PostalAddress } from "#app/components/ui/PostalAddress.tsx";
import { readingColumn } from "#app/components/ui/styles.ts";
import { site, usd } from "#app/config/site.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/imprint";

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Imprint",
    description: `Legal information about ${site.legalName}: registration, management, liability, licensing and contact details.`,
    path: link.imprint,
  });

export default function Imprint() {
  const { imprint } = site;
  return (
    <>
      <PageHeader title="Imprint">Legal information and company details.</PageHeader>
      <div data-print-links className={`${readingColumn} py-12 text-lg`}>
        <LegalSection id="company" title="Company Information">
          <p>
            <strong className="text-slate-900 dark:text-white">{site.legalName}</strong>
            <br />A limited liability company organized under the laws of the State of{" "}
            {site.address.regionName}
          </p>
          <PostalAddress withCountry />
          <p>
            Registration number: {imprint.registrationNumber} ({imprint.registeredIn})
          </p>
        </LegalSection>
        <LegalSection id="contact-details" title="Contact Details">
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
            <li>Business hours: {imprint.supportHours}</li>
          </ul>
          <p>{site.emergencySupport}</p>
        </LegalSection>
        <LegalSection id="management" title="Management">
          <p>{site.legalName} is managed by its officers:</p>
          <ul className="list-disc space-y-1 pl-6">
            {imprint.managementRoles.map((role) => (
              <li key={role}>{role}</li>
            ))}
          </ul>
        </LegalSection>
        <LegalSection id="liability" title="Liability Disclaimer">
          <p>
            The content of this website has been prepared with care, but we cannot guarantee that it
            is complete, accurate or current. It is general information, not professional advice for
            your specific situation; figures in our articles are examples and do not replace advice
            from your accountant or attorney.
          </p>
          <p>
            We are not responsible for the content of external websites we may refer to. Our
            professional services are covered by professional liability insurance of{" "}
            {usd(imprint.liabilityCoverageUsd)}.
          </p>
        </LegalSection>
        <LegalSection id="copyright" title="Copyright Notice">
          <p>
            All content on this website — text, graphics, logos and software — is the property of{" "}
            {site.legalName} and is protected by United States and international copyright law. You
            may not reproduce or distribute it without our written permission.
          </p>
        </LegalSection>
        <LegalSection id="privacy" title="Privacy Note">
          <p>
            This website sets no cookies and tracks no one. What you send us through the contact
            form is kept no longer than {retentionPeriod(site.privacy.retentionDays)}, never sold or
            used for advertising, and seen, corrected or deleted on request. What we collect, why,
            who helps us handle it and your choices are set out in our{" "}
            <a href={link.privacy} className={textLink}>
              Privacy Policy
            </a>
            .
          </p>
        </LegalSection>
        <LegalSection id="licensing" title="Professional Licensing">
          <p>{imprint.californiaLicensing}</p>
        </LegalSection>
        <LegalSection id="disputes" title="Dispute Resolution">
          <p>
            We aim to resolve every concern directly: please contact us first. Any dispute that we
            cannot settle together shall be resolved by binding arbitration in {site.address.city},{" "}
            {site.address.regionName}, under the laws of the State of {site.address.regionName},
            unless the law of your state requires otherwise.
          </p>
        </LegalSection>
        <p className="mt-8 text-sm">Last updated: {imprint.lastUpdated}</p>
      </div>
    </>
  );
}
