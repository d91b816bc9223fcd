import { describe, expect, it } from "vitest";
import { classifyHttp, parseRetryAfter } from "../../server/contact/delivery/channel.ts";
import { escapeSlack, slackMessage } from "../../server/contact/delivery/slack.ts";

/** What a receiver's HTTP answer means to the outbox, and Slack's limits (delivery/channel.ts, slack.ts). */
const valid = {
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "",
  service: "",
  message: "Hello",
};

describe("what an HTTP answer means", () => {
  it.each([
    [200, "delivered"],
    [204, "delivered"],
    [301, "permanent"],
    [400, "permanent"],
    [401, "retry"],
    [403, "retry"],
    [404, "permanent"],
    [410, "permanent"],
    [408, "retry"],
    [429, "retry"],
    [500, "retry"],
    [503, "retry"],
  ])("HTTP %i → %s", (status, kind) => {
    expect(classifyHttp(status, null).kind).toBe(kind);
  });
  it("reads Retry-After in seconds or as a date, and caps it at a day", () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(parseRetryAfter("30", now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter("999999", now)).toBe(86_400_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
  it("cuts a long message for Slack at its limit without splitting a character, and says it was cut", () => {
    const inquiry = {
      ...valid,
      id: "i1",
      receivedAt: Date.now(),
      page: null,
      userAgent: null,
      ipHash: null,
      source: "api" as const,
      held: false,
      company: "",
      service: "",
      message: "😀".repeat(3500),
    };
    // The message's section is the one before the context line (a "Reply by" section may precede it).
    const messageOf = (blocks: Array<{ type: string; text?: unknown }>) =>
      (blocks[blocks.findIndex((b) => b.type === "context") - 1] as { text: { text: string } }).text
        .text;
    const text = messageOf(slackMessage(inquiry, []).blocks);
    expect(Array.from(text).length).toBeLessThanOrEqual(3000);
    expect(text).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
    expect(text).toMatch(/cut: the whole message is in the email\)$/);
    expect(messageOf(slackMessage({ ...inquiry, message: "Short." }, []).blocks)).toBe("Short.");
  });

  it("escapes Slack's three control characters", () => {
    expect(escapeSlack("<!here> & <@U1>")).toBe("&lt;!here&gt; &amp; &lt;@U1&gt;");
  });
});
