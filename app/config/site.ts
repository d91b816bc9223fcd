// With its extension: Node loads this file directly (the server, the scripts).
import { hours, usPhone, withHourLines } from "#app/config/derive.ts";
import { serviceOptions } from "#app/config/service-options.ts";
import type { Site } from "#app/config/site.schema.ts";

/**
 * Company facts: the only place a name, a number, an address or an hour is typed.
 * The footer, the contact page, the imprint, emails and structured data all read this object.
 * Its shape is checked with zod (site.schema.ts) before every build, start and preview
 * (scripts/content-check.ts): a mistake stops them with the line, the field and what is expected.
 */

export type { Site };

export const site: Site = withHourLines({
  name: "Teton Digital",
  legalName: "Teton Digital Systems LLC",
  description:
    "IT infrastructure, IT consulting, AI consulting and AI software development for US businesses. Based in Cheyenne, Wyoming.",
  blurb:
    "Teton Digital builds and runs the infrastructure, software and AI systems that growing US businesses depend on — planned with care, delivered on time and supported around the clock.",
  // SITE_URL at build time (vite.config.ts defines it): prerendered pages carry it in canonical
  // links. Code that runs outside Vite reads SITE_URL from its configuration (server/config.ts).
  url: typeof __SITE_URL__ === "string" ? __SITE_URL__ : "https://www.example.com",
  email: "hello@example.com",
  // Typed once, as people read it: the tel: links and structured data dial the form made from it.
  // `hours`, the line under it, is the spec's own; left out, it is made from officeHours below.
  phone: { ...usPhone("(307) 555-0142"), hours: "Monday to Friday 9:00 AM to 5:00 PM MDT" },
  address: {
    street: "1621 Central Avenue, Suite 400",
    city: "Cheyenne",
    region: "WY",
    regionName: "Wyoming",
    postalCode: "82001",
    country: "US",
    geo: { latitude: 41.1357, longitude: -104.8166 },
  },
  // The days, and when the office opens and closes (24-hour HH:MM; none: closed). What the pages say
  // ("Monday – Friday", "9:00 AM – 6:00 PM") is made from these.
  officeHours: [
    hours(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], "09:00", "18:00"),
    hours(["Saturday"], "10:00", "14:00"),
    hours(["Sunday"]),
  ],
  /** Where the office hours are kept (an IANA zone): the business hours the reply promise counts in. */
  timeZone: "America/Denver",
  /**
   * Days the office is closed although the hours above say open: no business hours count on them
   * (the reply promise, server/contact/review/promise.ts). Add next year's before it starts.
   */
  holidays: [
    { date: "2026-01-01", name: "New Year's Day" },
    { date: "2026-01-19", name: "Martin Luther King Jr. Day" },
    { date: "2026-05-25", name: "Memorial Day" },
    { date: "2026-07-03", name: "Independence Day (observed)" },
    { date: "2026-09-07", name: "Labor Day" },
    { date: "2026-11-26", name: "Thanksgiving Day" },
    { date: "2026-11-27", name: "Day after Thanksgiving" },
    { date: "2026-12-24", name: "Christmas Eve" },
    { date: "2026-12-25", name: "Christmas Day" },
    { date: "2027-01-01", name: "New Year's Day" },
    { date: "2027-01-18", name: "Martin Luther King Jr. Day" },
    { date: "2027-05-31", name: "Memorial Day" },
    { date: "2027-07-05", name: "Independence Day (observed)" },
    { date: "2027-09-06", name: "Labor Day" },
    { date: "2027-11-25", name: "Thanksgiving Day" },
    { date: "2027-11-26", name: "Day after Thanksgiving" },
    { date: "2027-12-24", name: "Christmas Day (observed)" },
  ],
  response: {
    infoLine: "We respond to all inquiries within 4 hours during business days.",
    tile: "We reply to every inquiry within 4 hours on business days.",
    dialogTitle: "Message Sent Successfully!",
    dialogMessage:
      "Thank you for your inquiry! We'll get back to you within 24 hours during business days.",
    failure: "There was an error sending your message. Please try again or contact us directly.",
    /**
     * The promise the server keeps (ADR 0020): a lead nobody took ("I'm on it") within this many
     * business hours (officeHours, timeZone, holidays) goes again to its route's people and the
     * escalation address. The stricter of the two promises above, the one a visitor reads first.
     */
    promiseBusinessHours: 4,
    /**
     * A lead nobody took when this share of the promise has passed (in business time, while the
     * office is open) is "at risk": its route gets one short warning, by email and Slack, with the
     * time left. Three quarters leaves an hour of the four: time to answer, not only to apologise.
     */
    atRiskShare: 0.75,
    /**
     * The promise's public figure beside it (/contact, ADR 0032): of the genuine inquiries of the
     * last `days` days, the share answered ("I'm on it" or a confirmed consultation) within the
     * promise and the median business time to the first answer, refreshed daily by the server. Shown
     * once `floor` inquiries have a known answer (fewer would swing on one lead); below it, the
     * promise alone. `show: false` takes it off the pages and changes nothing else.
     */
    publicFigure: { show: true, days: 90, floor: 30 },
  },
  consultationMinutes: 30,
  /**
   * The free consultation a visitor books after sending a message (server/booking/, docs/booking.md):
   * slots of `consultationMinutes` within the office hours above, on the next `businessDaysAhead` days
   * the office is open, never within the next `noticeBusinessHours` business hours. `place`: where it
   * happens, a video-call link (https://…) or "phone" (we call the visitor at the number they give).
   * A pick holds its time from other visitors for `holdBusinessHours` (never past the time itself),
   * four times the reply promise: someone confirms or declines well before. It holds only while the
   * picking client's address has fewer than `holdsPerAddress` times held, its network fewer than
   * `holdsPerNetwork` and the visitor's email domain fewer than `holdsPerDomain`: with two
   * consultations a day, answered within the reply promise, about two requests wait at any moment,
   * rarely two from one office, while a bot sending inquiries within the form's limits holds two
   * times, not twenty. A pick over them still reaches the company, holding nothing. The domains in
   * `sharedMailDomains` (webmail anyone can sign up for) are nobody's office: they cap no one, or a
   * bot with three Gmail addresses would keep every Gmail visitor's pick from holding.
   */
  booking: {
    businessDaysAhead: 10,
    noticeBusinessHours: 2,
    place: "phone",
    holdBusinessHours: 16,
    holdsPerAddress: 2,
    holdsPerNetwork: 3,
    holdsPerDomain: 3,
    sharedMailDomains: [
      "gmail.com",
      "googlemail.com",
      "outlook.com",
      "hotmail.com",
      "live.com",
      "msn.com",
      "yahoo.com",
      "icloud.com",
      "me.com",
      "aol.com",
      "proton.me",
      "protonmail.com",
      "gmx.com",
    ],
  },
  emergencySupport: "Emergency support is available 24/7 for enterprise clients.",
  imprint: {
    // The spec's own line; left out, it is made from officeHours as the phone's is.
    supportHours: "Monday to Friday, 9:00 AM to 5:00 PM EST",
    lastUpdated: "January 1, 2025",
    registrationNumber: "2021-001048573",
    registeredIn: "Wyoming Secretary of State",
    managementRoles: [
      "Chief Executive Officer",
      "Chief Technology Officer",
      "Chief Operating Officer",
    ],
    californiaLicensing:
      "For clients in California, services are provided in accordance with the California Business and Professions Code. Teton Digital Systems LLC is registered with the California Secretary of State as a foreign limited liability company; no service we offer requires a California state contractor license.",
    liabilityCoverageUsd: 5_000_000,
  },
  /**
   * The privacy notice (/privacy): what it promises, in one place. The server deletes what is older
   * than `retentionDays` by itself, and refuses to start when it would send leads to a processor this
   * list does not name (keyed by delivery channel: server/contact/delivery/channels.ts).
   */
  privacy: {
    effectiveDate: "November 30, 2026",
    /** What changed on the effective date, said at the top of the notice (it promises to). */
    lastChange:
      "We now say what our calendar and yours hold once we confirm a consultation, and for how long; that deleting your data cancels a consultation still ahead in both; and that we keep the phone number you give us for a consultation by phone with your booking.",
    retentionDays: 365,
    /**
     * How much longer a backup may hold what was erased. Every copy keeps it: Litestream's replica
     * (`retention` in deploy/litestream.yml, at most half of it: tests/unit/site.test.ts), and the
     * backups, exports and restore leftovers in DATA_DIR, which the server erases when they are
     * older (server/contact/erasure.ts); docs/deployment.md's recipes write theirs there.
     */
    backupDays: 2,
    /** How long the request logs are kept: the proxy's (no address, no query: deploy/nginx.conf) and the server's (docs/operations.md). */
    logDays: 14,
    /** What is done with a visitor's network address (the monthly key: server/contact/intake/address-hash.ts). */
    addressKey:
      "Your network address is never stored: we keep only a keyed hash of it, used to limit repeated submissions. The key is random, made anew each month, and deleted once the month is over, so once it is gone nobody — including us — can tell which address made a hash.",
    /** How long the company takes at most to answer a request to see or delete data. */
    answerDays: 30,
    /**
     * Who else handles it because of how the website runs (docs/deployment.md sets each up): the
     * host, the backup storage (Litestream's bucket), the CDN. They carry or store it, never read it for themselves.
     */
    infrastructure: [
      {
        category: "Our hosting provider",
        name: "Amazon Web Services (Amazon Web Services, Inc.)",
        gets: "runs our server and stores its database, so every page you load and every message you send passes through it",
      },
      {
        category: "Our backup storage",
        name: "Amazon S3 (Amazon Web Services, Inc.)",
        gets: "a continuous copy of our database, kept only as long as we say below",
      },
      {
        category: "Our content delivery network",
        name: "Amazon CloudFront (Amazon Web Services, Inc.)",
        gets: "carries our pages to your browser, so it sees your network address in passing, as any network does",
      },
    ],
    /**
     * Where the server reads the company's busy times for the booking page (BOOKING_FEEDS must use
     * these hosts), and where a confirmed consultation's invitation goes. Its event is deleted by
     * hand at most `calendarDays` after the call (docs/operations.md, "The calendar"): a month's
     * routine deletes those over a month old, so none stays past two months.
     */
    calendar: {
      category: "Our calendar",
      name: "Microsoft 365 (Microsoft Corporation)",
      gets: "once we confirm a consultation you ask for, its event: your name, email address and the service you asked about, the time, and for a call by phone the number we call; before that, nothing of yours, as our server reads only our own busy times from it to offer you open times",
      hosts: ["outlook.office365.com", "outlook.office.com"],
    },
    calendarDays: 60,
    processors: {
      email: {
        category: "Our email provider",
        name: "Microsoft 365 (Microsoft Corporation)",
        gets: "the message you send, as an email to our inbox",
        hosts: ["smtp.office365.com", "*.mail.protection.outlook.com"],
      },
      slack: {
        category: "Our team chat",
        name: "Slack (Slack Technologies, LLC)",
        gets: "the message you send, posted to a private channel of our team",
        hosts: ["hooks.slack.com"],
      },
      webhook: {
        category: "Our customer relationship management (CRM) system",
        name: "HubSpot (HubSpot, Inc.)",
        gets: "the message you send, recorded as a new contact and inquiry",
        hosts: ["api.hubapi.com", "*.hubapi.com", "api.hsforms.com"],
      },
    },
  },
  copyrightYear: 2025,
  themeColor: { light: "#1d4ed8", dark: "#020617" },
  foundingDate: "2021",
  securityContact: "security@example.com",
  blog: {
    about: "Insights on IT infrastructure, AI adoption and compliance for US businesses",
    authorTitle: "Senior Technology Consultant",
  },
  serviceOptions,
  stats: [
    { value: "50+", label: "Projects Delivered" },
    { value: "99.9%", label: "Uptime Guarantee" },
    { value: "24/7", label: "Support Available" },
    { value: "5+", label: "Enterprise Clients" },
  ],
});

export const usd = (n: number) => `$${n.toLocaleString("en-US")}`;
