import { describe, expect, it } from "vitest";
import { LIMITS, validateContact } from "../../app/contact/schema.ts";

const ok = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello" };

describe("contact schema", () => {
  it("trims every field and defaults the optional ones", () => {
    expect(
      validateContact({ name: "  Ada  ", email: " ada@example.org ", message: "\n Hi \n" }),
    ).toEqual({
      ok: true,
      data: { name: "Ada", email: "ada@example.org", company: "", service: "", message: "Hi" },
    });
  });

  it("requires name, email and message, even when only spaces are sent", () => {
    const r = validateContact({ name: "   ", email: " ", message: "\n\t" });
    expect(r).toMatchObject({
      ok: false,
      fields: {
        name: "Please enter your full name.",
        email: "Please enter your email address.",
        message: "Please enter a message.",
      },
    });
  });

  it.each([
    ["name", LIMITS.name],
    ["company", LIMITS.company],
    ["message", LIMITS.message],
  ])("accepts %s up to %i characters and not one more", (field, max) => {
    expect(validateContact({ ...ok, [field]: "x".repeat(max) }).ok).toBe(true);
    const r = validateContact({ ...ok, [field]: "x".repeat(max + 1) });
    expect(r.ok).toBe(false);
    expect(r.ok ? {} : r.fields).toHaveProperty(field);
  });

  it("limits the email address to 254 characters", () => {
    const local = "a".repeat(64);
    const domain = `${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.com`;
    const email = `${local}@${domain}`.slice(0, 240);
    expect(validateContact({ ...ok, email: `${email.replace(/\.$/, "")}.org` }).ok).toBe(true);
    expect(
      validateContact({ ...ok, email: `${"a".repeat(64)}@${"b".repeat(190)}.example.com` }).ok,
    ).toBe(false);
  });

  it.each(["name", "email", "company"])(
    "rejects a line break in %s (header injection)",
    (field) => {
      for (const evil of ["x\r\nBcc: victim@example.com", "x\nBcc: a@b.c", "x\rY"]) {
        const value = field === "email" ? `ada@example.org${evil}` : evil;
        const r = validateContact({ ...ok, [field]: value });
        expect(r.ok).toBe(false);
      }
    },
  );

  it("keeps line breaks in the message", () => {
    expect(validateContact({ ...ok, message: "line one\r\nline two" })).toMatchObject({ ok: true });
  });

  it("accepts exactly the five services of the spec, or none", () => {
    for (const service of [
      "",
      "IT Infrastructure Solutions",
      "IT Consulting",
      "AI Consulting",
      "AI Software Development",
      "General Inquiry",
    ]) {
      expect(validateContact({ ...ok, service }).ok).toBe(true);
    }
    for (const service of ["Select a service", "ai consulting", "Other", " IT Consulting x"]) {
      expect(validateContact({ ...ok, service })).toMatchObject({
        ok: false,
        fields: { service: "Please choose a service from the list." },
      });
    }
  });

  it("rejects wrong types, unknown fields and non-objects with clear errors", () => {
    expect(validateContact({ ...ok, name: 42 })).toMatchObject({
      fields: { name: "Full name must be text." },
    });
    expect(validateContact({ ...ok, message: ["a"] })).toMatchObject({
      fields: { message: "Message must be text." },
    });
    expect(validateContact({ ...ok, admin: true })).toMatchObject({
      ok: false,
      error: "Unknown field: admin.",
    });
    for (const body of [null, "text", 5, [ok]]) {
      expect(validateContact(body)).toEqual({
        ok: false,
        error: "The request body must be a JSON object.",
        fields: {},
      });
    }
  });

  it("rejects malformed addresses", () => {
    for (const email of ["plain", "a@", "@b.com", "a b@c.com", "a@b", "<a@b.com>"]) {
      expect(validateContact({ ...ok, email }).ok, email).toBe(false);
    }
  });
});

describe("unicode and control characters", () => {
  it("accepts real-world text in any script", () => {
    const r = validateContact({
      name: "Zoë Ångström-Núñez 王小明",
      email: "zoe@example.org",
      company: "Ünïcödé GmbH 🚀",
      message: "مرحبا — こんにちは — 👋🏽\n\tIndented line",
    });
    expect(r.ok).toBe(true);
  });

  it("rejects NUL, other control characters and lone surrogates", () => {
    for (const [field, value] of [
      ["name", "Ada\u0000"],
      ["company", "Bell\u0007"],
      ["message", "Hello\u0000world"],
      ["message", "Escape \u001b[31m red"],
      ["name", "Broken \ud800 pair"],
      ["message", "Trailing \udfff"],
    ]) {
      const r = validateContact({ ...ok, [field as string]: value });
      expect(r.ok, JSON.stringify(value)).toBe(false);
    }
  });
});

describe("characters that disguise text", () => {
  const disguising: Array<[string, string]> = [
    ["right-to-left override", "\u202e"],
    ["left-to-right embedding", "\u202a"],
    ["first strong isolate", "\u2068"],
    ["right-to-left mark", "\u200f"],
    ["Arabic letter mark", "\u061c"],
    ["zero-width space", "\u200b"],
    ["word joiner", "\u2060"],
    ["byte-order mark", "\ufeff"],
    ["next line (NEL)", "\u0085"],
    ["line separator", "\u2028"],
    ["paragraph separator", "\u2029"],
    ["C1 control (CSI)", "\u009b"],
    ["non-character U+FFFE", "\ufffe"],
    ["non-character U+FDD0", "\ufdd0"],
    ["non-character U+1FFFF", "\u{1ffff}"],
  ];
  it.each(disguising)("refuses a %s in one-line fields", (_name, ch) => {
    for (const field of ["name", "email", "company"]) {
      const value = field === "email" ? `ada${ch}@example.org` : `Ada${ch}Lovelace`;
      const r = validateContact({ ...ok, [field]: value });
      expect(r.ok, `${field}`).toBe(false);
      expect(r.ok ? {} : r.fields, field).toHaveProperty(field);
    }
  });

  it.each([
    ["right-to-left override", "\u202e"],
    ["C1 control", "\u0085"],
    ["non-character", "\uffff"],
  ])("refuses a %s in the message too", (_name, ch) => {
    const r = validateContact({ ...ok, message: `Hello ${ch} there` });
    expect(r.ok ? {} : r.fields).toHaveProperty("message");
  });

  it("keeps what real names and messages need: joiners, marks of real scripts, emoji, line breaks", () => {
    for (const name of [
      "مریم\u200cها",
      "क्\u200dष",
      "👩\u200d💻 Zoë",
      "Renée O'Brien-Łukasz",
      "王小明",
    ]) {
      expect(validateContact({ ...ok, name }).ok, name).toBe(true);
    }
    expect(
      validateContact({ ...ok, message: "Line one\nLine two\r\n\tIndented\u2028next" }).ok,
    ).toBe(true);
  });
});
