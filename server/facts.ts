import type { Site } from "../app/config/site.ts";

/**
 * The company's facts that ship as placeholders (app/config/site.ts) until the company fills them
 * in: the email address, phone number and security contact the privacy notice and every page give
 * visitors for their requests. The production server names each one left, loudly, at start. The
 * domains are those reserved for examples (RFC 2606, RFC 6761), the numbers 555-0100 to 555-0199.
 */

const EXAMPLE_DOMAIN = /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$/i;

export const placeholderContacts = (site: Pick<Site, "email" | "securityContact" | "phone">) => [
  ...(["email", "securityContact"] as const)
    .filter((field) => EXAMPLE_DOMAIN.test(site[field].split("@").pop() ?? ""))
    .map((field) => `${field} ${site[field]}`),
  ...(/\b555-01\d\d$/.test(site.phone.display) ? [`phone ${site.phone.display}`] : []),
];

export const PLACEHOLDER_WARNING =
  "PLACEHOLDER CONTACT DETAILS: the privacy notice and every page tell visitors to reach the company, and to ask to see, correct or delete their data, through these placeholders; put the company's own in app/config/site.ts and rebuild";
