import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rowSizeOf } from "#app/components/ui/rows.ts";
import { hours, usPhone, withHourLines } from "#app/config/derive.ts";
import { parseSite } from "#app/config/site.schema.ts";
import { site } from "#app/config/site.ts";
import { serviceLines } from "#app/content/services.ts";
import {
  checkContent,
  disagreements,
  factProblems,
  placeholderProblems,
  syntaxProblems,
} from "../../scripts/content-check.ts";
import { sizeAdvice } from "../../scripts/photos.ts";
import { placeholderContacts } from "../../server/facts.ts";

/**
 * The schema's rules, not the values: each rule refuses a value that breaks it and names the field.
 * (What the pages must show is checked where it is shown: tests/e2e.)
 */

type Draft = ReturnType<typeof structuredClone<typeof site>>;
const clone = (): Draft => structuredClone(site);

describe("site config", () => {
  it("is valid as shipped", () => {
    expect(parseSite(site)).toEqual(site);
  });

  it.each<[string, (s: Draft) => unknown, string]>([
    ["email", (s) => Object.assign(s, { email: "not-an-email" }), "email"],
    [
      "phone not written (NNN) NNN-NNNN",
      (s) => Object.assign(s.phone, { display: "307.123.4567" }),
      "phone → display",
    ],
    ["phone not E.164", (s) => Object.assign(s.phone, { e164: "307-555-0142" }), "phone → e164"],
    [
      "phone dialled differs from shown",
      (s) => Object.assign(s.phone, { e164: "+13075550199" }),
      "phone → e164",
    ],
    ["state", (s) => Object.assign(s.address, { region: "CA" }), "address → region"],
    [
      "ZIP code outside Wyoming",
      (s) => Object.assign(s.address, { postalCode: "90210" }),
      "address → postalCode",
    ],
    [
      "office outside Wyoming",
      (s) => Object.assign(s.address.geo, { latitude: 47.6 }),
      "address → geo → latitude",
    ],
    [
      "12-hour clock",
      (s) => Object.assign(s.officeHours[0] ?? {}, { opens: "9am" }),
      "officeHours → entry 1 → opens",
    ],
    [
      "day name",
      (s) => Object.assign(s.officeHours[0] ?? {}, { days: ["Funday"] }),
      "officeHours → entry 1 → days → entry 1",
    ],
    ["URL with a trailing slash", (s) => Object.assign(s, { url: "https://example.com/" }), "url"],
    [
      "legal name without LLC",
      (s) => Object.assign(s, { legalName: "Teton Digital Systems" }),
      "legalName",
    ],
    [
      "description too long",
      (s) => Object.assign(s, { description: "x".repeat(161) }),
      "description",
    ],
    [
      "four service options",
      (s) => Object.assign(s, { serviceOptions: s.serviceOptions.slice(1) }),
      "serviceOptions",
    ],
    ["three stats", (s) => Object.assign(s, { stats: s.stats.slice(1) }), "stats"],
    ["theme colour", (s) => Object.assign(s.themeColor, { dark: "navy" }), "themeColor → dark"],
    [
      "blog topic ending in a full stop",
      (s) => Object.assign(s.blog, { about: `${s.blog.about}.` }),
      "blog → about",
    ],
    ["unknown blog key", (s) => Object.assign(s.blog, { tagline: "x" }), "blog"],
  ])("refuses a bad %s, naming the field", (_name, edit, path) => {
    const broken = clone();
    edit(broken);
    expect(() => parseSite(broken)).toThrow(new RegExp(`^app/config/site\\.ts, ${path}: `, "m"));
  });
});

