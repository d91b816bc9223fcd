import { describe, expect, it } from "vitest";
import { site } from "~/config/site";
import { parseSite } from "~/config/site.schema";

const clone = () => structuredClone(site);

describe("site config", () => {
  it("is valid as shipped", () => {
    expect(parseSite(site)).toEqual(site);
  });

  it("holds the spec's constants", () => {
    expect(site.stats.map((s) => `${s.value} ${s.label}`)).toEqual([
      "50+ Projects Delivered",
      "99.9% Uptime Guarantee",
      "24/7 Support Available",
      "5+ Enterprise Clients",
    ]);
    expect(site.serviceOptions).toEqual([
      "IT Infrastructure Solutions",
      "IT Consulting",
      "AI Consulting",
      "AI Software Development",
      "General Inquiry",
    ]);
    expect(site.officeHours.map((h) => `${h.label}: ${h.text}`)).toEqual([
      "Monday – Friday: 9:00 AM – 6:00 PM",
      "Saturday: 10:00 AM – 2:00 PM",
      "Sunday: Closed",
    ]);
    expect(site.phone.hours).toBe("Monday to Friday 9:00 AM to 5:00 PM MDT");
    expect(site.imprint.supportHours).toBe("9:00 AM to 5:00 PM EST");
    expect(site.imprint.lastUpdated).toBe("January 1, 2025");
    expect(site.imprint.liabilityCoverageUsd).toBe(5_000_000);
    expect(site.copyrightYear).toBe(2025);
    expect(site.consultationMinutes).toBe(30);
    expect(site.response.dialogTitle).toBe("Message Sent Successfully!");
    expect(site.response.dialogMessage).toBe(
      "Thank you for your inquiry! We'll get back to you within 24 hours during business days.",
    );
    expect(site.response.failure).toBe(
      "There was an error sending your message. Please try again or contact us directly.",
    );
    expect(site.response.tile).toMatch(/4 hours/);
    expect(site.response.infoLine).toMatch(/4 hours/);
    expect(site.email).toMatch(/@example\.com$/);
    expect(site.phone.display).toMatch(/^\(307\) 555-01\d\d$/);
  });

  it.each([
    ["email", (s: ReturnType<typeof clone>) => Object.assign(s, { email: "not-an-email" }), "email"],
    ["phone", (s: ReturnType<typeof clone>) => Object.assign(s.phone, { display: "307-123-4567" }), "phone.display"],
    ["state", (s: ReturnType<typeof clone>) => Object.assign(s.address, { region: "CA" }), "address.region"],
    [
      "hours",
      (s: ReturnType<typeof clone>) => Object.assign(s.officeHours[0] ?? {}, { opens: "9am" }),
      "officeHours.0.opens",
    ],
    ["url", (s: ReturnType<typeof clone>) => Object.assign(s, { url: "https://example.com/" }), "url"],
    ["options", (s: ReturnType<typeof clone>) => s.serviceOptions.pop(), "serviceOptions"],
  ])("rejects a bad %s, naming the field", (_name, edit, path) => {
    const broken = clone();
    edit(broken);
    expect(() => parseSite(broken)).toThrow(new RegExp(`site\\.ts is invalid:[\\s\\S]*${path.replace(/\./g, "\\.")}:`));
  });
});
