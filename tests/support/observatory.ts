/**
 * Mozilla HTTP Observatory's published scoring (algorithm version 4: the tests, their outcomes and
 * score modifiers as the MDN HTTP Observatory documents and grades them), applied to one page's
 * response headers and HTML. A score of 100 or more is an A+; extra credit counts only when the
 * score without it is at least 90.
 *
 * Written here rather than installed: the @mdn/mdn-http-observatory package's dependencies download
 * a certificate bundle from the internet while installing, which this network refuses.
 */

export type PageResponse = {
  /** The response to https://host/path (as a TLS proxy would pass it). */
  https: { status: number; headers: Record<string, string>; body: string };
  /** Where http://host/path first redirects to, with its status (null: no redirect). */
  httpRedirect: { status: number; location: string } | null;
  host: string;
};

export type TestOutcome = { test: string; result: string; modifier: number };

const SIX_MONTHS = 15_768_000;

function parseCsp(header: string | undefined): Map<string, string[]> | null {
  if (!header) return null;
  const map = new Map<string, string[]>();
  for (const part of header.split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (!name) continue;
    if (map.has(name.toLowerCase())) return null; // duplicate directives make the policy suspect
    map.set(name.toLowerCase(), values);
  }
  return map;
}

function cspTest(h: Record<string, string>): TestOutcome {
  const csp = parseCsp(h["content-security-policy"]);
  const out = (result: string, modifier: number) => ({ test: "content-security-policy", result, modifier });
  if (!csp) return out("csp-not-implemented", -25);
  const fallback = (d: string) => csp.get(d) ?? csp.get("default-src") ?? [];
  const scriptSrc = fallback("script-src");
  const styleSrc = fallback("style-src");
  const active = [...scriptSrc, ...fallback("object-src")];
  const passive = [...fallback("img-src"), ...fallback("media-src"), ...fallback("font-src")];
  if (active.includes("'unsafe-inline'")) return out("csp-implemented-with-unsafe-inline", -20);
  if (active.some((s) => /^(http:|\*$)/i.test(s))) return out("csp-implemented-with-insecure-scheme", -20);
  if (scriptSrc.includes("'unsafe-eval'")) return out("csp-implemented-with-unsafe-eval", -10);
  if (passive.some((s) => /^http:/i.test(s)))
    return out("csp-implemented-with-insecure-scheme-in-passive-content-only", -10);
  if (styleSrc.includes("'unsafe-inline'")) return out("csp-implemented-with-unsafe-inline-in-style-src-only", 0);
  const defaultNone = (csp.get("default-src") ?? []).join(" ") === "'none'";
  return defaultNone
    ? out("csp-implemented-with-no-unsafe-default-src-none", 10)
    : out("csp-implemented-with-no-unsafe", 5);
}

function cookiesTest(h: Record<string, string>): TestOutcome {
  // No cookies at all is the site's design; any cookie fails this check outright here.
  return h["set-cookie"]
    ? { test: "cookies", result: "cookies-found (the site sets none by design)", modifier: -40 }
    : { test: "cookies", result: "cookies-not-found", modifier: 0 };
}

function corsTest(h: Record<string, string>): TestOutcome {
  const acao = h["access-control-allow-origin"];
  if (!acao)
    return {
      test: "cross-origin-resource-sharing",
      result: "cross-origin-resource-sharing-not-implemented",
      modifier: 0,
    };
  return acao.trim() === "*"
    ? {
        test: "cross-origin-resource-sharing",
        result: "cross-origin-resource-sharing-implemented-with-public-access",
        modifier: 0,
      }
    : {
        test: "cross-origin-resource-sharing",
        result: "cross-origin-resource-sharing-implemented-with-restricted-access",
        modifier: 0,
      };
}

function redirectionTest(r: PageResponse): TestOutcome {
  const out = (result: string, modifier: number) => ({ test: "redirection", result, modifier });
  if (!r.httpRedirect) return out("redirection-missing", -20);
  const target = new URL(r.httpRedirect.location);
  if (target.protocol !== "https:") return out("redirection-not-to-https-on-initial-redirection", -10);
  if (target.hostname !== r.host) return out("redirection-off-host-from-http", -5);
  return out("redirection-to-https", 0);
}

