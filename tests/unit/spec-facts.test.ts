import { describe, expect, it } from "vitest";
import { serviceOptions } from "#app/config/service-options.ts";
import { site } from "#app/config/site.ts";
import { readPublishedPosts } from "#app/content/post-files.ts";

/**
 * The one place the spec's exact constants (§9) are accepted. Every other test reads the facts
 * from app/config/site.ts and the posts, so changing a fact is an edit there and, when the spec
 * changes with it, here.
 */

describe("the spec's business constants (§9)", () => {
  it("are the company facts the site shows", () => {
    expect(site.phone.hours).toBe("Monday to Friday 9:00 AM to 5:00 PM MDT");
    // The imprint's line, "Business hours: Monday to Friday, 9:00 AM to 5:00 PM EST".
    expect(site.imprint.supportHours).toBe("Monday to Friday, 9:00 AM to 5:00 PM EST");
    expect(site.officeHours.map((h) => [h.label, h.text])).toEqual([
      ["Monday – Friday", "9:00 AM – 6:00 PM"],
      ["Saturday", "10:00 AM – 2:00 PM"],
      ["Sunday", "Closed"],
    ]);
    expect(site.emergencySupport).toBe(
      "Emergency support is available 24/7 for enterprise clients.",
    );
    expect(site.imprint.managementRoles).toEqual([
      "Chief Executive Officer",
      "Chief Technology Officer",
      "Chief Operating Officer",
    ]);
    expect(site.imprint.liabilityCoverageUsd).toBe(5_000_000);
    expect(site.stats.map((s) => `${s.value} ${s.label}`)).toEqual([
      "50+ Projects Delivered",
      "99.9% Uptime Guarantee",
      "24/7 Support Available",
      "5+ Enterprise Clients",
    ]);
    expect(site.consultationMinutes).toBe(30);
    expect(site.copyrightYear).toBe(2025);
    expect(site.imprint.lastUpdated).toBe("January 1, 2025");
    expect(site.blog.authorTitle).toBe("Senior Technology Consultant");
  });

  it("are the contact copy", () => {
    expect([...serviceOptions]).toEqual([
      "IT Infrastructure Solutions",
      "IT Consulting",
      "AI Consulting",
      "AI Software Development",
      "General Inquiry",
    ]);
    expect(site.response.dialogTitle).toBe("Message Sent Successfully!");
    expect(site.response.dialogMessage).toBe(
      "Thank you for your inquiry! We'll get back to you within 24 hours during business days.",
    );
    expect(site.response.failure).toBe(
      "There was an error sending your message. Please try again or contact us directly.",
    );
    expect(site.response.infoLine).toMatch(/within 4 hours/);
    expect(site.response.tile).toMatch(/within 4 hours on business days/);
  });

  it("are the blog's figures: the MACRS schedule and the lease example", () => {
    const all = readPublishedPosts()
      .map((p) => p.html)
      .join("\n");
    expect(all).toMatch(/20%[\s\S]*32%[\s\S]*19\.2%[\s\S]*11\.52%[\s\S]*11\.52%[\s\S]*5\.76%/);
    expect(all).toContain("$500,000");
    expect(all).toContain("$41,666 a month");
  });
});
