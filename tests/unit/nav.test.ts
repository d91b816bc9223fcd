import { describe, expect, it } from "vitest";
import { isCurrent } from "~/pages";

describe("navigation highlighting", () => {
  it.each([
    ["/", "/", true],
    ["/", "/services", false],
    ["/services", "/services", true],
    ["/services", "/services/", true],
    ["/blog", "/blog/ai-infrastructure-us-goldmine", true],
    ["/blog", "/blogger", false],
    ["/contact", "/blog", false],
  ])("%s is current on %s: %s", (href, path, expected) => {
    expect(isCurrent(href, path)).toBe(expected);
  });
});
