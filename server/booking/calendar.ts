import ICAL from "ical.js";
import { instantOn } from "../contact/review/promise.ts";
import { DAY_MS } from "../time.ts";
import type { Busy } from "./slots.ts";

/**
 * One calendar feed read into busy times, as Microsoft 365, Google Calendar, iCloud and Nextcloud
 * publish them. It runs in the feed's reader process (feed-reader.ts), never on the server's event loop.
 * - A time in a zone the feed defines (VTIMEZONE) is read in it; a zone it only names is a Windows
 *   name (Microsoft 365) or an IANA one, read with Intl; a time with no zone, or a name neither
 *   knows, is read on the office's clock. An all-day event (a DATE) blocks the office's own day.
 * - A recurrence is expanded from just before the window, not from its first date: a rule whose
 *   occurrences keep their place when moved on by whole periods (daily, weekly, monthly, yearly)
 *   starts there. Its EXDATEs and moved or cancelled occurrences (RECURRENCE-ID) are left out; a
 *   moved one blocks its own new time.
 * - The work is bounded: at most MAX_OCCURRENCES occurrences looked at per feed, else the feed is
 *   too costly to read (and its last good copy stays).
 */

type Time = InstanceType<typeof ICAL.Time>;
type Component = InstanceType<typeof ICAL.Component>;
type Recur = InstanceType<typeof ICAL.Recur>;

export const MAX_OCCURRENCES = 10_000;
// The steps a feed's rules may take to reach the window: a rule with COUNT and BYDAY (every weekly
// series Outlook and Google write) is expanded from its start, years of steps that are no occurrence
// in the window.
export const MAX_STEPS = 200_000;
// Microsoft 365 names zones as Windows does (CLDR's windowsZones, the US ones and UTC).
const WINDOWS_ZONES: Record<string, string> = {
  "Hawaiian Standard Time": "Pacific/Honolulu",
  "Aleutian Standard Time": "America/Adak",
  "Alaskan Standard Time": "America/Anchorage",
  "Pacific Standard Time": "America/Los_Angeles",
  "US Mountain Standard Time": "America/Phoenix",
  "Mountain Standard Time": "America/Denver",
  "Central Standard Time": "America/Chicago",
  "Eastern Standard Time": "America/New_York",
  "US Eastern Standard Time": "America/Indiana/Indianapolis",
  "Atlantic Standard Time": "America/Halifax",
  "SA Western Standard Time": "America/Puerto_Rico",
  UTC: "Etc/UTC",
};

export type Read = { busy: Busy; unknownZones: string[] };

