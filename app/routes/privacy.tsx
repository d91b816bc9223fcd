import { LegalSection, retentionPeriod, textLink } from "#app/components/ui/LegalSection.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { PostalAddress } from "#app/components/ui/PostalAddress.tsx";
import { readingColumn } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { BY_PHONE } from "#app/contact/booking.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/privacy";

/**
 * The privacy notice a US visitor expects (CalOPPA: what is collected, who it goes to, that no third
 * party collects anything here, how it is protected, how to see, correct or delete it and how a
 * request is confirmed, how changes are announced, the effective date, Do Not Track). Every fact
 * comes from `site.privacy` (app/config/site.ts); the server refuses to start when it would hand
 * leads to a processor, or a host, listed nowhere here (docs/decisions/0014-privacy-notice.md).
 * Each sentence is enforced by the system, checked at start, or a promise about people that
 * docs/operations.md ("The privacy promise") tells the operator how to keep.
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
  const period = retentionPeriod(privacy.retentionDays);
  const mail = (
    <a href={`mailto:${site.email}`} className={textLink}>
      {site.email}
    </a>
  );
  const provider = (p: { category: string; name: string; gets: string }) => (
    <li key={p.name + p.category}>
      {p.category}, {p.name}: {p.gets}.
    </li>
  );
  return (
    <>
      <PageHeader title="Privacy Policy">
        How we handle what you tell us. Effective {privacy.effectiveDate}. What changed:{" "}
        {privacy.lastChange}
      </PageHeader>
      <div data-print-links className={`${readingColumn} py-12 text-lg`}>
        <LegalSection id="summary" title="In Short">
          <p>
            This website sets no cookies, runs no analytics and tracks no one. We collect only what
            you send us through the contact form, use it to answer you and to keep spam out, keep it
            no longer than {period}, and never sell it or use it for advertising. You can see,
            correct or delete it at any time.
          </p>
        </LegalSection>
        <LegalSection id="collect" title="What We Collect">
          <p>When you send the contact form, we receive:</p>
          <ul className="list-disc space-y-1 pl-6">
            <li>
              your full name, email address and message, and, if you give them, your company and the
              service you ask about;
            </li>
            <li>
              the page you sent it from (its path only, never anything after a &ldquo;?&rdquo; in
              its address), the time, and your browser&rsquo;s user agent;
            </li>
            <li>
              a keyed hash of your network address, never the address itself, to limit abuse of the
              form;
            </li>
            <li>
              if you book a {site.consultationMinutes}-minute consultation from the link we give you
              after your message: the time you pick, the time zone you read it in,
              {BY_PHONE ? " the phone number you give us to call you at," : ""} and whether we
              confirmed it. It is kept with your message and deleted with it.
            </li>
          </ul>
          <p>{privacy.addressKey}</p>
          <p>
            Reading the site sends us only what every browser sends to load a page. Our proxy and
            our server record the page asked for (its path, without anything after a
            &ldquo;?&rdquo;), the answer and its timing, never your address; that record is kept for{" "}
            {privacy.logDays} days. Fonts, images and icons come from our own server. No third party
            collects anything on this website: there is no analytics, advertising, social-media or
            tracking code, and your browser makes no request to anyone else while you read it.
          </p>
        </LegalSection>
        <LegalSection id="use" title="Why We Use It">
          <p>
            To answer your inquiry, and to keep the form free of automated spam: we hold messages
            that look automated for a person to review, and our spam filter learns from the messages
            we mark as spam or genuine. The filter keeps no copy of your words; what it learned from
            your message goes when your message does.
          </p>
        </LegalSection>
        {site.response.publicFigure.show && (
          <LegalSection id="how-we-count-replies" title="How We Count Our Replies">
            <p>
              Our contact page says how often we kept our promise to reply within{" "}
              {site.response.promiseBusinessHours} business hours. The figure is counted from totals
              alone and names no one: of the messages of the last {site.response.publicFigure.days}{" "}
              days, leaving out those we marked as spam and those deleted, it counts the ones we
              answered (someone on our team took it on, or confirmed a consultation you booked) and
              the ones whose time ran out unanswered; a message still within its time waits for the
              next figure. Business hours are our office hours, on our office&rsquo;s clock, without
              the holidays we close. The share is rounded down and the time up; with fewer than{" "}
              {site.response.publicFigure.floor} messages we show no figure. It is worked out again
              each day.
            </p>
          </LegalSection>
        )}
        <LegalSection id="processors" title="Who Helps Us Handle It">
          <p>
            Your message reaches our team through these service providers, who handle it on our
            behalf and for no purpose of their own:
          </p>
          <ul className="list-disc space-y-1 pl-6">{processors.map(provider)}</ul>
          <p>The website itself runs on these, who also act only on our behalf:</p>
          <ul className="list-disc space-y-1 pl-6">
            {[...privacy.infrastructure, privacy.calendar].map(provider)}
          </ul>
          <p>
            We give your information to no one else, unless the law requires us to (a court order,
            for example). We do not sell it, share it for advertising, or use it for anything but
            answering you and keeping spam out.
          </p>
        </LegalSection>
        <LegalSection id="retention" title="How Long We Keep It">
          <p>
            No longer than {period}. Our server deletes each message by itself when that period
            ends, with every copy it made: the delivery records, the email copies it keeps, and the
            reports that named you. Our backups hold it at most {privacy.backupDays} days longer,
            and so do the copies we make of our records (exports, restored backups): our server
            deletes those by itself too. We delete the copies in our inbox, team chat and CRM on the
            same schedule.
          </p>
          <p>
            A consultation we confirm is an event in our calendar and an invitation in yours, with
            your name, email address, the service you asked about and the time
            {BY_PHONE ? ", and in ours the number we call" : ""}. We delete the event from our
            calendar within {privacy.calendarDays} days after the call. The invitation in your
            calendar is yours to keep or delete. When your message is deleted, at your request or at
            the end of the period above, a consultation still ahead is cancelled: a cancellation
            goes to our calendar and to yours, and takes the event out of both. The event of a
            consultation already held we delete from our calendar with the rest of your data.
          </p>
        </LegalSection>
        <LegalSection id="security" title="How We Protect It">
          <p>
            This website is served over HTTPS only, so what you send is encrypted on its way to us.
            Your message is kept on our server and in our backup storage, which only the people who
            answer inquiries and run the website can reach, and is passed only to the providers
            named above. No website can promise perfect security; if something went wrong that
            affected your information, we would tell you without undue delay.
          </p>
        </LegalSection>
        <LegalSection id="choices" title="Seeing, Correcting or Deleting Your Information">
          <p>
            Write to {mail} or call{" "}
            <a href={`tel:${site.phone.e164}`} className={textLink}>
              {site.phone.display}
            </a>
            , and tell us the email address you used. Within {privacy.answerDays} days we send you
            everything we hold about you, correct it, or delete all of it, as you ask.
          </p>
          <p>
            To make sure a request is yours, we answer it only at the email address it names: we
            write to that address, and send, change or delete anything only once you confirm from
            it. A request by phone is confirmed the same way. You may ask on behalf of someone else
            with their written permission, and we confirm with them too. We will never treat you
            differently for asking.
          </p>
          <p>
            California&rsquo;s Online Privacy Protection Act (CalOPPA) applies to this website, as
            to any commercial website that collects personal information from California residents:
            this notice is what it asks for. Broader state laws, such as the California Consumer
            Privacy Act, apply only to businesses above their size or data thresholds; we offer the
            choices above to everyone, wherever you live, by our own choice.
          </p>
        </LegalSection>
        <LegalSection id="signals" title="Do Not Track and Global Privacy Control">
          <p>
            We do not track visitors over time or across websites, set no cookies, and sell or share
            nothing, so a Do Not Track or Global Privacy Control signal from your browser asks for
            what we already do: we honour both by default, with nothing to switch on. Our{" "}
            <a href={link.gpc} className={textLink}>
              GPC statement
            </a>{" "}
            says so to your browser.
          </p>
        </LegalSection>
        <LegalSection id="children" title="Children">
          <p>
            This website is meant for businesses. We do not knowingly collect information from
            children under 13.
          </p>
        </LegalSection>
        <LegalSection id="changes" title="Changes to This Policy">
          <p>
            When we change this policy, we publish the new version on this page with a new effective
            date, and say at its top what changed. We will not use what you already sent us in a new
            way without asking you first.
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
