import type { Site } from "../app/config/site.ts";

/**
 * The company's facts that ship as placeholders (app/config/site.ts) until the company fills them
 * in: the email address, phone number and security contact the privacy notice and every page give
 * visitors for their requests. The production server names each one left, loudly, at start.
 */

/** Domains reserved for examples (RFC 2606, RFC 6761). */
const EXAMPLE_DOMAIN = /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$/i;
/** The 555-0100 to 555-0199 numbers, reserved for fiction. */
const FICTIONAL_PHONE = /\b555-01\d\d$/;

/** Each contact detail that is still a placeholder, as `field value`. */
export function placeholderContacts(site: Pick<Site, "email" | "securityContact" | "phone">): string[] {
  const found: string[] = [];
  for (const [field, address] of [
    ["email", site.email],
    ["securityContact", site.securityContact],
  ] as const) {
    if (EXAMPLE_DOMAIN.test(address.split("@").pop() ?? "")) found.push(`${field} ${address}`);
  }
  if (FICTIONAL_PHONE.test(site.phone.display)) found.push(`phone ${site.phone.display}`);
  return found;
}

/** The start's warning, when any is left. */
export const PLACEHOLDER_WARNING =
  "PLACEHOLDER CONTACT DETAILS: the privacy notice and every page tell visitors to reach the company, and to ask to see, correct or delete their data, through these placeholders; put the company's own in app/config/site.ts and rebuild";
