import { isIP } from "node:net";
import { unescape as percentDecoded } from "node:querystring";
import type { Request, RequestHandler, Response } from "express";
import ipaddr from "ipaddr.js";

/** What is checked before any handler runs: no request exhausts the process or reaches one not meant for it. */

type Logger = { warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

// Answered without reading the body: Node discards a small declared one and keeps the connection;
// after a chunked or large one the connection closes.
const DRAIN_LIMIT = 32 * 1024;

function refuse(
  req: Request,
  res: Response,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  const length = req.headers["content-length"];
  const large =
    req.headers["transfer-encoding"] !== undefined ||
    (length !== undefined && !(Number(length) <= DRAIN_LIMIT));
  if (large) res.setHeader("Connection", "close");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).type("text/plain").send(text);
}

// The privacy notice says "never your address": only a proxy's, on this host or a private network, is logged.
const PROXY_RANGES = new Set([
  "loopback",
  "private",
  "linkLocal",
  "uniqueLocal",
  "carrierGradeNat",
]);

export function peerForLog(addr: string | undefined): string {
  if (!addr || !ipaddr.isValid(addr)) return "unknown";
  const ip = ipaddr.process(addr);
  if (PROXY_RANGES.has(ip.range())) return ip.toString();
  return `a public IPv${ip.kind() === "ipv4" ? 4 : 6} address (not logged: it may be a visitor's)`;
}

// Behind a proxy that is not trusted, every visitor shares the proxy's rate limit: said once.
export function warnUntrustedProxy(
  trust: (addr: string, i: number) => boolean,
  log: Logger,
): RequestHandler {
  let warned = false;
  return (req, _res, next) => {
    const peer = req.socket.remoteAddress ?? "";
    if (!warned && req.headers["x-forwarded-for"] !== undefined && !trust(peer, 0)) {
      warned = true;
      log.warn(
        { peer: peerForLog(peer) },
        "requests carry X-Forwarded-For from an address TRUST_PROXY does not trust: if a proxy at this address forwards your visitors, set TRUST_PROXY to it, or every visitor shares one rate limit",
      );
    }
    next();
  };
}

/**
 * A client address as it is limited (IPv6: its /64, which one subscriber holds), and its network
 * (IPv4 /24, IPv6 /48), for an attacker who rotates addresses.
 */
export function clientKeys(ip: string): { address: string; network: string } | null {
  if (isIP(ip) === 0) return null;
  const addr = ipaddr.process(ip);
  if (addr.kind() === "ipv4") {
    const o = addr.toByteArray();
    return { address: addr.toString(), network: `${o[0]}.${o[1]}.${o[2]}.0/24` };
  }
  const h = (addr as ipaddr.IPv6).parts.map((n) => n.toString(16));
  return { address: `${h.slice(0, 4).join(":")}::/64`, network: `${h.slice(0, 3).join(":")}::/48` };
}

// A Location is never built from a Host we do not know: a cache in front could be poisoned with it.
export function httpsRedirect(allowedHosts: Set<string>, log: Logger): RequestHandler {
  let warned = false;
  return (req, res, next) => {
    if (!req.get("x-forwarded-proto") || req.protocol !== "http") return next();
    const host = (req.get("host") ?? "").toLowerCase();
    if (!allowedHosts.has(host))
      return refuse(req, res, 421, "This server does not serve that host.");
    if (!warned && /^https$/i.test(req.get("x-forwarded-proto") ?? "")) {
      warned = true;
      log.error(
        { peer: peerForLog(req.socket.remoteAddress) },
        "redirect loop: a proxy reports HTTPS (X-Forwarded-Proto: https) from an address TRUST_PROXY does not trust, so every request is redirected to itself. Set TRUST_PROXY to that proxy (docs/operations.md, Behind a proxy)",
      );
    }
    res.redirect(308, `https://${host}${req.originalUrl}`);
  };
}

export const hostsOf = (origins: string[]) =>
  new Set(origins.map((o) => new URL(o).host.toLowerCase()));

/** /Contact, /%63ontact, //contact/ are redirected to /contact. */
export function canonicalRedirect(isPage: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || isPage(req.path)) return next();
    // Malformed escapes stay as they are (and name no page).
    const decoded = percentDecoded(req.path).toLowerCase();
    const path = decoded.replace(/\/{2,}/g, "/").replace(/(.)\/+$/, "$1");
    if (path === req.path || !isPage(path) || path.includes("\\")) return next();
    const query = req.originalUrl.indexOf("?");
    res.redirect(301, path + (query >= 0 ? req.originalUrl.slice(query) : ""));
  };
}

/** Nothing but a POST to the form's own paths (a trailing slash or not, as Express routes) reaches the page router with a body. */
export function methodGuard(opts: {
  isKnown: (path: string) => boolean;
  formPaths: string[];
}): RequestHandler {
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    const form = opts.formPaths.includes(req.path.replace(/(.)\/$/, "$1"));
    if (form && req.method === "POST") return next();
    if (!form && !opts.isKnown(req.path)) return refuse(req, res, 404, "Not Found");
    refuse(req, res, 405, "Method Not Allowed", { Allow: form ? "GET, HEAD, POST" : "GET, HEAD" });
  };
}

export function bodyLimit(max: number, skip: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (skip(req)) return next();
    const length = req.headers["content-length"];
    if (length !== undefined && !(Number(length) <= max))
      return refuse(req, res, 413, `Request body too large (at most ${max / 1024} KB).`);
    next();
  };
}

// UTF-8 is the only charset decoded (JSON's, RFC 8259): utf-16, utf-7 and the rest are refused.
export function isUtf8(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  return !charset || charset === "utf-8" || charset === "utf8";
}

/** The no-JavaScript form post, checked before React Router buffers and parses it (bodyLimit capped it). */
export function formPostGuard(): RequestHandler {
  return (req, res, next) => {
    // A browser always sends a form's length, and bodyLimit caps only a declared one.
    if (req.get("content-length") === undefined) return refuse(req, res, 411, "Length Required");
    if (!req.is(["urlencoded", "multipart/form-data"]))
      return refuse(req, res, 415, "Send the form as a form (urlencoded or multipart).");
    if (!isUtf8(req.get("content-type"))) return refuse(req, res, 415, "Send the form in UTF-8.");
    next();
  };
}

const bareHost = (host: string) => host.replace(/^\[|\]$|\.$/g, "").toLowerCase();

export function isLoopbackHost(host: string): boolean {
  const bare = bareHost(host);
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === "loopback";
}

/** This machine, or a name reserved for examples and tests (RFC 2606, RFC 6761): nobody's public host. */
export const isReservedHost = (host: string) =>
  isLoopbackHost(host) || /(^|\.)(example(\.(com|net|org))?|test|invalid)$/.test(bareHost(host));
