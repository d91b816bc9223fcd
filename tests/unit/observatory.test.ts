import { describe, expect, it } from "vitest";
import { BASE_HEADERS, HSTS, policyForHtml } from "../../server/security.ts";
import { gradeFor, observatoryScore, type PageResponse } from "../support/observatory.ts";

/**
 * The Observatory grader the security tests rely on, on header sets whose scores follow by hand
 * from Mozilla's published modifiers (MDN HTTP Observatory, scoring algorithm 4).
 */

const page = (headers: Record<string, string>, body = "<html><body><p>Hi</p></body></html>"): PageResponse => ({
  https: { status: 200, headers, body },
  httpRedirect: null,
  host: "www.example.com",
});
const modifier = (r: ReturnType<typeof observatoryScore>, test: string) => r.tests.find((t) => t.test === test);

describe("the Observatory grader", () => {
  it("a site with no security headers and no HTTPS redirect: 10, F", () => {
    const r = observatoryScore(page({ "content-type": "text/html" }));
    // CSP -25, no redirection to HTTPS -20, HSTS -20, X-Content-Type-Options -5, X-Frame-Options -20.
    expect(modifier(r, "content-security-policy")).toMatchObject({ result: "csp-not-implemented", modifier: -25 });
    expect(modifier(r, "strict-transport-security")?.modifier).toBe(-20);
    expect(modifier(r, "x-content-type-options")?.modifier).toBe(-5);
    expect(modifier(r, "x-frame-options")?.modifier).toBe(-20);
    expect(modifier(r, "redirection")?.modifier).toBe(-20);
    expect(r.score).toBe(10);
    expect(r.grade).toBe("F");
  });

  it("this site's headers, with the redirect: A+ with every bonus", () => {
    const html = "<html><body><p>Hi</p></body></html>";
    const r = observatoryScore({
      https: {
        status: 200,
        body: html,
        headers: { ...BASE_HEADERS, "Strict-Transport-Security": HSTS, "Content-Security-Policy": policyForHtml(html) },
      },
      httpRedirect: { status: 308, location: "https://www.example.com/" },
      host: "www.example.com",
    });
    expect(r.tests.filter((t) => t.modifier < 0)).toEqual([]);
    expect(r.score).toBeGreaterThanOrEqual(100);
    expect(r.grade).toBe("A+");
  });

  it("'unsafe-inline' in script-src costs the CSP its credit and more", () => {
    const r = observatoryScore(
      page({
        ...BASE_HEADERS,
        "Strict-Transport-Security": HSTS,
        "Content-Security-Policy": "default-src 'none'; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      }),
    );
    expect(modifier(r, "content-security-policy")?.modifier).toBeLessThan(0);
    expect(r.grade).not.toBe("A+");
  });

  it("grades scores on Mozilla's chart", () => {
    expect([100, 95, 85, 80, 72, 65, 60, 50, 45, 40, 30, 25, 0].map(gradeFor)).toEqual([
      "A+",
      "A",
      "A-",
      "B+",
      "B",
      "B-",
      "C+",
      "C",
      "C-",
      "D+",
      "D",
      "D-",
      "F",
    ]);
  });
});
