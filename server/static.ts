import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Request, RequestHandler, Response } from "express";
import { contentType } from "mime-types";
import { site } from "../app/config/site.ts";
import {
  FIGURE_PLACEHOLDER,
  FORM_TOKEN_PLACEHOLDER,
  serviceOptions,
} from "../app/contact/fields.ts";
import { escapeHtml } from "../app/lib/escape.ts";
import { PAGE_HEADERS, policyForHtml } from "./security.ts";

/**
 * The prerendered site, read into memory once at start: every file with its brotli and gzip variants
 * (scripts/postbuild.js) and an ETag per encoding (RFC 9110 §8.8.3). The client build is a few hundred
 * kilobytes, so a request is a map lookup and a write. A page with a form token (the contact page) is
 * put together and compressed per request, never cached. The not-found pages are served from memory
 * with status 404, as cheap as a page (rendering one per request was 26 times dearer: an amplifier).
 */

// Cache-Control, here and in the static hosts' headers file (postbuild.js): hashed assets for ever;
// pages revalidated on every visit (cheap with the ETag), so a deploy is seen at once; the rest a day.
export const IMMUTABLE = "public, max-age=31536000, immutable";
export const HTML_CACHE = "public, max-age=0, must-revalidate";
const OTHER_CACHE = "public, max-age=86400";

// Where mime-types would say otherwise.
const TYPES: Record<string, string> = {
  ".data": "text/x-script; charset=utf-8",
  ".ico": "image/x-icon",
  ".xml": "application/xml; charset=utf-8",
};

export const typesByPath: Record<string, string> = {
  "/blog/rss.xml": "application/rss+xml; charset=utf-8",
  "/speculation-rules.json": "application/speculationrules+json",
};

export const walk = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

type Encoding = "identity" | "br" | "gzip";
const COMPRESS = {
  br: (page: Buffer) =>
    brotliCompressSync(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (page: Buffer) => gzipSync(page, { level: 6 }),
};

export type StaticFile = {
  body: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  type: string;
  etags: Record<Encoding, string>;
  headers: Record<string, string>;
  template?: [Buffer, Buffer];
};

function loadFile(path: string, rel: string, contactOrigin: string | null): StaticFile {
  const body = readFileSync(path);
  const variant = (ext: string) => (existsSync(path + ext) ? readFileSync(path + ext) : undefined);
  const ext = extname(path);
  const at = body.indexOf(FORM_TOKEN_PLACEHOLDER);
  const tag = createHash("sha1").update(body).digest("base64url").slice(0, 22);
  const type = typesByPath[rel] ?? TYPES[ext] ?? (contentType(ext) || "application/octet-stream");
  const cacheControl = rel.startsWith("/assets/")
    ? IMMUTABLE
    : ext === ".html"
      ? HTML_CACHE
      : OTHER_CACHE;
  const csp = ext === ".html" && {
    "Content-Security-Policy": policyForHtml(body.toString(), contactOrigin),
    ...PAGE_HEADERS,
  };
  return {
    body,
    br: variant(".br"),
    gzip: variant(".gz"),
    type,
    etags: { identity: `"${tag}"`, br: `"${tag}-br"`, gzip: `"${tag}-gz"` },
    headers: {
      "Content-Type": type,
      "Cache-Control": cacheControl,
      Vary: "Accept-Encoding",
      ...csp,
    },
    template:
      at >= 0 && ext === ".html"
        ? [body.subarray(0, at), body.subarray(at + FORM_TOKEN_PLACEHOLDER.length)]
        : undefined,
  };
}

const isNotFoundPage = (rel: string) => rel.endsWith("/404.html");

export type StaticFiles = Pick<Map<string, StaticFile>, "get" | "size">;

/**
 * The site as it is, overlaid by the newest state in build/scheduled/<date>/ whose date has come at
 * the office, read at each request: a post goes live at the office's midnight, no rebuild (ADR 0026).
 */
export function loadStaticFiles(root: string, contactOrigin: string | null): StaticFiles {
  const base = loadTree(root, contactOrigin);
  const scheduled = join(root, "../scheduled");
  if (!existsSync(scheduled)) return base;
  const newestFirst = readdirSync(scheduled).sort().reverse();
  const states = newestFirst.map(
    (date) => [date, loadTree(join(scheduled, date), contactOrigin)] as const,
  );
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: site.timeZone });
  return {
    size: base.size,
    get(path: string) {
      const date = today.format(Date.now());
      return states.find(([day]) => day <= date)?.[1].get(path) ?? base.get(path);
    },
  };
}

