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

export { WEEK };