export function busyOf(text: string, from: number, to: number, office: string): Read {
  const parsed = ICAL.parse(text) as unknown[];
  // One VCALENDAR parses to its jCal, several to a list of them.
  const jcals = (Array.isArray(parsed[0]) ? parsed : [parsed]) as Array<
    ConstructorParameters<typeof ICAL.Component>[0]
  >;
  const calendars: Component[] = jcals.map((c) => {
    const root = new ICAL.Component(c);
    // ical.js looks a zone up among all the calendar's components on every time that names it, and
    // forgets a zone it did not find: once per name here, or a 5 MB feed takes minutes.
    const defined = new Map<string, ReturnType<Component["getTimeZoneByID"]>>();
    const lookUp = root.getTimeZoneByID.bind(root);
    root.getTimeZoneByID = (tzid: string) => {
      if (!defined.has(tzid)) defined.set(tzid, lookUp(tzid));
      return defined.get(tzid) as ReturnType<Component["getTimeZoneByID"]>;
    };
    return root;
  });
  if (calendars.length === 0 || calendars.some((c) => c.name !== "vcalendar"))
    throw new Error("not an iCalendar feed");
  const unknownZones = new Set<string>();
  const zones = new Map<string, string | null>();
  const zoneOf = (tzid: string) => {
    if (!zones.has(tzid)) {
      let zone: string | null = null;
      try {
        zone = new Intl.DateTimeFormat("en-US", {
          timeZone: WINDOWS_ZONES[tzid] ?? tzid,
        }).resolvedOptions().timeZone;
      } catch {
        unknownZones.add(tzid);
      }
      zones.set(tzid, zone);
    }
    return zones.get(tzid) ?? office;
  };
  const wall = (t: Time, zone: string) =>
    instantOn(zone, t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  /** The instant of a time: ical.js's for a zone the feed defines or UTC, else read on the named zone's clock. */
  const instantOf = (t: Time, tzid: string | undefined) => {
    if (t.isDate) return wall(t, office);
    if (t.zone && t.zone.tzid !== "floating") return t.toUnixTime() * 1000;
    return wall(t, tzid ? zoneOf(tzid) : office);
  };

  let looked = 0;
  const look = () => {
    looked += 1;
    if (looked > MAX_OCCURRENCES)
      throw new Error(
        `too costly to read: more than ${MAX_OCCURRENCES} occurrences in the days read`,
      );
  };
  let stepped = 0;
  const step = () => {
    stepped += 1;
    if (stepped > MAX_STEPS)
      throw new Error(`too costly to read: more than ${MAX_STEPS} steps to reach the days read`);
  };
  const busy: Busy = [];
  const add = (start: number, end: number) => {
    if (start < to && end > from) busy.push([start, end]);
  };

  const events = calendars.flatMap((c: Component) => c.getAllSubcomponents("vevent"));
  // Occurrences moved or cancelled, by series: each override is also an event of its own.
  const replaced = new Map<string, Component[]>();
  for (const e of events) {
    if (!e.hasProperty("recurrence-id")) continue;
    const uid = String(e.getFirstPropertyValue("uid"));
    replaced.set(uid, [...(replaced.get(uid) ?? []), e]);
  }
  for (const e of events) {
    if (free(e) || !e.hasProperty("dtstart")) continue;
    // Overrides are matched below: ical.js would relate each event to every other one.
    const event = new ICAL.Event(e, { exceptions: [] });
    const start = event.startDate;
    const tzid = e.getFirstProperty("dtstart")?.getParameter("tzid") as string | undefined;
    const duration = event.duration;
    const occurrence = (t: Time, at = instantOf(t, tzid)) => {
      const end = t.clone();
      end.addDuration(duration);
      add(at, instantOf(end, tzid));
    };
    if (e.hasProperty("recurrence-id") || !event.isRecurring()) {
      const end = event.endDate;
      const endTzid = e.getFirstProperty("dtend")?.getParameter("tzid") as string | undefined;
      const [at, until] = [
        instantOf(start, tzid),
        instantOf(end, e.hasProperty("dtend") ? endTzid : tzid),
      ];
      if (at < to && until > from) look();
      add(at, until);
      continue;
    }
    // What is not an occurrence: EXDATEs and RECURRENCE-IDs, matched by their instant, or by their
    // day where either side is a date (Exchange writes a moved all-day occurrence's as a midnight).
    const instants = new Set<number>();
    const days = new Set<string>();
    const exclude = (v: Time, zone: string | undefined) =>
      v.isDate || start.isDate ? days.add(dayOf(v)) : instants.add(instantOf(v, zone));
    for (const p of e.getAllProperties("exdate"))
      for (const v of p.getValues())
        exclude(v as Time, p.getParameter("tzid") as string | undefined);
    for (const o of replaced.get(event.uid) ?? []) {
      const p = o.getFirstProperty("recurrence-id");
      if (p) exclude(p.getFirstValue() as Time, p.getParameter("tzid") as string | undefined);
    }
    const occurs = (t: Time, at: number) =>
      !days.has(dayOf(t)) && (start.isDate || !instants.has(at));

    // DTSTART is the first occurrence; each rule's iterator yields its own start first, then the rest.
    const first = instantOf(start, tzid);
    if (occurs(start, first)) occurrence(start, first);
    const durationMs = duration.toSeconds() * 1000;
    for (const p of e.getAllProperties("rrule")) {
      const rule = (p.getFirstValue() as Recur).clone();
      const begin = rebased(start, first, rule, from - durationMs);
      if (!begin) continue;
      const it = rule.iterator(begin);
      it.next();
      for (let t = it.next(); t; t = it.next()) {
        step();
        const at = instantOf(t, tzid);
        if (at >= to) break;
        if (at + durationMs > from) look();
        if (occurs(t, at)) occurrence(t, at);
      }
    }
    for (const p of e.getAllProperties("rdate"))
      for (const v of p.getValues()) {
        step();
        const t = v instanceof ICAL.Period ? v.start : (v as Time);
        const at = instantOf(t, p.getParameter("tzid") as string | undefined);
        if (at < to && at + durationMs > from) look();
        if (occurs(t, at)) occurrence(t, at);
      }
  }
  return { busy, unknownZones: [...unknownZones] };
}

/** Free time: an event marked free (TRANSP) or cancelled. */
const free = (e: Component) =>
  e.getFirstPropertyValue("transp") === "TRANSPARENT" ||
  e.getFirstPropertyValue("status") === "CANCELLED";

const dayOf = (t: Time) => `${t.year}-${t.month}-${t.day}`;

/**
 * Where a rule's expansion may start: moved on from `start` by whole periods to at least one period
 * before `before`, where the rule yields the same occurrences from there. A rule with COUNT only
 * when it yields one occurrence a period (no BY… parts): its count is lowered by the periods
 * skipped, and null when it ended before. Otherwise `start` itself (its expansion is bounded by
 * MAX_OCCURRENCES).
 */
function rebased(start: Time, startAt: number, rule: Recur, before: number): Time | null {
  const count = rule.count ?? 0;
  if (count && Object.keys(rule.parts).length > 0) return start;
  const days = ({ DAILY: 1, WEEKLY: 7 } as Record<string, number>)[rule.freq];
  const months = ({ MONTHLY: 1, YEARLY: 12 } as Record<string, number>)[rule.freq];
  const step = (rule.interval || 1) * (days ?? months ?? 0);
  if (step === 0) return start;
  const until = new Date(before);
  // Two periods back by months: a month's first day is not a whole month after the one before.
  const periods = days
    ? Math.floor((before - startAt) / (step * DAY_MS)) - 1
    : Math.floor(
        ((until.getUTCFullYear() - start.year) * 12 + until.getUTCMonth() + 1 - start.month) / step,
      ) - 2;
  if (periods <= 0) return start;
  if (count && periods >= count) return null;
  // A month on without the start's day (the 31st, Feb 29) is tried a period earlier, up to 48.
  for (let k = periods; k > 0 && k > periods - 48; k--) {
    const t = start.clone();
    if (days) t.adjust(k * step, 0, 0, 0);
    else {
      const m = start.month - 1 + k * step;
      const [year, month] = [start.year + Math.floor(m / 12), (m % 12) + 1];
      if (start.day > ICAL.Time.daysInMonth(month, year)) continue;
      t.year = year;
      t.month = month;
    }
    if (count) rule.count = count - k;
    return t;
  }
  return start;
}