const relativeWalk = (root: string) =>
  walk(root).map((path) => [path, `/${relative(root, path).split(sep).join("/")}`] as const);

function loadTree(root: string, contactOrigin: string | null): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const [path, rel] of relativeWalk(root)) {
    if (path.endsWith(".br") || path.endsWith(".gz") || isNotFoundPage(rel)) continue;
    const entry = loadFile(path, rel, contactOrigin);
    files.set(rel, entry);
    if (rel.endsWith("/index.html")) {
      const dir = rel.slice(0, -"index.html".length);
      files.set(dir, entry);
      if (dir !== "/") files.set(dir.slice(0, -1), entry);
    }
  }
  return files;
}

export function loadNotFoundPages(
  root: string,
  contactOrigin: string | null,
): Array<[string, StaticFile]> {
  return relativeWalk(root)
    .filter(([, rel]) => isNotFoundPage(rel))
    .map(([path, rel]): [string, StaticFile] => [
      rel.slice(0, -"404.html".length),
      loadFile(path, rel, contactOrigin),
    ])
    .sort((a, b) => b[0].length - a[0].length);
}

type Filled = { token: string; figure?: string };

function send(req: Request, res: Response, file: StaticFile, status: number, fill?: Filled) {
  // The figure goes only into a page put together per request (no-store): no ETag to keep right.
  const html =
    fill !== undefined &&
    file.template &&
    preselect(
      Buffer.concat([
        withFigure(file.template[0], fill.figure),
        Buffer.from(fill.token),
        withFigure(file.template[1], fill.figure),
      ]),
      req.query.service,
    );
  // q-values, q=0 and * as RFC 9110 says, through Express's `accepts`.
  const offered = [(html || file.br) && "br", (html || file.gzip) && "gzip"].filter(
    (e): e is Encoding => Boolean(e),
  );
  const accepted = offered.length > 0 && req.acceptsEncodings(...offered, "identity");
  const encoding: Encoding = accepted === "br" || accepted === "gzip" ? accepted : "identity";
  const body =
    encoding === "identity"
      ? html || file.body
      : html
        ? COMPRESS[encoding](html)
        : (file[encoding] ?? file.body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(file.headers)) res.setHeader(name, value);
  if (html) res.setHeader("Cache-Control", "no-store");
  if (status === 200 && !html) {
    res.setHeader("ETag", file.etags[encoding]);
    // If-None-Match with weak comparison, lists and "*" (Express's req.fresh).
    if (req.fresh) return void res.status(304).end();
  }
  if (encoding !== "identity") res.setHeader("Content-Encoding", encoding);
  res.setHeader("Content-Length", body.length);
  res.end(req.method === "HEAD" ? undefined : body);
}

function withFigure(part: Buffer, figure: string | undefined): Buffer {
  const at = figure === undefined ? -1 : part.indexOf(FIGURE_PLACEHOLDER);
  if (at < 0) return part;
  const end = at + FIGURE_PLACEHOLDER.length;
  return Buffer.concat([part.subarray(0, at), Buffer.from(figure ?? ""), part.subarray(end)]);
}

/**
 * `/contact?service=AI+Consulting` (the services' buttons link so) chooses the service in the HTML
 * itself, so it holds without JavaScript; anything but one of the form's own choices changes nothing.
 */
function preselect(html: Buffer, service: unknown): Buffer {
  if (typeof service !== "string" || !serviceOptions.includes(service)) return html;
  const option = `<option value="${escapeHtml(service)}">`;
  const page = html.toString("utf8");
  if (!page.includes(option)) return html;
  return Buffer.from(
    page
      .replace('<option value="" selected="">', '<option value="">')
      .replace(option, option.replace(">", ' selected="">')),
  );
}

export function serveStatic(
  files: StaticFiles,
  { formToken, figure }: { formToken?: () => string; figure?: () => string } = {},
): RequestHandler {
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const file = files.get(req.path);
    if (!file) return next();
    const fill =
      file.template && formToken ? { token: formToken(), figure: figure?.() } : undefined;
    send(req, res, file, 200, fill);
  };
}

function answersFor(prefix: string, path: string): boolean {
  if (prefix === "/") return true;
  if (!path.startsWith(prefix)) return false;
  const rest = path.slice(prefix.length).replace(/\/$/, "");
  return rest !== "" && !rest.includes("/");
}

export function serveNotFound(pages: Array<[string, StaticFile]>): RequestHandler {
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const page = pages.find(([prefix]) => answersFor(prefix, req.path));
    if (!page) return next();
    send(req, res, page[1], 404);
  };
}
