/**
 * The contact form's service choices: company facts (app/config/site.ts lists them as
 * `serviceOptions`), kept in their own module so the contact page's script ships these five strings
 * and not the whole company object.
 */
export const serviceOptions = [
  "IT Infrastructure Solutions",
  "IT Consulting",
  "AI Consulting",
  "AI Software Development",
  "General Inquiry",
] as const;

export type ServiceOption = (typeof serviceOptions)[number];

/** The contact page with `service` preselected. */
export const contactHrefFor = (service: ServiceOption): string =>
  `/contact?${new URLSearchParams({ service })}`;
