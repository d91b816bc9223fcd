import { createHash } from "node:crypto";

/**
 * The site's security headers, in one place: the Node server sends them on every response, and
 * scripts/postbuild.js writes the same policy to build/client/_headers for static hosts.
 *
 * Content-Security-Policy: nothing is allowed unless listed (default-src 'none'); scripts only from
 * this origin and, on a page with inline scripts, exactly those scripts by their SHA-256 hash; a
 * page without scripts gets script-src 'none'.
 */

/** The SHA-256 source expressions of every inline <script> in an HTML document (JSON-LD data blocks aside). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*application\/ld\+json)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.add(
      `'sha256-${createHash("sha256")
        .update(m[1] ?? "", "utf8")
        .digest("base64")}'`,
    );
  }
  return [...hashes];
}

/** The origin of the contact endpoint when it is on another site (a hosted function); null for a path here. */
export function externalOrigin(endpoint: string): string | null {
  return endpoint.startsWith("/") ? null : new URL(endpoint).origin;
}

export function contentSecurityPolicy(opts: { scripts: string[] | null; contactOrigin?: string | null }): string {
  const extra = opts.contactOrigin ? ` ${opts.contactOrigin}` : "";
  const scriptSrc = opts.scripts ? ["'self'", ...opts.scripts].join(" ") : "'none'";
  return [
    "default-src 'none'",
    `script-src ${scriptSrc}`,
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${extra}`,
    "manifest-src 'self'",
    `form-action 'self'${extra}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/**
 * The CSP for one HTML document: its own inline scripts allowed by hash; 'self' scripts only if it
 * has any; the contact endpoint's origin when it is another site's (externalOrigin).
 */
export function policyForHtml(html: string, contactOrigin: string | null): string {
  const hashes = inlineScriptHashes(html);
  const hasScripts = hashes.length > 0 || /<script[^>]*\bsrc=/i.test(html);
  return contentSecurityPolicy({ scripts: hasScripts ? hashes : null, contactOrigin });
}

/** Headers every response carries (the CSP is added per response). */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy":
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

/**
 * Headers every HTML page carries besides its policy. Speculation rules (docs/decisions/0010): the
 * browser prerenders a page of this site when its link is hovered or pressed, with no script on
 * the page. Delete the line to turn prerendering off.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Speculation-Rules": '"/speculation-rules.json"',
};

/** Sent only over HTTPS (directly, or as a trusted proxy reports): two years, subdomains too. */
export const HSTS = "max-age=63072000; includeSubDomains";

/** The policy for responses that are not HTML (JSON, CSS, images): nothing may run or load. */
export const NON_HTML_POLICY = contentSecurityPolicy({ scripts: null });

/** The headers every answer starts with (a page then replaces the policy with its own). */
export function setBaseHeaders(res: { setHeader(name: string, value: string): unknown }, secure: boolean): void {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
  if (secure) res.setHeader("Strict-Transport-Security", HSTS);
}
