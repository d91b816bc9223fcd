import { createHash } from "node:crypto";
import type { RequestHandler } from "express";

/**
 * The site's security headers, in one place (scripts/postbuild.js writes the same to _headers for
 * static hosts). The Content-Security-Policy allows nothing unless listed: a page's inline scripts
 * by their SHA-256 hash (JSON-LD is data, never run). Every page carries the speculation rules
 * (ADR 0010; delete that line to turn them off).
 */

const INLINE_SCRIPT =
  /<script(?![^>]*\bsrc=)(?![^>]*application\/ld\+json)[^>]*>([\s\S]*?)<\/script>/gi;
const sha256 = (text: string) =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
export const inlineScriptHashes = (html: string) => [
  ...new Set(Array.from(html.matchAll(INLINE_SCRIPT), (m) => sha256(m[1] ?? ""))),
];

export function externalOrigin(endpoint: string): string | null {
  return endpoint.startsWith("/") ? null : new URL(endpoint).origin;
}

export function contentSecurityPolicy(opts: {
  scripts: string[] | null;
  contactOrigin?: string | null;
}): string {
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

export const setBaseHeaders: RequestHandler = (req, res, next) => {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  res.setHeader("Content-Security-Policy", NON_HTML_POLICY);
  if (req.secure) res.setHeader("Strict-Transport-Security", HSTS);
  next();
};
