import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { walk } from "../../server/static.ts";

/**
 * Every built page, the not-found pages included, through the W3C Nu HTML Checker (vnu-jar, the
 * checker behind validator.w3.org/nu, run offline with Debian's Java). Errors fail; the
 * informational notes (React's `<meta/>` slashes) do not.
 */

const root = new URL("../../", import.meta.url).pathname;
const jar = `${root}node_modules/vnu-jar/build/dist/vnu.jar`;

type Message = { type: string; subType?: string; url: string; message: string; lastLine?: number };

describe("HTML validity (W3C Nu HTML Checker)", () => {
  it("finds no error in any built page", () => {
    const pages = [...walk(`${root}build/client`)].filter((p) => p.endsWith(".html"));
    expect(pages.length).toBeGreaterThanOrEqual(11);
    expect(pages.some((p) => p.endsWith("/404.html"))).toBe(true);
    expect(existsSync(jar)).toBe(true);
    let out: string;
    try {
      out = execFileSync(
        "java",
        ["-jar", jar, "--format", "json", "--stdout", "--exit-zero-always", ...pages],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          maxBuffer: 64 * 1024 * 1024,
        },
      );
    } catch (e) {
      throw new Error(
        `could not run the Nu HTML Checker (install Java: apt-get install default-jre-headless): ${e}`,
      );
    }
    const report = JSON.parse(out || "{}") as { messages?: Message[] };
    const errors = (report.messages ?? [])
      .filter((m) => m.type === "error" || m.subType === "fatal")
      .map((m) => `${m.url.replace(`file:${root}`, "")}:${m.lastLine}: ${m.message}`);
    expect(errors).toEqual([]);
  }, 120_000);
});
