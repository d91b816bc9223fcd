import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, inlineScriptHashes, policyForHtml } from "../../server/security.ts";

/** The CSP a page gets: its own inline scripts by hash, nothing else inline. */

const sha = (s: string) => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`;

describe("inline script hashes", () => {
  const html = `<html><head>
    <script>window.a = 1;</script>
    <script type="application/ld+json">{"@type":"Thing"}</script>
    <script type="module" src="/assets/x.js"></script>
    <script type="module">import("/assets/y.js");</script>
  </head><body><script>window.a = 1;</script></body></html>`;

  it("hashes exactly the inline scripts, once each, and not JSON-LD or external scripts", () => {
    expect(inlineScriptHashes(html).sort()).toEqual(
      [sha("window.a = 1;"), sha('import("/assets/y.js");')].sort(),
    );
  });

  it("puts those hashes, and 'self', in script-src; a page without scripts gets 'none'", () => {
    const policy = policyForHtml(html, null);
    const scriptSrc = /script-src ([^;]+)/.exec(policy)?.[1] ?? "";
    expect(scriptSrc.split(" ").sort()).toEqual(
      ["'self'", sha("window.a = 1;"), sha('import("/assets/y.js");')].sort(),
    );
    expect(policy).not.toContain("unsafe");
    expect(policyForHtml("<html><body><p>No scripts</p></body></html>", null)).toMatch(
      /script-src 'none'/,
    );
  });

  it("starts from default-src 'none' and forbids framing and base changes", () => {
    const policy = contentSecurityPolicy({ scripts: null });
    for (const d of ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"])
      expect(policy).toContain(d);
  });
});