function referrerTest(h: Record<string, string>): TestOutcome {
  const policy = (h["referrer-policy"] ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
    .at(-1);
  const out = (result: string, modifier: number) => ({ test: "referrer-policy", result, modifier });
  if (!policy) return out("referrer-policy-not-implemented", 0);
  if (["no-referrer", "same-origin", "strict-origin", "strict-origin-when-cross-origin"].includes(policy)) {
    return out("referrer-policy-private", 5);
  }
  if (["origin", "origin-when-cross-origin", "unsafe-url", "no-referrer-when-downgrade"].includes(policy)) {
    return out("referrer-policy-unsafe", -5);
  }
  return out("referrer-policy-header-invalid", -5);
}

function hstsTest(h: Record<string, string>): TestOutcome {
  const header = h["strict-transport-security"];
  const out = (result: string, modifier: number) => ({ test: "strict-transport-security", result, modifier });
  if (!header) return out("hsts-not-implemented", -20);
  const maxAge = /max-age\s*=\s*"?(\d+)"?/i.exec(header)?.[1];
  if (maxAge === undefined) return out("hsts-header-invalid", -20);
  return Number(maxAge) >= SIX_MONTHS
    ? out("hsts-implemented-max-age-at-least-six-months", 0)
    : out("hsts-implemented-max-age-less-than-six-months", -10);
}

function sriTest(r: PageResponse): TestOutcome {
  const out = (result: string, modifier: number) => ({ test: "subresource-integrity", result, modifier });
  if (!/^text\/html/.test(r.https.headers["content-type"] ?? ""))
    return out("sri-not-implemented-response-not-html", 0);
  const scripts = [...r.https.body.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/gi)].map((m) => m[1] ?? "");
  if (scripts.length === 0) return out("sri-not-implemented-but-no-scripts-loaded", 0);
  const external = scripts.filter(
    (s) => /^(https?:)?\/\//i.test(s) && new URL(s, `https://${r.host}`).hostname !== r.host,
  );
  if (external.length === 0) return out("sri-not-implemented-but-all-scripts-loaded-from-secure-origin", 0);
  return out("sri-not-implemented-but-external-scripts-loaded-securely", -5);
}

function xctoTest(h: Record<string, string>): TestOutcome {
  const v = h["x-content-type-options"];
  if (!v) return { test: "x-content-type-options", result: "x-content-type-options-not-implemented", modifier: -5 };
  return v.trim().toLowerCase() === "nosniff"
    ? { test: "x-content-type-options", result: "x-content-type-options-nosniff", modifier: 0 }
    : { test: "x-content-type-options", result: "x-content-type-options-header-invalid", modifier: -5 };
}

function xfoTest(h: Record<string, string>): TestOutcome {
  const csp = parseCsp(h["content-security-policy"]);
  const ancestors = csp?.get("frame-ancestors");
  if (ancestors && ancestors.length > 0 && !ancestors.includes("*")) {
    return { test: "x-frame-options", result: "x-frame-options-implemented-via-csp", modifier: 5 };
  }
  const xfo = (h["x-frame-options"] ?? "").trim().toLowerCase();
  if (!xfo) return { test: "x-frame-options", result: "x-frame-options-not-implemented", modifier: -20 };
  return ["deny", "sameorigin"].includes(xfo)
    ? { test: "x-frame-options", result: "x-frame-options-sameorigin-or-deny", modifier: 0 }
    : { test: "x-frame-options", result: "x-frame-options-header-invalid", modifier: -20 };
}

function corpTest(h: Record<string, string>): TestOutcome {
  const v = (h["cross-origin-resource-policy"] ?? "").trim().toLowerCase();
  const out = (result: string, modifier: number) => ({ test: "cross-origin-resource-policy", result, modifier });
  if (!v) return out("corp-not-implemented", 0);
  if (v === "same-origin") return out("corp-implemented-with-same-origin", 10);
  if (v === "same-site") return out("corp-implemented-with-same-site", 10);
  if (v === "cross-origin") return out("corp-implemented-with-cross-origin", 0);
  return out("corp-header-invalid", -5);
}

export function gradeFor(score: number): string {
  const chart: Array<[number, string]> = [
    [100, "A+"],
    [90, "A"],
    [85, "A-"],
    [80, "B+"],
    [70, "B"],
    [65, "B-"],
    [60, "C+"],
    [50, "C"],
    [45, "C-"],
    [40, "D+"],
    [30, "D"],
    [25, "D-"],
    [0, "F"],
  ];
  return chart.find(([min]) => score >= min)?.[1] ?? "F";
}

export function observatoryScore(r: PageResponse): { score: number; grade: string; tests: TestOutcome[] } {
  const h = Object.fromEntries(Object.entries(r.https.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const tests = [
    cspTest(h),
    cookiesTest(h),
    corsTest(h),
    redirectionTest(r),
    referrerTest(h),
    hstsTest(h),
    sriTest(r),
    xctoTest(h),
    xfoTest(h),
    corpTest(h),
  ];
  const penalties = tests.reduce((n, t) => n + Math.min(0, t.modifier), 0);
  const bonuses = tests.reduce((n, t) => n + Math.max(0, t.modifier), 0);
  const uncurved = 100 + penalties;
  const score = uncurved >= 90 ? uncurved + bonuses : uncurved;
  return { score, grade: gradeFor(score), tests };
}
