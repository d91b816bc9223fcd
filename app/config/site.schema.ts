import { z } from "zod";

/**
 * The shape of the company facts in site.ts. Checked at build (entry.server imports checkSite) and in
 * the unit tests, so zod never reaches the browser bundle.
 */

const dayOfWeek = z.enum(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "use 24-hour HH:MM");

const siteSchema = z.object({
  name: z.string().min(2),
  legalName: z.string().regex(/ LLC$/, "a Wyoming limited liability company's name ends in LLC"),
  description: z.string().min(50).max(160),
  blurb: z.string().min(20),
  url: z.url().refine((u) => !u.endsWith("/"), "no trailing slash"),
  email: z.email(),
  phone: z.object({
    // A 555-01xx number (reserved for fiction) as shipped: the production server warns until it is
    // the company's own (server/facts.ts).
    display: z.string().regex(/^\(\d{3}\) \d{3}-\d{4}$/, "a US number written (307) 555-0142"),
    e164: z.string().regex(/^\+1\d{10}$/),
    hours: z.string(),
  }),
  address: z.object({
    street: z.string(),
    city: z.string(),
    region: z.literal("WY"),
    regionName: z.literal("Wyoming"),
    postalCode: z.string().regex(/^82\d{3}$/, "a Wyoming ZIP code starts with 82"),
    country: z.literal("US"),
    /** Where the office is, for maps and search (schema.org GeoCoordinates); inside Wyoming. */
    geo: z.object({
      latitude: z.number().min(40.99).max(45.01),
      longitude: z.number().min(-111.06).max(-104.05),
    }),
  }),
  officeHours: z
    .array(
      z.object({
        label: z.string(),
        days: z.array(dayOfWeek).min(1),
        opens: clock.optional(),
        closes: clock.optional(),
        text: z.string(),
      }),
    )
    .min(1),
  timeZone: z.string().refine((zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "an IANA time zone such as America/Denver"),
  holidays: z.array(z.strictObject({ date: z.iso.date("a date like 2026-12-25"), name: z.string().min(3) })),
  response: z.object({
    infoLine: z.string(),
    tile: z.string(),
    dialogTitle: z.string(),
    dialogMessage: z.string(),
    failure: z.string(),
    promiseBusinessHours: z.number().positive().max(72),
  }),
  consultationMinutes: z.number().int().positive(),
  emergencySupport: z.string(),
  imprint: z.object({
    supportHours: z.string(),
    lastUpdated: z.string(),
    registrationNumber: z.string(),
    registeredIn: z.string(),
    managementRoles: z.array(z.string()).length(3),
    californiaLicensing: z.string(),
    liabilityCoverageUsd: z.number().int().positive(),
  }),
  privacy: z.strictObject({
    effectiveDate: z.string().regex(/^[A-Z][a-z]+ \d{1,2}, \d{4}$/, "a date like November 24, 2026"),
    retentionDays: z.number().int().min(1),
    backupDays: z.number().int().min(1).max(35),
    logDays: z.number().int().min(1).max(90),
    addressKey: z.string().min(40),
    answerDays: z.number().int().min(1).max(45),
    lastChange: z.string().min(10),
    infrastructure: z
      .array(z.strictObject({ category: z.string().min(3), name: z.string().min(2), gets: z.string().min(3) }))
      .min(1),
    /** Keyed by delivery channel name. */
    processors: z.record(
      z.string(),
      z.strictObject({
        category: z.string().min(3),
        name: z.string().min(2),
        gets: z.string().min(3),
        /** The hosts it takes leads at (a relay, a webhook): a name, or `*.domain` for any under it. The server refuses any other. */
        hosts: z.array(z.string().regex(/^(\*\.)?[a-z0-9.-]+$/, "a host name, or *.domain")).min(1),
      }),
    ),
  }),
  copyrightYear: z.number().int().min(2000),
  themeColor: z.object({ light: z.string().regex(/^#[0-9a-f]{6}$/), dark: z.string().regex(/^#[0-9a-f]{6}$/) }),
  foundingDate: z.string().regex(/^\d{4}(-\d{2}-\d{2})?$/),
  securityContact: z.email(),
  serviceOptions: z.array(z.string()).length(5).readonly(),
  blog: z.strictObject({
    /** What the blog is about: its page's description and its feed's (no closing full stop). */
    about: z.string().min(40).max(140).regex(/[^.]$/, "no closing full stop"),
    /** The job title in every article's author box and its structured data (spec §5). */
    authorTitle: z.string().min(3),
  }),
  stats: z.array(z.object({ value: z.string(), label: z.string() })).length(4),
});

export type Site = z.infer<typeof siteSchema>;

export function parseSite(input: unknown): Site {
  const result = siteSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`app/config/site.ts is invalid:\n  ${problems.join("\n  ")}`);
  }
  return result.data;
}
