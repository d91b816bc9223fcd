import { z } from "zod";
import { usPhone, WEEK } from "#app/config/derive.ts";

/**
 * The shape of the company facts in site.ts, and the words every content mistake is said in. Checked
 * before every build (scripts/content-check.ts) and in the unit tests, so zod never reaches the browser bundle.
 */

const dayOfWeek = z.enum(WEEK);
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "use 24-hour HH:MM");

const processor = z.strictObject({
  category: z.string().min(3),
  name: z.string().min(2),
  gets: z.string().min(3),
  /** The hosts it takes leads at (a relay, a webhook), or serves the calendar at: a name, or `*.domain` for any under it. The server refuses any other. */
  hosts: z.array(z.string().regex(/^(\*\.)?[a-z0-9.-]+$/, "a host name, or *.domain")).min(1),
});

export const siteSchema = z.object({
  name: z.string().min(2),
  legalName: z.string().regex(/ LLC$/, "a Wyoming limited liability company's name ends in LLC"),
  description: z.string().min(50).max(160),
  blurb: z.string().min(20),
  url: z.url().refine((u) => !u.endsWith("/"), "no trailing slash"),
  email: z.email(),
  phone: z
    .object({
      // A 555-01xx number (reserved for fiction) as shipped: the production server warns until it is
      // the company's own (server/facts.ts).
      display: z.string().regex(/^\(\d{3}\) \d{3}-\d{4}$/, "a US number written (307) 555-0142"),
      e164: z.string(),
      /** The line under the phone; left out, it is made from officeHours (derive.ts `hourLine`). */
      hours: z.string().min(1).optional(),
    })
    .refine((p) => p.e164 === usPhone(p.display).e164, {
      path: ["e164"],
      message:
        'the number to dial must be the number shown: write the phone once, as usPhone("(307) 555-0142")',
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
  holidays: z.array(
    z.strictObject({ date: z.iso.date("a date like 2026-12-25"), name: z.string().min(3) }),
  ),
  response: z.object({
    infoLine: z.string(),
    tile: z.string(),
    dialogTitle: z.string(),
    dialogMessage: z.string(),
    failure: z.string(),
    promiseBusinessHours: z.number().positive().max(72),
    atRiskShare: z.number().gt(0).lt(1),
    publicFigure: z.strictObject({
      show: z.boolean(),
      days: z.number().int().min(7).max(365),
      floor: z.number().int().min(10),
    }),
  }),
  consultationMinutes: z.number().int().positive(),
  booking: z.strictObject({
    businessDaysAhead: z.number().int().min(1).max(30),
    noticeBusinessHours: z.number().min(0).max(24),
    place: z.union([
      z.literal("phone"),
      z.url({ protocol: /^https$/, error: 'a video-call link (https://…) or "phone"' }),
    ]),
    holdBusinessHours: z.number().positive().max(72),
    holdsPerAddress: z.number().int().min(1),
    holdsPerNetwork: z.number().int().min(1),
    holdsPerDomain: z.number().int().min(1),
    sharedMailDomains: z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]+$/, "a lowercase domain")),
  }),
  emergencySupport: z.string(),
  imprint: z.object({
    /** The imprint's business hours line; left out, it is made from officeHours like phone.hours. */
    supportHours: z.string().min(1).optional(),
    lastUpdated: z.string(),
    registrationNumber: z.string(),
    registeredIn: z.string(),
    managementRoles: z.array(z.string()).length(3),
    californiaLicensing: z.string(),
    liabilityCoverageUsd: z.number().int().positive(),
  }),
  privacy: z.strictObject({
    effectiveDate: z
      .string()
      .regex(/^[A-Z][a-z]+ \d{1,2}, \d{4}$/, "a date like November 24, 2026"),
    retentionDays: z.number().int().min(1),
    backupDays: z.number().int().min(1).max(35),
    logDays: z.number().int().min(1).max(90),
    addressKey: z.string().min(40),
    answerDays: z.number().int().min(1).max(45),
    lastChange: z.string().min(10),
    infrastructure: z.array(processor.omit({ hosts: true })).min(1),
    calendar: processor,
    /** How long after the call a consultation's event stays in the company's calendar at most. */
    calendarDays: z.number().int().min(1).max(90),
    /** Keyed by delivery channel name. */
    processors: z.record(z.string(), processor),
  }),
  copyrightYear: z.number().int().min(2000),
  themeColor: z.object({
    light: z.string().regex(/^#[0-9a-f]{6}$/),
    dark: z.string().regex(/^#[0-9a-f]{6}$/),
  }),
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

/** The facts as typed in site.ts: the hour lines may be left out. */
export type SiteFacts = z.infer<typeof siteSchema>;
/** The facts the site reads: every hour line there, written or made (derive.ts `withHourLines`). */
export type Site = SiteFacts & {
  phone: { hours: string };
  imprint: { supportHours: string };
};

/** Why a date written year-month-day does not exist ("November 2026 has 30 days"), if it does not. */
export function noSuchDate(text: unknown): string | undefined {
  const m = typeof text === "string" ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(text) : null;
  if (!m) return undefined;
  const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12) return `there is no month ${m[2]} (months go from 01 to 12)`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day >= 1 && day <= days) return undefined;
  const name = new Date(Date.UTC(year, month - 1)).toLocaleString("en-US", {
    month: "long",
    timeZone: "UTC",
  });
  return `${name} ${year} has ${days} days`;
}

/** Zod's own words for the common mistakes, said for people who are not developers. */
export function plainError(issue: z.core.$ZodRawIssue): string | undefined {
  const input = issue.input;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return "missing";
      return `expected ${issue.expected === "string" ? "text in quotes" : issue.expected === "array" ? "a list in [ ]" : `a ${issue.expected}`}`;
    case "too_small":
      return issue.origin === "string"
        ? `too short: at least ${issue.minimum} characters`
        : issue.origin === "array"
          ? `${issue.exact ? "exactly" : "at least"} ${issue.minimum} entries`
          : `at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "string"
        ? `too long: at most ${issue.maximum} characters`
        : issue.origin === "array"
          ? `${issue.exact ? "exactly" : "at most"} ${issue.maximum} entries`
          : `at most ${issue.maximum}`;
    case "invalid_format":
      return issue.format === "email"
        ? "expected an email address, like hello@company.com"
        : issue.format === "url"
          ? "expected a web address, like https://www.company.com"
          : issue.format === "date"
            ? "expected a real date written year-month-day, like 2026-12-25"
            : undefined;
    case "invalid_value":
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "unrecognized_keys":
      return `no such field: ${issue.keys.join(", ")} (check the spelling)`;
    default:
      return undefined;
  }
}

/** The line of `source` where a mistake is: the line holding the value, or the only line naming its field. */
export function lineOf(
  source: string,
  key: PropertyKey | undefined,
  value: unknown,
): number | undefined {
  const lines = source.split("\n");
  if (typeof value === "string" && value !== "") {
    const at = lines.findIndex((l) => l.includes(JSON.stringify(value)));
    if (at >= 0) return at + 1;
  }
  if (typeof key !== "string" || value === undefined) return undefined;
  const named = lines.flatMap((l, i) => (l.trimStart().startsWith(`${key}:`) ? [i + 1] : []));
  return named.length === 1 ? named[0] : undefined;
}

const valueAt = (root: unknown, path: PropertyKey[]) =>
  path.reduce<unknown>(
    (v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    root,
  );

/** A field's path as people read it: officeHours → entry 2 → opens (`top` names a top-level entry). */
export const fieldName = (path: PropertyKey[], top?: (index: number) => string | undefined) =>
  path
    .map((k, i) =>
      typeof k !== "number" ? String(k) : ((i === 0 ? top?.(k) : undefined) ?? `entry ${k + 1}`),
    )
    .join(" → ") || "(the whole object)";

/** Every mistake in `input` against `schema`, one line each: file, line, field, what was found and expected. */
export function problemsOf(
  schema: z.ZodType,
  input: unknown,
  file: string,
  source = "",
  top?: (index: number) => string | undefined,
): string[] {
  const result = schema.safeParse(input, { error: plainError });
  if (result.success) return [];
  return result.error.issues.map((i) => {
    const value = valueAt(input, i.path);
    const line =
      i.code === "unrecognized_keys"
        ? lineOf(source, i.keys[0], true)
        : lineOf(source, i.path.at(-1), value);
    const found =
      value === undefined || typeof value === "object" ? "" : ` (found ${JSON.stringify(value)})`;
    const missing =
      i.code === "invalid_format" && i.format === "date" ? noSuchDate(value) : undefined;
    const message = missing ? `${missing}${found}; expected ${i.message}` : `${i.message}${found}`;
    return `${file}${line ? `, line ${line}` : ""}, ${fieldName(i.path, top)}: ${message}`;
  });
}

export function parseSite(input: unknown, source = ""): SiteFacts {
  const problems = problemsOf(siteSchema, input, "app/config/site.ts", source);
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return input as SiteFacts;
}
