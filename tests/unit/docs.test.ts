import { readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inquiryPayload } from "../../server/contact/delivery/channel.ts";
import { LOCK_WAIT_MS } from "../../server/contact/storage/sqlite.ts";
import { attachedTestKeys } from "../support/keys.ts";

/** What the documents promise an operator, read against the code that does it. */

const api = readFileSync(new URL("../../docs/contact-api.md", import.meta.url), "utf8");

describe("docs/contact-api.md", () => {
  it("shows the webhook payload the code sends, field for field", async () => {
    const keys = await attachedTestKeys();
    const block = /```json\n(\{ "type": "inquiry\.received"[\s\S]*?)\n```/.exec(api)?.[1];
    expect(block).toBeTruthy();
    const example = JSON.parse(block ?? "{}");
    const sent = inquiryPayload(
      {
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
        suspect: true,
        spamScore: 0.734,
      },
      keys.links,
    );
    expect(Object.keys(example)).toEqual(["type", "timestamp", "data"]);
    expect(Object.keys(example.data)).toEqual(Object.keys(sent));
    expect(Object.keys(example.data.links)).toEqual(Object.keys(sent.links));
    expect(Object.keys(example.data.spam)).toEqual(Object.keys(sent.spam));
    expect(Object.keys(example.data.reply)).toEqual(Object.keys(sent.reply));
    expect(example.data.reply.promiseBusinessHours).toBe(sent.reply.promiseBusinessHours);
  });

  it("gives the lock wait the SQLite engine uses", () => {
    expect(api).toContain(`locked by another process for more than ${LOCK_WAIT_MS / 1000} s`);
  });
});

describe("the documents' own limits (docs/decisions and the newcomer's page)", () => {
  const root = new URL("../../", import.meta.url);
  it("README.md stays under 6.5 KB", () => {
    expect(statSync(new URL("README.md", root)).size).toBeLessThan(6_500);
  });

  it("each decision record decides in under 4 KB (measurement history goes to bench/)", () => {
    const dir = new URL("docs/decisions/", root);
    const over = readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .map((f) => [f, statSync(new URL(f, dir)).size] as const)
      .filter(([, size]) => size >= 4_000);
    expect(over).toEqual([]);
  });
});
