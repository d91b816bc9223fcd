import { describe, expect, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { loadConfig } from "../../server/config.ts";
import { hostNamed, unnamedProcessors } from "../../server/contact/delivery/routing.ts";

/**
 * The start-time guard of the privacy notice (server/contact/delivery/routing.ts): a lead goes to no
 * provider, and no host, that site.privacy.processors does not name. The refused start itself, as
 * an operator sees it, is in tests/integration/privacy.test.ts.
 */

const check = (env: Record<string, string>) =>
  unnamedProcessors(loadConfig({ DATA_DIR: "/tmp/unused", ...env }), site.privacy.processors);
const SECRET = `whsec_${"A".repeat(32)}`;

describe("the calendar feeds' hosts", () => {
  it("reads calendars on the hosts privacy.calendar names, or on this machine; refuses the start otherwise", () => {
    const feeds = (BOOKING_FEEDS: string) => () =>
      loadConfig({ DATA_DIR: "/tmp/unused", BOOKING_FEEDS });
    expect(
      feeds(
        "https://outlook.office365.com/owa/calendar/x/calendar.ics http://127.0.0.1:8080/c.ics",
      ),
    ).not.toThrow();
    expect(feeds("https://calendar.google.com/calendar/ical/x/basic.ics")).toThrow(
      /^Invalid environment: BOOKING_FEEDS: reads a calendar at calendar\.google\.com, a host the privacy notice does not name .*privacy\.calendar\.hosts in app\/config\/site\.ts/,
    );
  });
});

describe("the processors' hosts", () => {
  it("starts with the hosts the notice names, and with receivers on this machine", () => {
    expect(check({})).toBeUndefined(); // email to files under DATA_DIR/mail/
    expect(check({ SMTP_URL: "smtp://u:p@smtp.office365.com:587" })).toBeUndefined();
    expect(
      check({ SMTP_URL: "smtp://contoso-com.mail.protection.outlook.com:25" }),
    ).toBeUndefined();
    expect(check({ SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T/B/x" })).toBeUndefined();
    expect(
      check({ WEBHOOK_URL: "https://api.hubapi.com/hooks/x", WEBHOOK_SECRET: SECRET }),
    ).toBeUndefined();
    expect(
      check({ SMTP_URL: "smtp://127.0.0.1:2525", SLACK_WEBHOOK_URL: "http://localhost:9/x" }),
    ).toBeUndefined();
  });

  it.each([
    [
      { SMTP_URL: "smtps://apikey:k@smtp.sendgrid.net:465" },
      "SMTP_URL",
      "smtp.sendgrid.net",
      "email",
    ],
    [
      { SLACK_WEBHOOK_URL: "https://discord.com/api/webhooks/1/x/slack" },
      "SLACK_WEBHOOK_URL",
      "discord.com",
      "slack",
    ],
    [
      { WEBHOOK_URL: "https://hooks.zapier.com/hooks/catch/1/x", WEBHOOK_SECRET: SECRET },
      "WEBHOOK_URL",
      "hooks.zapier.com",
      "webhook",
    ],
    [
      {
        CONTACT_ROUTES: JSON.stringify({
          "AI Consulting": { slack: "https://evilhooks.slack.com.example/x" },
        }),
      },
      'CONTACT_ROUTES["AI Consulting"].slack',
      "evilhooks.slack.com.example",
      "slack",
    ],
  ])(
    "refuses %j in one line naming the host and where to name it",
    (env, setting, host, channel) => {
      const said = check(env);
      expect(said).toBeDefined();
      expect(said?.split("\n")).toHaveLength(1);
      expect(
        said?.startsWith(
          `${setting} sends leads to ${host}, a host the privacy notice does not name`,
        ),
      ).toBe(true);
      expect(said).toContain(`privacy.processors.${channel}.hosts in app/config/site.ts`);
    },
  );

  it("matches a name exactly, or any host under a *.domain entry, never a look-alike", () => {
    expect(hostNamed("HOOKS.slack.com.", ["hooks.slack.com"])).toBe(true);
    expect(hostNamed("a.b.hubapi.com", ["*.hubapi.com"])).toBe(true);
    expect(hostNamed("hubapi.com", ["*.hubapi.com"])).toBe(false);
    expect(hostNamed("evilhubapi.com", ["*.hubapi.com"])).toBe(false);
    expect(hostNamed("hooks.slack.com.evil.example", ["hooks.slack.com"])).toBe(false);
  });
});
