import { describe, expect, it } from "vitest";
import { sayUsPhone, usPhoneOf } from "../../app/contact/booking.ts";

/** The number a visitor gives for a consultation by phone (app/contact/booking.ts): US numbers as people write them. */
describe("the visitor's phone number", () => {
  it("reads a US number however it is written, kept in its E.164 form and shown as people read it", () => {
    for (const written of [
      "(303) 555-0142",
      "303-555-0142",
      "303.555.0142",
      "+1 303 555 0142",
      "+1 (303) 555-0142",
      "1-303-555-0142",
      "3035550142",
      "  303 555 0142 ",
    ])
      expect(usPhoneOf(written), written).toEqual({ e164: "+13035550142" });
    expect(sayUsPhone("+13035550142")).toBe("(303) 555-0142");
  });

  it("refuses what cannot be called, saying why", () => {
    const problem = (written: string) => {
      const read = usPhoneOf(written);
      return "problem" in read ? read.problem : null;
    };
    expect(problem("")).toMatch(/^Please give the phone number/);
    expect(problem("   ")).toMatch(/^Please give the phone number/);
    // Too short, too long, an area code or exchange starting 0 or 1: not a US number.
    for (const written of [
      "303-555-014",
      "555-0142",
      "303-555-01422",
      "+1 303 555 01422",
      "2-303-555-0142",
      "(103) 555-0142",
      "(303) 155-0142",
      "+1 1303 555 0142",
    ])
      expect(problem(written), written).toMatch(/^That is not a US phone number/);
    for (const written of ["303-555-CALL", "call me", "303 555 0142 ext 5", "303-555-0142;"])
      expect(problem(written), written).toMatch(/^A phone number has digits only/);
    // Other countries: only +1 is ours to call.
    for (const written of ["+44 20 7946 0958", "+49 30 901820", "+52 55 1234 5678"])
      expect(problem(written), written).toMatch(/^We can call US numbers only/);
  });
});
