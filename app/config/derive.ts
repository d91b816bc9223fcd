import type { Site, SiteFacts } from "#app/config/site.schema.ts";

/**
 * The facts made from other facts (site.ts), so each is typed once: a phone number's dialling form
 * from the way people read it, and the office hours' wording from the hours themselves. Never
 * throws: a mistyped value is named by the content check (site.schema.ts), not by a crash.
 */

/** "(307) 555-0142" → its E.164 form "+13075550142", which tel: links and structured data dial. */
export function usPhone(display: string) {
  return { display, e164: `+1${display.replace(/\D/g, "")}` };
}

const WEEK = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;
export type Day = (typeof WEEK)[number];

/** "09:00" → "9:00 AM" (the way the pages write a time). */
export function clockText(hhmm: string): string {
  const [h = 0, m = 0] = hhmm.split(":").map(Number);
  return `${((h + 11) % 12) + 1}:${String(m).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
}

/** One row of office hours: its days, and when it opens and closes (none: closed). */
export function hours(days: Day[], opens?: string, closes?: string) {
  const first = days[0] ?? "";
  const last = days.at(-1) ?? "";
  return {
    label: days.length > 1 ? `${first} – ${last}` : first,
    days,
    opens,
    closes,
    text: opens && closes ? `${clockText(opens)} – ${clockText(closes)}` : "Closed",
  };
}

/** "Monday to Friday" for days in a row of the week, "Monday, Wednesday and Friday" otherwise. */
function daysText(days: readonly Day[]): string {
  const at = days.map((d) => WEEK.indexOf(d));
  const inARow = at.every((n, i) => i === 0 || n === (at[i - 1] ?? 0) + 1);
  return days.length > 2 && inARow
    ? `${days[0]} to ${days.at(-1)}`
    : new Intl.ListFormat("en-US").format(days);
}

/** The zone as people say it all year: "Mountain Time" (not MST or MDT, each right half the year). */
export function zoneText(timeZone: string): string {
  try {
    return (
      new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longGeneric" })
        .formatToParts(0)
        .find((p) => p.type === "timeZoneName")?.value ?? timeZone
    );
  } catch {
    return timeZone;
  }
}

/**
 * The hours as one line, made from the office hours: "Monday to Friday 9:00 AM to 6:00 PM and
 * Saturday 10:00 AM to 2:00 PM (Mountain Time)". Shown under the phone and in the imprint unless
 * the company writes its own line there.
 */
export function hourLine(facts: Pick<SiteFacts, "officeHours" | "timeZone">): string {
  const open = facts.officeHours.flatMap((h) =>
    h.opens && h.closes
      ? [`${daysText(h.days)} ${clockText(h.opens)} to ${clockText(h.closes)}`]
      : [],
  );
  return `${new Intl.ListFormat("en-US").format(open)} (${zoneText(facts.timeZone)})`;
}

/** The facts as site.ts types them, with each hour line left out made from the office hours. */
export function withHourLines(facts: SiteFacts): Site {
  const line = hourLine(facts);
  return {
    ...facts,
    phone: { ...facts.phone, hours: facts.phone.hours ?? line },
    imprint: { ...facts.imprint, supportHours: facts.imprint.supportHours ?? line },
  };
}

export { WEEK };
