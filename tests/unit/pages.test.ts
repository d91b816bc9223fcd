import { describe, expect, it } from "vitest";
import { isCurrent, link, pagePaths, pages, postLink } from "#app/pages.ts";

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

describe("links read from the route table", () => {
  it("a post's link is its row's path with the slug filled in", () => {
    expect([postLink("some-post")]).toEqual(pagePaths(["some-post"], (p) => p.name === "post"));
  });
  it("every page but the post pattern has a named link to its path", () => {
    for (const p of pages)
      if (p.name !== "post") expect(link[p.name as keyof typeof link]).toBe(p.path);
  });
});
