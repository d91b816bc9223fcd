import { describe, expect, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { zoneOf } from "../../server/booking/slots.ts";
import { officeTime, replyBy } from "../../server/contact/review/clock.ts";
import { deadlineOf } from "../../server/contact/review/digest.ts";
import { promiseDueAt } from "../../server/contact/review/promise.ts";

/** Every time a person reads, on the company's clock (server/contact/review/clock.ts), against its zone. */

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe("the office's clock", () => {
  it("says a time in the company's zone, with that date's abbreviation", () => {
    expect(site.timeZone).toBe("America/Denver");
    // The example: received 06:56 UTC on Nov 27 is the evening before in Cheyenne.
    expect(officeTime(at("2026-11-27T06:56:20.286Z"))).toBe("Thu, Nov 26, 11:56 PM MST");
    expect(officeTime(at("2026-07-04T18:00:00Z"))).toBe("Sat, Jul 4, 12:00 PM MDT");
    // Either side of the daylight-saving change (Sunday 14 March 2027, 2:00 AM).
    expect(officeTime(at("2027-03-14T08:59:00Z"))).toBe("Sun, Mar 14, 1:59 AM MST");
    expect(officeTime(at("2027-03-14T09:00:00Z"))).toBe("Sun, Mar 14, 3:00 AM MDT");
  });

  it("puts the deadline four business hours on: across a weekend, a holiday and the daylight-saving change", () => {
    const due = (iso: string) => replyBy(promiseDueAt(at(iso)));
    // Friday 4:00 PM MST: 2 h Friday, 2 h Saturday morning.
    expect(due("2027-03-12T23:00:00Z")).toBe(
      "Reply by Sat, Mar 13, 12:00 PM MST (4 business hours)",
    );
    // Saturday 1:00 PM MST: 1 h Saturday; Sunday closed; Monday opens at 9:00 MDT, 3 h more.
    expect(due("2027-03-13T20:00:00Z")).toBe(
      "Reply by Mon, Mar 15, 12:00 PM MDT (4 business hours)",
    );
    // Wednesday before Thanksgiving, 4:00 PM: 2 h; Thursday and Friday are holidays; Saturday 10 to 12.
    expect(due("2026-11-25T23:00:00Z")).toBe(
      "Reply by Sat, Nov 28, 12:00 PM MST (4 business hours)",
    );
    // The lead, received late on Thanksgiving: the next open hours are Saturday's.
    expect(due("2026-11-27T06:56:20.286Z")).toBe(
      "Reply by Sat, Nov 28, 2:00 PM MST (4 business hours)",
    );
  });

  it("says how much business time is left, or by how much the deadline was missed", () => {
    const receivedAt = at("2027-03-12T23:00:00Z"); // Friday 4:00 PM MST; due Saturday 12:00 PM.
    const replyByText = "Reply by Sat, Mar 13, 12:00 PM MST (4 business hours)";
    expect(deadlineOf({ receivedAt, takenAt: null }, receivedAt + HOUR)).toEqual({
      replyBy: replyByText,
      state: "3 h of business time left",
    });
    // Friday night, closed: the time left stands still.
    expect(deadlineOf({ receivedAt, takenAt: null }, at("2027-03-13T06:00:00Z"))?.state).toBe(
      "2 h of business time left",
    );
    // Saturday 1:30 PM: 1 h 30 min past it.
    expect(deadlineOf({ receivedAt, takenAt: null }, at("2027-03-13T20:30:00Z"))?.state).toBe(
      "Missed by 1 h 30 min of business time",
    );
    // Received Saturday at opening, due at closing; on Sunday it is missed, by no business time yet.
    expect(
      deadlineOf(
        { receivedAt: at("2027-03-13T17:00:00Z"), takenAt: null },
        at("2027-03-14T18:00:00Z"),
      ),
    ).toEqual({
      replyBy: "Reply by Sat, Mar 13, 2:00 PM MST (4 business hours)",
      state: "Missed",
    });
    expect(
      deadlineOf({ receivedAt, takenAt: at("2027-03-13T17:30:00Z") }, at("2027-03-20T00:00:00Z"))
        ?.state,
    ).toBe("Taken in time");
    expect(
      deadlineOf({ receivedAt, takenAt: at("2027-03-15T16:00:00Z") }, at("2027-03-20T00:00:00Z"))
        ?.state,
    ).toBe("Taken late by 3 h of business time");
  });
});

describe("the zone a booking page shows", () => {
  it("is a zone named as browsers name them, else the office's: never an offset", () => {
    expect(zoneOf("America/New_York")).toBe("America/New_York");
    expect(zoneOf("Etc/GMT+5")).toBe("Etc/GMT+5");
    // Intl takes "+05:30" too: 2,820 such offsets would each keep formatters in memory.
    for (const given of ["+05:30", "-0800", "+00:00", "Mars/Olympus", "", 42, "A".repeat(65)])
      expect(zoneOf(given)).toBe(site.timeZone);
  });
});
