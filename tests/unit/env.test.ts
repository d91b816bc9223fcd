import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { loadEnv } from "../../server/env.ts";

/** One validated environment; a bad value is one line naming the variable. */

describe("the environment", () => {
  it("has a default for everything a fresh clone needs", () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      SITE_URL: "https://www.example.com",
      CONTACT_ENDPOINT: "/functions/v1/send-email",
      PORT: 3000,
      HOST: "0.0.0.0",
      TRUST_PROXY: ["loopback"],
      DATA_DIR: "./data",
      RATE_LIMIT_PER_MINUTE: 5,
      SPAM_FILTER: "on",
    });
  });

  it("reads values as their types, and an empty variable as unset", () => {
    const env = loadEnv({ PORT: "8080", SITE_URL: "https://www.teton.test/", DATABASE_URL: "" });
    expect(env.PORT).toBe(8080);
    expect(env.SITE_URL).toBe("https://www.teton.test");
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("reads a value in one pair of quotes without them, as podman's and docker's --env-file pass it", () => {
    const secret = (c: string) => `whsec_${c.repeat(43)}=`;
    const both = `${secret("N")} ${secret("O")}`;
    for (const given of [both, `"${both}"`, `'${both}'`]) {
      const env = loadEnv({ WEBHOOK_URL: "https://hooks.example.com/in", WEBHOOK_SECRET: given });
      expect(env.WEBHOOK_SECRET).toBe(both);
    }
    // Quotes that do not wrap the whole value are the value's own.
    expect(() =>
      loadEnv({ WEBHOOK_URL: "https://hooks.example.com/in", WEBHOOK_SECRET: `"${both}` }),
    ).toThrow(/WEBHOOK_SECRET/);
    expect(loadEnv({ SMTP_FROM: '"Teton" <no-reply@example.com>' }).SMTP_FROM).toBe(
      '"Teton" <no-reply@example.com>',
    );
  });

  it("an empty value in quotes (`SITE_URL=\"\"` through podman's --env-file) is not set: the links' check sees it unset", () => {
    expect(loadConfig({ SITE_URL: '""' }).siteUrlSet).toBe(false);
    expect(loadConfig({ SITE_URL: "''" }).siteUrlSet).toBe(false);
    expect(loadConfig({ SITE_URL: '"https://www.teton.test"' })).toMatchObject({
      siteUrlSet: true,
      SITE_URL: "https://www.teton.test",
    });
  });

  it("reads the same name in two services' routes, and braces inside a value, as no repetition", () => {
    const routes = {
      "AI Consulting": { to: "ai@example.com" },
      "IT Consulting": {
        to: "cloud@example.com",
        slack: 'https://hooks.slack.example/T/B/{x},"to":',
      },
    };
    expect(loadEnv({ CONTACT_ROUTES: JSON.stringify(routes) }).CONTACT_ROUTES).toEqual(routes);
    expect(
      loadEnv({ ALLOWED_ORIGINS: "https://a.example.com/, http://localhost:5173" }).ALLOWED_ORIGINS,
    ).toEqual(["https://a.example.com", "http://localhost:5173"]);
  });

  it("reads leads routed by service line", () => {
    const routes = {
      "AI Consulting": {
        to: "ai@example.com, cto@example.com",
        slack: "https://hooks.slack.example/T/B/ai",
      },
    };
    expect(loadEnv({ CONTACT_ROUTES: JSON.stringify(routes) }).CONTACT_ROUTES).toEqual(routes);
  });

  it.each([
    [{ PORT: "eighty" }, /^Invalid environment: PORT: /],
    [{ PORT: "70000" }, /^Invalid environment: PORT: a port number 1-65535$/],
    [
      { SITE_URL: "www.example.com" },
      /^Invalid environment: SITE_URL: an http:\/\/ or https:\/\/ URL$/,
    ],
    [{ CONTACT_ENDPOINT: "send-email" }, /^Invalid environment: CONTACT_ENDPOINT: /],
    [{ RATE_LIMIT_PER_DAY: "-3" }, /^Invalid environment: RATE_LIMIT_PER_DAY: /],
    [{ WEBHOOK_URL: "https://hooks.example/x" }, /WEBHOOK_SECRET: required with WEBHOOK_URL/],
    [
      { SMTP_FROM: "Teton Digital Website" },
      /^Invalid environment: SMTP_FROM: a sender with an address/,
    ],
    // A password in a receiver's URL would be written into logs, stored errors and alerts: refused at start.
    [
      {
        WEBHOOK_URL: "https://crm:s3cret@hooks.example/x",
        WEBHOOK_SECRET: `whsec_${"A".repeat(32)}`,
      },
      /^Invalid environment: WEBHOOK_URL: no user:password@ in the URL/,
    ],
    [
      { SLACK_WEBHOOK_URL: "https://u:p@hooks.slack.example/T/B/x" },
      /^Invalid environment: SLACK_WEBHOOK_URL: no user/,
    ],
    // Leads routed by service line: one clear reason per mistake.
    [{ CONTACT_ROUTES: "{ai: 1}" }, /^Invalid environment: CONTACT_ROUTES: not JSON/],
    // JSON.parse would keep the second entry and drop the first's recipient without a word.
    [
      {
        CONTACT_ROUTES:
          '{"AI Consulting": {"to": "ai@example.com"}, "IT Consulting": {"to": "c@example.com"}, "AI Consulting": {"to": "cto@example.com"}}',
      },
      /^Invalid environment: CONTACT_ROUTES: names "AI Consulting" twice/,
    ],
    [
      {
        CONTACT_ROUTES:
          '{"AI Consulting": {"to": "ai@example.com", "slack": "https://hooks.slack.example/T/B/a", "to": "x@example.com"}}',
      },
      /^Invalid environment: CONTACT_ROUTES: names "to" twice/,
    ],
    [
      { ALLOWED_ORIGINS: "https://www.example.com, example.org" },
      /^Invalid environment: ALLOWED_ORIGINS: "example.org" is not an origin/,
    ],
    [
      { ALLOWED_ORIGINS: "https://www.example.com/contact" },
      /^Invalid environment: ALLOWED_ORIGINS: "https:\/\/www.example.com\/contact" is not an origin/,
    ],
    [
      { CONTACT_ROUTES: JSON.stringify({ "AI Consultancy": { to: "ai@example.com" } }) },
      /^Invalid environment: CONTACT_ROUTES: unknown service "AI Consultancy" \(one of IT Infrastructure Solutions, .*, none\)$/,
    ],
    [
      {
        CONTACT_ROUTES: JSON.stringify({
          "AI Consulting": { to: "ai@example.com, not-an-address" },
        }),
      },
      /^Invalid environment: CONTACT_ROUTES: "AI Consulting".to: email addresses, comma-separated$/,
    ],
    [
      { CONTACT_ROUTES: JSON.stringify({ none: { webhook: "https://hooks.example/general" } }) },
      /WEBHOOK_SECRET: required with WEBHOOK_URL or a route's webhook/,
    ],
  ])("refuses %j in one line naming the variable", (source, message) => {
    expect(() => loadEnv(source)).toThrow(message);
    try {
      loadEnv(source);
    } catch (e) {
      expect((e as Error).message).not.toContain("\n");
    }
  });
});
