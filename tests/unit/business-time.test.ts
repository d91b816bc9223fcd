import { describe, expect, it } from "vitest";
import { site } from "../../app/config/site.ts";
import {
  atRiskAt,
  businessDeadline,
  businessLine,
  businessMsBetween,
  type Promised,
  promiseDueAt,
  sayBusinessTime,
} from "../../server/contact/review/promise.ts";
import { atRiskNow } from "../../server/contact/review/reminders.ts";

/** Business time as the company counts it (server/contact/review/promise.ts): office hours, time zone, holidays. */

const HOUR = 3_600_000;
const facts: Promised = {
  timeZone: "America/Denver",
  officeHours: [
    {
      label: "Weekdays",
      days: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
      opens: "09:00",
      closes: "18:00",
      text: "",
    },
    { label: "Saturday", days: ["Saturday"], opens: "10:00", closes: "14:00", text: "" },
    { label: "Sunday", days: ["Sunday"], text: "Closed" },
  ],
  holidays: [{ date: "2027-01-18", name: "Martin Luther King Jr. Day" }],
  response: { promiseBusinessHours: 4, atRiskShare: 0.75 },
};
const at = (iso: string) => Date.parse(iso);

describe("business time", () => {
  it("counts office hours only: none at night, on Sunday or on a holiday", () => {
    // Saturday 13:00 MST to Tuesday 12:00 MST: Saturday 1 h, Sunday closed, Monday a holiday, Tuesday 3 h.
    expect(
      businessMsBetween(at("2027-01-16T13:00-07:00"), at("2027-01-19T12:00-07:00"), facts),
    ).toBe(4 * HOUR);
    expect(promiseDueAt(at("2027-01-16T13:00-07:00"), facts)).toBe(at("2027-01-19T12:00-07:00"));
    // Received at night: the hours start when the office opens.
    expect(promiseDueAt(at("2027-01-20T23:30-07:00"), facts)).toBe(at("2027-01-21T13:00-07:00"));
    // Nothing backwards.
    expect(
      businessMsBetween(at("2027-01-21T12:00-07:00"), at("2027-01-21T10:00-07:00"), facts),
    ).toBe(0);
  });

  it("keeps the office's wall clock across a daylight saving change", () => {
    // Sunday 14 March 2027 Denver moves to MDT (UTC-6); Friday 16:00 MST + 2 h + Saturday 2 h.
    expect(promiseDueAt(at("2027-03-12T16:00-07:00"), facts)).toBe(at("2027-03-13T12:00-07:00"));
    // Monday after the change: 9:00 MDT opens.
    expect(promiseDueAt(at("2027-03-15T07:00-06:00"), facts)).toBe(at("2027-03-15T13:00-06:00"));
  });

  it("has no deadline on a calendar with no open hours, and says times as people do", () => {
    const closed = {
      ...facts,
      officeHours: [{ label: "Never", days: ["Monday" as const], text: "Closed" }],
    };
    expect(businessDeadline(at("2027-01-20T10:00-07:00"), HOUR, closed)).toBeNull();
    expect([
      sayBusinessTime(4 * HOUR + 60_000),
      sayBusinessTime(45 * 60_000),
      sayBusinessTime(2 * HOUR),
    ]).toEqual(["4 h 1 min", "45 min", "2 h"]);
  });

  it("is the company's promise: 4 business hours, the stricter of the spec's two (ADR 0020)", () => {
    expect(site.response.promiseBusinessHours).toBe(4);
    expect(site.response.tile).toContain("4 hours");
  });

  it("is at risk at three quarters of the promise, the office open, never after the promise is up", () => {
    // Saturday 13:00: 1 h that day, none Sunday or on the holiday, 2 h on Tuesday from 9:00.
    expect(atRiskAt({ receivedAt: at("2027-01-16T13:00-07:00") }, facts)).toBe(
      at("2027-01-19T11:00-07:00"),
    );
    // Friday 15:00: three hours are used up at closing time, 18:00; at risk when it opens on Saturday.
    expect(atRiskAt({ receivedAt: at("2027-01-22T15:00-07:00") }, facts)).toBe(
      at("2027-01-23T10:00-07:00"),
    );
    const lead = { receivedAt: at("2027-01-22T15:00-07:00"), takenAt: null } as Parameters<
      typeof atRiskNow
    >[0];
    expect(atRiskNow(lead, at("2027-01-22T17:59-07:00"), facts)).toEqual({
      at: at("2027-01-23T10:00-07:00"),
    });
    // At risk at 17:30, offered at night (the server was down): not then, at the next opening.
    const tuesday = { ...lead, receivedAt: at("2027-01-19T14:30-07:00") };
    expect(atRiskNow(tuesday, at("2027-01-19T22:00-07:00"), facts)).toEqual({
      at: at("2027-01-20T09:00-07:00"),
    });
    expect(atRiskNow(tuesday, at("2027-01-20T09:00-07:00"), facts)).toEqual({
      left: HOUR / 2,
      dueAt: at("2027-01-20T09:30-07:00"),
    });
    expect(atRiskNow(tuesday, at("2027-01-20T09:30-07:00"), facts)).toBe("drop");
    expect(atRiskNow({ ...tuesday, takenAt: 1 }, at("2027-01-20T09:30-07:00"), facts)).toBe("drop");
  });

  it("counts the same laid out once (businessLine) as lead by lead, across a holiday and a clock change", () => {
    // January (MLK day) to April, across the March change to daylight saving time.
    const [from, to] = [at("2027-01-10T00:00-07:00"), at("2027-04-10T00:00-06:00")];
    const line = businessLine(from, to, facts);
    for (let n = 0; n < 400; n++) {
      const a = from + ((n * 7_919_993) % (to - from - 10 * 24 * HOUR));
      const b = a + ((n * 104_729) % (5 * 24 * HOUR));
      expect(line.between(a, b)).toBe(businessMsBetween(a, b, facts));
      expect(line.deadline(a, 4 * HOUR)).toBe(businessDeadline(a, 4 * HOUR, facts));
    }
    expect(line.deadline(to - HOUR, 40 * HOUR)).toBe(null);
  });
});
