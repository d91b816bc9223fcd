import { LegalSection, retentionPeriod, textLink } from "#app/components/ui/LegalSection.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { PostalAddress } from "#app/components/ui/PostalAddress.tsx";
import { readingColumn } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/privacy";

/**
 * The privacy notice a US visitor expects (CalOPPA: what is collected, who it goes to, how to see or
 * delete it, how changes are announced, the effective date, Do Not Track). Every fact comes from
 * `site.privacy` (app/config/site.ts); the server refuses to start when it would hand leads to a
 * processor listed nowhere here (docs/decisions/0014-privacy-notice.md).
 */

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Privacy Policy",
    description: `What ${site.name} collects through this website, why, who helps us handle it, how long we keep it and how to see or delete it.`,
    path: link.privacy,
  });

export default function Privacy() {
  const { privacy } = site;
  const processors = Object.values(privacy.processors);
  const mail = (
    <a href={`mailto:${site.email}`} className={textLink}>
      {site.email}
    </a>
  );
  return (
    <>
      <PageHeader title="Privacy Policy">How we handle what you tell us. Effective {privacy.effectiveDate}.</PageHeader>
      <div data-print-links className={`${readingColumn} py-12 text-lg`}>
        <LegalSection id="summary" title="In Short">
          <p>
            This website sets no cookies, runs no analytics and tracks no one. We collect only what you send us through
            the contact form, use it to answer you, keep it no longer than {retentionPeriod(privacy.retentionDays)}, and
            never sell or share it. You can see or delete it at any time.
          </p>
        </LegalSection>
        <LegalSection id="collect" title="What We Collect">
          <p>When you send the contact form, we receive:</p>
          <ul className="list-disc space-y-1 pl-6">
            <li>
              your full name, email address and message, and, if you give them, your company and the service you ask
              about;
            </li>
            <li>the page you sent it from, the time, and your browser&rsquo;s user agent;</li>
            <li>
              a keyed hash of your network address (never the address itself), made with a secret that is not stored
              with your message and changes every month, to limit abuse of the form.
            </li>
          </ul>
          <p>
            Nothing else. Reading the site sends us only what every browser sends to load a page; our server records the
            page, the answer and its timing, never your address. Fonts, images and icons come from our own server.
          </p>
        </LegalSection>
        <LegalSection id="use" title="Why We Use It">
          <p>
            To answer your inquiry, and to keep the form free of automated spam: we hold messages that look automated
            for a person to review, and our spam filter learns from the messages we mark as spam or genuine. The filter
            keeps no copy of your words; what it learned from your message goes when your message does.
          </p>
        </LegalSection>
        <LegalSection id="processors" title="Who Helps Us Handle It">
          <p>
            Your message reaches our team through these service providers, who handle it on our behalf and for no
            purpose of their own:
          </p>
          <ul className="list-disc space-y-1 pl-6">
            {processors.map((p) => (
              <li key={p.name}>
                {p.category}, {p.name}: {p.gets}.
              </li>
            ))}
          </ul>
          <p>
            We do not sell or share your personal information, use it for advertising, or give it to anyone else unless
            the law requires us to.
          </p>
        </LegalSection>
        <LegalSection id="retention" title="How Long We Keep It">
          <p>
            No longer than {retentionPeriod(privacy.retentionDays)}. Our server deletes each message by itself when that
            period ends, with every copy it made: the delivery records, the email copies it keeps, and the reports that
            named you. Our backups hold it at most {privacy.backupDays} days longer. We delete the copies in our inbox,
            team chat and CRM on the same schedule.
          </p>
        </LegalSection>
        <LegalSection id="choices" title="Seeing or Deleting Your Information">
          <p>
            Write to {mail} or call{" "}
            <a href={`tel:${site.phone.e164}`} className={textLink}>
              {site.phone.display}
            </a>
            , and tell us the email address you used. Within {privacy.answerDays} days we send you everything we hold
            about you, correct it, or delete all of it, as you ask. You may ask on behalf of someone else with their
            written permission. We will never treat you differently for asking. Residents of California and other states
            with privacy laws have these rights by law; we give them to everyone.
          </p>
        </LegalSection>
        <LegalSection id="signals" title="Do Not Track and Global Privacy Control">
          <p>
            We do not track visitors over time or across websites, set no cookies, and sell or share nothing, so a Do
            Not Track or Global Privacy Control signal from your browser asks for what we already do: we honour both by
            default, with nothing to switch on. Our{" "}
            <a href={link.gpc} className={textLink}>
              GPC statement
            </a>{" "}
            says so to your browser.
          </p>
        </LegalSection>
        <LegalSection id="children" title="Children">
          <p>This website is meant for businesses. We do not knowingly collect information from children under 13.</p>
        </LegalSection>
        <LegalSection id="changes" title="Changes to This Policy">
          <p>
            When we change this policy, we publish the new version on this page with a new effective date, and say at
            its top what changed. We will not use what you already sent us in a new way without asking you first.
          </p>
        </LegalSection>
        <LegalSection id="contact" title="Contact">
          <p>{site.legalName}</p>
          <PostalAddress withCountry />
          <p>Email: {mail}</p>
        </LegalSection>
        <p className="mt-8 text-sm">Effective date: {privacy.effectiveDate}</p>
      </div>
    </>
  );
}
