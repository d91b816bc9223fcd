import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { policyForHtml } from "./security.ts";

/**
 * The prerendered site, read into memory once at start: every page and asset with its brotli and
 * gzip variants (made by scripts/postbuild.js) and an ETag. The whole client build is a few hundred
 * kilobytes, so a request is a map lookup and a write — no file system access, no per-request compression.
 *
 * `/contact`, `/contact/` and `/contact/index.html` are the same page: no redirects.
 */

export const contentTypes = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".data": "text/x-script; charset=utf-8",
  ".woff2": "font/woff2",
};

export const IMMUTABLE = "public, max-age=31536000, immutable";
export const HTML_CACHE = "public, max-age=0, must-revalidate";
export const OTHER_CACHE = "public, max-age=86400";

/** Every file below `dir`. */
export function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** @returns {Map<string, {body: Buffer, br?: Buffer, gzip?: Buffer, type: string, etag: string, cacheControl: string, csp?: string}>} */
export function loadStaticFiles(root) {
  const files = new Map();
  for (const path of walk(root)) {
    if (path.endsWith(".br") || path.endsWith(".gz")) continue;
    const rel = `/${relative(root, path).split(sep).join("/")}`;
    const body = readFileSync(path);
    const variant = (ext) => {
      try {
        return readFileSync(path + ext);
      } catch {
        return undefined;
      }
    };
    const ext = extname(path);
    const entry = {
      body,
      br: variant(".br"),
      gzip: variant(".gz"),
      type: rel.endsWith("/rss.xml")
        ? "application/rss+xml; charset=utf-8"
        : (contentTypes[ext] ?? "application/octet-stream"),
      etag: `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`,
      cacheControl: rel.startsWith("/assets/") ? IMMUTABLE : ext === ".html" ? HTML_CACHE : OTHER_CACHE,
      // A page's own policy: its inline scripts allowed by hash (other files keep the server's default).
      csp: ext === ".html" ? policyForHtml(body.toString("utf8")) : undefined,
    };
    files.set(rel, entry);
    if (rel.endsWith("/index.html")) {
      const dir = rel.slice(0, -"index.html".length); // "/contact/" or "/"
      files.set(dir, entry);
      if (dir !== "/") files.set(dir.slice(0, -1), entry);
    }
  }
  return files;
}

/** Express middleware: answer GET and HEAD for a known file, pass everything else on. */
export function serveStatic(files) {
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const file = files.get(req.path);
    if (!file) return next();
    const accept = String(req.headers["accept-encoding"] ?? "");
    res.setHeader("Content-Type", file.type);
    res.setHeader("Cache-Control", file.cacheControl);
    res.setHeader("ETag", file.etag);
    res.setHeader("Vary", "Accept-Encoding");
    if (file.csp) res.setHeader("Content-Security-Policy", file.csp);
    if (req.headers["if-none-match"] === file.etag) {
      res.statusCode = 304;
      return res.end();
    }
    let body = file.body;
    if (file.br && /\bbr\b/.test(accept)) {
      body = file.br;
      res.setHeader("Content-Encoding", "br");
    } else if (file.gzip && /\bgzip\b/.test(accept)) {
      body = file.gzip;
      res.setHeader("Content-Encoding", "gzip");
    }
    res.setHeader("Content-Length", body.length);
    res.statusCode = 200;
    res.end(body);
  };
}