describe("a syntax mistake in site.ts or services.ts, in one line", () => {
  const services = readFileSync("app/content/services.ts", "utf8");
  const said = (from: string, to: string) => {
    expect(services).toContain(from);
    return syntaxProblems("app/content/services.ts", services.replace(from, to));
  };

  it("is none in the files as shipped", () => {
    expect(syntaxProblems("app/content/services.ts", services)).toEqual([]);
    expect(
      syntaxProblems("app/config/site.ts", readFileSync("app/config/site.ts", "utf8")),
    ).toEqual([]);
  });

  it("says where, what was found, what is expected and an example", () => {
    const line = services.split("\n").findIndex((l) => l.includes('"Scale up or down')) + 1;
    expect(
      said(
        '"Scale up or down within a business day",',
        '"Scale up or down within a business day"\n          "Colocation",',
      ),
    ).toEqual([
      `app/content/services.ts, line ${line + 1}, column 11: found "Colocation"; expected a comma (,) or the ] that ends the list opened on line ${line - 4} (a comma at the end of line ${line}?). Write text in quotes, each field written name: "value" and followed by a comma, like: title: "Colocation",`,
    ]);
    expect(said('cardTitle: "IT Infrastructure",', 'cardTitle: "IT Infrastructure,')[0]).toMatch(
      /^app\/content\/services\.ts, line \d+, column 16: found text that starts with " and does not end on its line; expected the same quote at its end\./,
    );
    expect(
      said('cardTitle: "IT Infrastructure",', "cardTitle: \u201cIT Infrastructure\u201d,")[0],
    ).toMatch(/column 16: found the curly quote \u201c; expected a straight quote/);
  });
});

describe("placeholder contact details (the production server warns at start while any is left)", () => {
  it("finds the shipped placeholders, and none in real details", () => {
    expect(placeholderContacts(site)).toEqual([
      "email hello@example.com",
      "securityContact security@example.com",
      "phone (307) 555-0142",
    ]);
    const real = {
      email: "hello@tetondigital.com",
      securityContact: "security@tetondigital.com",
      phone: { ...site.phone, display: "(307) 634-0100" },
    };
    expect(placeholderContacts(real)).toEqual([]);
    expect(
      placeholderContacts({ ...real, email: "a@b.example", securityContact: "s@x.test" }),
    ).toHaveLength(2);
  });
});

describe("the privacy notice's periods are the ones the deployment keeps", () => {
  it("Litestream's replica holds an erased lead no longer than backupDays (a snapshot lives up to twice its retention)", () => {
    const yml = readFileSync(new URL("../../deploy/litestream.yml", import.meta.url), "utf8");
    const retention = /^\s*retention:\s*(\d+)h\s*$/m.exec(yml)?.[1];
    expect(retention).toBeDefined();
    expect(2 * Number(retention)).toBeLessThanOrEqual(site.privacy.backupDays * 24);
  });
});

