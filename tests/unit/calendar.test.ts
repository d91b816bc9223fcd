import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { busyOf, MAX_OCCURRENCES } from "../../server/booking/calendar.ts";

/**
 * Real calendars read into busy times by the function the feed's worker runs (server/booking/calendar.ts):
 * the fixtures are shaped as Microsoft 365, Google Calendar, iCloud and Nextcloud publish them.
 * The office is in Denver; "now" is Monday, December 21, 2026, 9:05 AM MST (UTC−7).
 */

const OFFICE = "America/Denver";
const DAY = 86_400_000;
/** A time on the office's clock this winter: December is 2026's, January and February 2027's. */
const mst = (month: number, day: number, hh = 0, mm = 0) =>
  Date.UTC(month === 12 ? 2026 : 2027, month - 1, day, hh + 7, mm);
const NOW = mst(12, 21, 9, 5);
const [FROM, TO] = [NOW - DAY, NOW + 45 * DAY];
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/calendars/${name}`, import.meta.url), "utf8");
const read = (text: string) => busyOf(text, FROM, TO, OFFICE);
const sorted = (busy: Array<[number, number]>) =>
  [...busy].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
const calendar = (events: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${events}END:VCALENDAR\r\n`;

/** Every day from Dec 20 through Feb 3 (the window read) on which `keep` holds, as [start, end] at hh:mm for `minutes`. */
function daily(
  hh: number,
  mm: number,
  minutes: number,
  keep: (date: Date) => boolean = () => true,
) {
  const out: Array<[number, number]> = [];
  for (let t = mst(12, 20, hh, mm); t < TO; t += DAY)
    if (t + minutes * 60_000 > FROM && keep(new Date(t - 7 * 3_600_000)))
      out.push([t, t + minutes * 60_000]);
  return out;
}
const weekday = (d: Date) => d.getUTCDay() >= 1 && d.getUTCDay() <= 5;
const on = (d: Date, ...days: Array<[number, number]>) =>
  days.some(([m, day]) => d.getUTCMonth() + 1 === m && d.getUTCDate() === day);

describe("calendars as their services publish them", () => {
  it("Google Calendar: an all-day event on the office's own day, a moved and a cancelled occurrence, EXDATE lines, another zone", () => {
    const { busy, unknownZones } = read(fixture("google.ics"));
    const standup = daily(
      9,
      0,
      15,
      (d) => weekday(d) && !on(d, [12, 28], [12, 29], [12, 31], [1, 4]),
    );
    expect(sorted(busy)).toEqual(
      sorted([
        [mst(12, 22), mst(12, 23)],
        ...standup,
        [mst(12, 28, 11, 30), mst(12, 28, 11, 45)],
        [mst(12, 30, 13), mst(12, 30, 14)],
        [mst(12, 31, 10), mst(12, 31, 11)],
      ]),
    );
    expect(unknownZones).toEqual([]);
  });

  const microsoft = sorted([
    [mst(12, 23, 10), mst(12, 23, 11)],
    [mst(1, 6, 15), mst(1, 6, 16)],
    [mst(1, 20, 10), mst(1, 20, 11)],
    [mst(1, 27, 10), mst(1, 27, 11)],
    [mst(2, 3, 10), mst(2, 3, 11)],
    [mst(1, 2), mst(1, 3)],
    [mst(12, 28, 15), mst(12, 28, 15, 30)],
    [mst(12, 29, 16), mst(12, 29, 16, 30)],
    // Site visits, all day on Fridays; Exchange names the one moved to Monday, Jan 11 by its midnight.
    ...[mst(12, 25), mst(1, 1), mst(1, 15), mst(1, 22), mst(1, 29)].map((d): [number, number] => [
      d,
      d + DAY,
    ]),
    [mst(1, 11), mst(1, 12)],
  ]);

  it("Microsoft 365: Windows zone names, a series set in summer with an EXDATE list and a moved occurrence, a moved all-day one, free time", () => {
    const { busy, unknownZones } = read(fixture("microsoft-365.ics"));
    expect(sorted(busy)).toEqual(microsoft);
    expect(unknownZones).toEqual([]);
  });

  it("Microsoft 365 without its VTIMEZONEs: the Windows names read as the same zones", () => {
    const { busy, unknownZones } = read(fixture("microsoft-365-without-zones.ics"));
    expect(sorted(busy)).toEqual(microsoft);
    expect(unknownZones).toEqual([]);
  });

  it("iCloud: DURATION instead of DTEND, a monthly rule by weekday since 2024, days off as dates", () => {
    const { busy } = read(fixture("icloud.ics"));
    expect(sorted(busy)).toEqual(
      sorted([
        [mst(12, 29, 14), mst(12, 29, 15, 30)],
        [mst(1, 6, 10), mst(1, 6, 11)],
        [mst(2, 3, 10), mst(2, 3, 11)],
        [mst(1, 18), mst(1, 21)],
      ]),
    );
  });

  it("Nextcloud: a daily event since 1970 blocks today, a weekly one with COUNT ends when counted", () => {
    const { busy } = read(fixture("nextcloud.ics"));
    expect(sorted(busy)).toEqual(
      sorted([
        ...daily(12, 0, 60),
        [mst(12, 21, 16), mst(12, 21, 17)],
        [mst(12, 28, 16), mst(12, 28, 17)],
      ]),
    );
  });

  it("times with no zone, or a zone named and not defined: the zone Intl knows, else the office's clock", () => {
    const { busy, unknownZones } = read(fixture("hand-written.ics"));
    expect(sorted(busy)).toEqual([
      [mst(12, 23, 16), mst(12, 23, 17)],
      [mst(12, 26, 11), mst(12, 26, 12)],
      [mst(12, 31, 15), mst(12, 31, 15, 30)],
    ]);
    expect(unknownZones).toEqual(["Front desk time"]);
  });
});

