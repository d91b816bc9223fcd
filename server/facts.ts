import type { Site } from "../app/config/site.ts";
import { isReservedHost } from "./guards.ts";

/**
 * The contact details that ship as placeholders (app/config/site.ts), named loudly at start until the
 * company fills them in: domains reserved for examples (RFC 2606, RFC 6761), numbers 555-0100 to 0199.
 */

export const placeholderContacts = (site: Pick<Site, "email" | "securityContact" | "phone">) => [
  ...(["email", "securityContact"] as const)
    .filter((field) => isReservedHost(site[field].split("@").pop() ?? ""))
    .map((field) => `${field} ${site[field]}`),
  ...(/\b555-01\d\d$/.test(site.phone.display) ? [`phone ${site.phone.display}`] : []),
];

export const PLACEHOLDER_WARNING =
  "PLACEHOLDER CONTACT DETAILS: the privacy notice and every page tell visitors to reach the company, and to ask to see, correct or delete their data, through these placeholders; put the company's own in app/config/site.ts and rebuild";
