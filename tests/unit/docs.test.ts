import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inquiryPayload } from "../../server/contact/delivery/channel.ts";
import { LOCK_WAIT_MS } from "../../server/contact/storage/sqlite.ts";

/** What the documents promise an operator, read against the code that does it. */

const api = readFileSync(new URL("../../docs/contact-api.md", import.meta.url), "utf8");

describe("docs/contact-api.md", () => {
  it("shows the webhook payload the code sends, field for field", () => {
    const block = /```json\n(\{ "type": "inquiry\.received"[\s\S]*?)\n```/.exec(api)?.[1];
    expect(block).toBeTruthy();
    const example = JSON.parse(block ?? "{}");
    const sent = inquiryPayload({
      id: "i",
      receivedAt: 0,
      name: "n",
      email: "e@example.org",
      company: "",
      service: "",
      message: "m",
      page: "/contact",
      userAgent: null,
      ipHash: null,
      source: "api",
      held: false,
    });
    expect(Object.keys(example)).toEqual(["type", "timestamp", "data"]);
    expect(Object.keys(example.data)).toEqual(Object.keys(sent));
  });

  it("gives the lock wait the SQLite engine uses", () => {
    expect(api).toContain(`locked by another process for more than ${LOCK_WAIT_MS / 1000} s`);
  });
});
