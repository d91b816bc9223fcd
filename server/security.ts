import { createHash } from "node:crypto";

/**
 * The site's security headers, in one place: the Node server sends them on every response, and
 * scripts/postbuild.js writes the same policy to build/client/_headers for static hosts. The
 * Content-Security-Policy allows nothing unless listed (default-src 'none'); scripts only from this
 * origin and, on a page with inline scripts, exactly those by their SHA-256 hash (JSON-LD data
 * blocks aside); a page without scripts gets script-src 'none', and so does anything not HTML. The
 * contact endpoint's origin is allowed when it is another site's (a hosted function). Every page
 * carries the speculation rules (docs/decisions/0010): the browser prerenders a page of this site
 * when its link is hovered or pressed, with no script; delete that line to turn it off. HSTS is sent
 * only over HTTPS (directly, or as a trusted proxy reports).
 */

export const inlineScriptHashes = (html: string) => [
  ...new Set(
    Array.from(
      html.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*application\/ld\+json)[^>]*>([\s\S]*?)<\/script>/gi),
      (m) =>
        `'sha256-${createHash("sha256")
          .update(m[1] ?? "", "utf8")
          .digest("base64")}'`,
    ),
  ),
];

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

export function policyForHtml(html: string, contactOrigin: string | null): string {
  const hashes = inlineScriptHashes(html);
  const hasScripts = hashes.length > 0 || /<script[^>]*\bsrc=/i.test(html);
  return contentSecurityPolicy({ scripts: hasScripts ? hashes : null, contactOrigin });
}

export const BASE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy":
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Speculation-Rules": '"/speculation-rules.json"',
};

export const HSTS = "max-age=63072000; includeSubDomains";

export const NON_HTML_POLICY = contentSecurityPolicy({ scripts: null });

export function setBaseHeaders(res: { setHeader(name: string, value: string): unknown }, secure: boolean): void {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
  if (secure) res.setHeader("Strict-Transport-Security", HSTS);
}