describe("facts typed once, and the ones the spec states twice", () => {
  it("dials the number it shows, and writes the hours from the times", () => {
    expect(usPhone("(307) 634-0100")).toEqual({ display: "(307) 634-0100", e164: "+13076340100" });
    expect(hours(["Monday", "Tuesday", "Wednesday"], "08:30", "17:00")).toMatchObject({
      label: "Monday – Wednesday",
      text: "8:30 AM – 5:00 PM",
    });
    expect(hours(["Sunday"])).toMatchObject({ label: "Sunday", text: "Closed" });
    expect(site.officeHours.map((h) => `${h.label} ${h.text}`)).toEqual([
      "Monday – Friday 9:00 AM – 6:00 PM",
      "Saturday 10:00 AM – 2:00 PM",
      "Sunday Closed",
    ]);
  });

  it("makes the hour lines from the office hours when site.ts leaves them out", () => {
    const { hours: _, ...phone } = site.phone;
    const { supportHours: __, ...imprint } = site.imprint;
    const made = withHourLines({ ...site, phone, imprint });
    const line =
      "Monday to Friday 9:00 AM to 6:00 PM and Saturday 10:00 AM to 2:00 PM (Mountain Time)";
    expect(made.phone.hours).toBe(line);
    expect(made.imprint.supportHours).toBe(line);
    expect(disagreements({ ...made, response: { ...made.response, dialogMessage: "" } })).toEqual(
      [],
    );
    // The office hours the marketer changes (docs/editing.md): the lines follow, and still agree.
    const moved = withHourLines({
      ...site,
      phone,
      imprint,
      officeHours: [hours(["Monday", "Tuesday", "Wednesday", "Thursday"], "08:00", "17:00")],
      timeZone: "America/New_York",
    });
    expect(moved.phone.hours).toBe("Monday to Thursday 8:00 AM to 5:00 PM (Eastern Time)");
    expect(disagreements(moved).map((d) => d.field)).toEqual(["response.dialogMessage"]);
    // A line the company writes is its own.
    expect(withHourLines(site).phone.hours).toBe(site.phone.hours);
  });

  it("names each disagreement of the shipped facts, the pair and how to make them agree", () => {
    expect(disagreements(site, 2026).map((d) => d.text)).toEqual([
      'response.dialogMessage says "within 24 hours", response.promiseBusinessHours (the promise the server keeps and reminds by) is 4: write "within 4 hours" there, or change promiseBusinessHours and every line that says a reply time',
      'phone.hours says "Monday to Friday 9:00 AM to 5:00 PM MDT", officeHours say Monday – Friday 9:00 AM – 6:00 PM, Saturday 10:00 AM – 2:00 PM: write the hours officeHours say, or leave phone.hours out and it is made from officeHours ("Monday to Friday 9:00 AM to 6:00 PM and Saturday 10:00 AM to 2:00 PM (Mountain Time)")',
      'phone.hours says "MDT", which America/Denver (timeZone) is called only part of the year (MST the rest of it), and the line is shown all year: write "MT" or "Mountain Time", or leave phone.hours out and it is made from officeHours',
      'imprint.supportHours says "Monday to Friday, 9:00 AM to 5:00 PM EST", officeHours say Monday – Friday 9:00 AM – 6:00 PM, Saturday 10:00 AM – 2:00 PM: write the hours officeHours say, or leave imprint.supportHours out and it is made from officeHours ("Monday to Friday 9:00 AM to 6:00 PM and Saturday 10:00 AM to 2:00 PM (Mountain Time)")',
      'imprint.supportHours says "EST", while timeZone is America/Denver (Mountain Time): write "MT" or "Mountain Time", or leave imprint.supportHours out and it is made from officeHours',
    ]);
    const agreed = clone();
    agreed.response.dialogMessage = "We'll get back to you within 4 business hours.";
    agreed.phone.hours = "Monday to Friday 9:00 AM to 6:00 PM MT";
    agreed.imprint.supportHours = "Monday – Friday, 9 AM – 6 PM Mountain Time";
    expect(disagreements(agreed, 2026)).toEqual([]);
  });

  const only = (edit: (s: Draft) => void) => {
    const s = clone();
    s.response.dialogMessage = "We'll get back to you within 4 hours during business days.";
    s.phone.hours = "Monday to Friday 9:00 AM to 6:00 PM MT";
    s.imprint.supportHours = "Saturday 10:00 AM to 2:00 PM (Mountain Time)";
    edit(s);
    return disagreements(s, 2026).map((d) => d.text);
  };

  it.each<[string, (s: Draft) => void, RegExp]>([
    [
      "a reply time other than the promise",
      (s) => {
        s.response.tile = "We reply within 2 business hours.";
      },
      /^response\.tile says "within 2 business hours", response\.promiseBusinessHours .* is 4: write "within 4 hours" there/,
    ],
    [
      "a closing time other than the office's",
      (s) => {
        s.phone.hours = "Monday to Friday 9:00 AM to 5:00 PM MT";
      },
      /^phone\.hours says "Monday to Friday 9:00 AM to 5:00 PM MT", officeHours say Monday – Friday 9:00 AM – 6:00 PM, Saturday .*: write the hours officeHours say, or leave phone\.hours out/,
    ],
    [
      "days the office keeps other hours on",
      (s) => {
        s.imprint.supportHours = "Monday to Saturday, 9:00 AM to 6:00 PM MT";
      },
      /^imprint\.supportHours says "Monday to Saturday, 9:00 AM to 6:00 PM MT", officeHours say/,
    ],
    [
      "a summer zone name shown in November",
      (s) => {
        s.phone.hours = "Monday to Friday 9:00 AM to 6:00 PM Mountain Daylight Time";
      },
      /^phone\.hours says "Mountain Daylight Time", which America\/Denver \(timeZone\) is called only part of the year \(Mountain Standard Time the rest of it\).*: write "MT" or "Mountain Time"/,
    ],
    [
      "a winter zone name shown in July",
      (s) => {
        s.phone.hours = "Monday to Friday 9:00 AM to 6:00 PM MST";
      },
      /^phone\.hours says "MST", which America\/Denver \(timeZone\) is called only part of the year \(MDT the rest of it\)/,
    ],
    [
      "another zone's name",
      (s) => {
        s.imprint.supportHours = "Saturday 10:00 AM to 2:00 PM PT";
      },
      /^imprint\.supportHours says "PT", while timeZone is America\/Denver \(Mountain Time\): write "MT" or "Mountain Time", or leave imprint\.supportHours out/,
    ],
  ])("names %s", (_, edit, said) => {
    expect(only(() => {})).toEqual([]);
    const found = only(edit);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(said);
  });

  it("takes a name the office's zone has all year as right (Arizona keeps MST)", () => {
    const s = clone();
    s.timeZone = "America/Phoenix";
    s.phone.hours = "Monday to Friday 9:00 AM to 6:00 PM MST";
    expect(disagreements(s, 2026).filter((d) => d.field === "phone.hours")).toEqual([]);
  });

  it("refuses the disagreements for a public address, names them for any other", async () => {
    const local = await checkContent(async () => "http://localhost:3000");
    expect(local.problems).toEqual([]);
    expect(local.warnings).toHaveLength(disagreements(site).length);
    expect(local.warnings[0]).toMatch(
      /^app\/config\/site\.ts, line \d+, response\.dialogMessage says/,
    );
    const published = await checkContent(async () => "https://www.tetondigital.com");
    expect(published.warnings).toEqual([]);
    expect(published.problems).toEqual([
      ...placeholderProblems(site, "https://www.tetondigital.com"),
      ...local.warnings,
    ]);
  });

  it("refuses the placeholders for a public address only", () => {
    expect(placeholderProblems(site, "http://localhost:3000")).toEqual([]);
    expect(placeholderProblems(site, "https://www.example.com")).toEqual([]);
    expect(placeholderProblems(site, "https://staging.test")).toEqual([]);
    expect(placeholderProblems(site, "https://www.tetondigital.com")).toHaveLength(3);
  });
});

describe("services and photos of any size", () => {
  it("fills rows of at most three as evenly as possible: no card alone beside empty space", () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => rowSizeOf(n, i));
    expect(rows(1)).toEqual([1]);
    expect(rows(3)).toEqual([3, 3, 3]);
    expect(rows(4)).toEqual([2, 2, 2, 2]);
    expect(rows(5)).toEqual([3, 3, 3, 2, 2]);
    expect(rows(7)).toEqual([3, 3, 3, 2, 2, 2, 2]);
    expect(factProblems(site, serviceLines)).toEqual([]);
  });

  it("says in one line what size to export a photo too small or enormous", () => {
    expect(sizeAdvice("content/blog/images/a.png", 800, 420, 200_000)).toMatch(
      /^content\/blog\/images\/a\.png is 800×420 px: too small .* export it at least 1200 px wide/,
    );
    expect(sizeAdvice("a.jpg", 6000, 4000, 12_000_000)).toMatch(
      /is 6000×4000 px \(12\.0 MB\): .*export it 1600 px wide/,
    );
    expect(sizeAdvice("a.jpg", 1600, 840, 300_000)).toBeNull();
  });
});
