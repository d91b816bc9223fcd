import { describe, expect, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { reminderDue, reminderWindow } from "../../server/booking/slots.ts";
import type { OfficeHours } from "../../server/contact/review/promise.ts";

/**
 * When the visitor's reminder of a call may go (server/booking/slots.ts): the office hours of the last
 * business day before the call's day, never for a call confirmed less than a day before it, nor
 * after that day opened. The schedule itself, with two instances: tests/integration/booking-moves.test.ts.
 */

const at = (iso: string) => Date.parse(iso);
const hours: OfficeHours = {
  ...site,
  holidays: [{ date: "2027-03-15", name: "The scenario's holiday" }],
};
// An office whose Monday opens late: a call on Tuesday morning may be confirmed before Monday's
// opening yet less than a day before the call.
const lateMonday: OfficeHours = {
  ...hours,
  officeHours: [
    { label: "Monday", days: ["Monday"], opens: "13:00", closes: "18:00", text: "" },
    {
      label: "Weekdays",
      days: ["Tuesday", "Wednesday", "Thursday", "Friday"],
      opens: "09:00",
      closes: "18:00",
      text: "",
    },
  ],
};

describe("the visitor's reminder", () => {
  it("opens with the last business day before the call: over Sunday, a holiday and the clock change", () => {
    // Tuesday 16 March 2027, MDT: Monday is the holiday, Sunday closed (the clocks went forward).
    expect(
      reminderWindow(at("2027-03-16T10:00:00-06:00"), at("2027-03-11T10:00:00-07:00"), hours),
    ).toEqual([at("2027-03-13T10:00:00-07:00"), at("2027-03-13T14:00:00-07:00")]);
    // Wednesday 17 March: Tuesday, 9:00 AM MDT (15:00 UTC, not MST's 16:00).
    expect(
      reminderWindow(at("2027-03-17T10:00:00-06:00"), at("2027-03-11T10:00:00-07:00"), hours),
    ).toEqual([at("2027-03-16T09:00:00-06:00"), at("2027-03-16T18:00:00-06:00")]);
  });

  it("is due within that day's hours only", () => {
    const call = at("2027-03-17T10:00:00-06:00");
    const confirmed = at("2027-03-11T10:00:00-07:00");
    const due = (iso: string) => reminderDue(at(iso), call, confirmed, hours);
    expect(due("2027-03-16T08:59:00-06:00")).toBe(false);
    expect(due("2027-03-16T09:00:00-06:00")).toBe(true);
    expect(due("2027-03-16T17:59:00-06:00")).toBe(true);
    expect(due("2027-03-16T18:00:00-06:00")).toBe(false);
    expect(due("2027-03-17T09:30:00-06:00")).toBe(false);
  });

  it("is none for a call confirmed after that day opened, or less than a day before it", () => {
    // Confirmed on Thursday at 10:00 for Friday 11:00, 25 hours before: Thursday had opened.
    expect(
      reminderWindow(at("2027-03-12T11:00:00-07:00"), at("2027-03-11T10:00:00-07:00"), hours),
    ).toBeNull();
    // Confirmed on Monday at noon, before Monday opens at 13:00, for Tuesday at 9:00: 21 hours before.
    const call = at("2027-03-23T09:00:00-06:00");
    expect(reminderWindow(call, at("2027-03-22T12:00:00-06:00"), lateMonday)).toBeNull();
    // A day and a minute before: Monday afternoon's reminder.
    expect(reminderWindow(call, at("2027-03-22T08:59:00-06:00"), lateMonday)).toEqual([
      at("2027-03-22T13:00:00-06:00"),
      at("2027-03-22T18:00:00-06:00"),
    ]);
  });
});