describe("recurrences are expanded from the window, within a budget", () => {
  const endless = (n: number) =>
    calendar(
      Array.from(
        { length: n },
        (_, i) =>
          `BEGIN:VEVENT\r\nUID:e${i}\r\nDTSTART:20000101T${String(i % 24).padStart(2, "0")}3000Z\r\nDURATION:PT10M\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n`,
      ).join(""),
    );

  it("60 daily events with no end since 2000 (the red team's feed) are read, each on every day of the window", () => {
    expect(read(endless(60)).busy).toHaveLength(60 * 46);
  });

  it("a daily event busy 9:00–18:00 since 1970 blocks today", () => {
    const { busy } = read(
      calendar(
        "BEGIN:VEVENT\r\nUID:old\r\nDTSTART;TZID=America/Denver:19700101T090000\r\nDTEND;TZID=America/Denver:19700101T180000\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n",
      ),
    );
    expect(busy).toContainEqual([mst(12, 21, 9), mst(12, 21, 18)]);
    // Dec 20 (it ends after the window's start) through Feb 4 (it starts before its end).
    expect(busy).toHaveLength(47);
  });

  it("an event every third month on the 31st since January 2000 lands on January 31, 2027, not on a 1st", () => {
    const { busy } = read(
      calendar(
        "BEGIN:VEVENT\r\nUID:m\r\nDTSTART:20000131T170000\r\nDTEND:20000131T180000\r\nRRULE:FREQ=MONTHLY;INTERVAL=3\r\nEND:VEVENT\r\n",
      ),
    );
    expect(busy).toEqual([[mst(1, 31, 17), mst(1, 31, 18)]]);
  });

  it(`more than ${MAX_OCCURRENCES} occurrences in the window make a feed too costly to read`, () => {
    expect(() => read(endless(300))).toThrow(/^too costly to read: more than 10000 occurrences/);
  });

  it("twenty weekly series of ten years and more with COUNT and BYDAY (as Outlook writes them) are read: their past is no occurrence in the window", () => {
    const series = Array.from(
      { length: 20 },
      (_, i) =>
        `BEGIN:VEVENT\r\nUID:weekly-${i}@test\r\nDTSTAMP:20170101T000000Z\r\nDTSTART:20170103T${String(10 + (i % 8)).padStart(2, "0")}0000Z\r\nDTEND:20170103T${String(10 + (i % 8)).padStart(2, "0")}3000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=600\r\nEND:VEVENT\r\n`,
    );
    const { busy } = read(calendar(series.join("")));
    // Each series on each Tuesday of the window (Dec 22 through Feb 2: seven of them).
    expect(busy).toHaveLength(20 * 7);
  });

  it("a page that is not a calendar is not read as an empty one", () => {
    expect(() => read("<html><body>Sign in</body></html>")).toThrow();
  });
});
