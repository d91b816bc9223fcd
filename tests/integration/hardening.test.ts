import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PUBLIC_KEY } from "../../app/contact/api.ts";
import { addressHasher, loadAddressSecret } from "../../server/contact/intake/address-hash.ts";
import { raw, rssMb, streamChunked } from "../support/http";
import { type RunningServer, startServer } from "../support/server";

/**
 * Issue 8: nothing a visitor sends and nothing an operator does takes the server down. Each block
 * reproduces one way the server used to fall over or mislead, against the production server.
 */

const valid = { name: "Ada Lovelace", email: "ada@example.org", company: "", service: "", message: "Hello" };
// The page's anonymous public key (spec §7), as the contact page sends it.
const json = { "content-type": "application/json", authorization: `Bearer ${DEFAULT_PUBLIC_KEY}` };
let ipCounter = 0;
const nextIp = () => `203.0.113.${(ipCounter++ % 250) + 1}`;

const root = new URL("../../", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("a held SQLite write lock", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ OUTBOX_POLL_MS: "200" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers 503 with Retry-After while it lasts, keeps serving pages, and recovers", async () => {
    const post = () =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": nextIp() },
        body: JSON.stringify(valid),
      });
    expect((await post()).status).toBe(201);

    // An operator's sqlite3 session (or a backup, a long purge) takes the write lock and keeps it.
    const other = new DatabaseSync(join(server.dataDir, "inquiries.sqlite"));
    other.exec("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE");
    try {
      const started = Date.now();
      const during = await post();
      expect(during.status).toBe(503);
      expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await during.json()).error).toMatch(/try again/i);
      expect(Date.now() - started).toBeLessThan(8_000);
      // Pages keep coming, quickly, while the outbox keeps meeting the lock in the background.
      for (let i = 0; i < 10; i++) {
        const t = Date.now();
        const page = await fetch(`${server.url}/services`);
        expect(page.status).toBe(200);
        expect(Date.now() - t).toBeLessThan(500);
        await sleep(500);
      }
      expect(server.child.exitCode).toBeNull();
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // The lock is gone: submissions are stored again.
    const after = await post();
    expect(after.status).toBe(201);
    await sleep(300);
    expect(server.child.exitCode).toBeNull();
    const log = lines(server.output());
    expect(log.filter((l) => l.msg === "storage unavailable")).toHaveLength(1);
    expect(log.filter((l) => l.msg === "storage available again").length).toBeGreaterThanOrEqual(1);
    expect(server.output()).not.toMatch(/unhandled|\n\s+at /i);
  }, 60_000);
});

/** Inquiries stored in a server's SQLite database. */
function storedCount(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "inquiries.sqlite"), { readOnly: true });
  try {
    return Number((db.prepare("SELECT COUNT(*) AS n FROM inquiries").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

const FORM_BODY = "name=Ada+Lovelace&email=ada%40example.org&message=Hello";
const formHeaders = (ip = nextIp()) => ({
  "content-type": "application/x-www-form-urlencoded",
  "x-forwarded-for": ip,
});

describe("requests that used to crash, exhaust or mislead the server", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_MINUTE: "5", RATE_LIMIT_NETWORK_PER_MINUTE: "20" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const BODY_PATHS = [
    "/contact",
    "/contact/",
    "/contact.data",
    "/contact//",
    "/%63ontact",
    "/contact/.data",
    "/Contact",
    "/",
    "/blog/nope",
    "/_root.data",
  ];

  it("caps every body by every path and method before buffering it (item 2)", async () => {
    const before = rssMb(server.child.pid);
    for (const path of BODY_PATHS) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        // A declared body over the limit: 413 at once, whatever the path.
        const declared = await raw(server.url, {
          method,
          path,
          headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(64 * 1024 * 1024) },
        }).catch(() => ({ status: 0, body: "" }));
        expect(declared.status, `${method} ${path} declared 64 MB`).toBe(413);
        // A chunked body of 64 MB: refused (411/405/404) after at most a few chunks, never buffered.
        // (0: the server closed before the client read its answer — it does not read such a body.)
        const chunked = await streamChunked(server.url, method, path, 64 * 1024 * 1024);
        expect([0, 404, 405, 411, 413], `${method} ${path} chunked`).toContain(chunked.status);
        expect(chunked.sent, `${method} ${path}: bytes the server took`).toBeLessThan(16 * 1024 * 1024);
      }
    }
    const after = rssMb(server.child.pid);
    expect(after - before).toBeLessThan(64);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it("stores inquiries only from POST; other methods get 405 with Allow (item 3)", async () => {
    const count = storedCount(server.dataDir);
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      for (const path of ["/contact", "/contact/"]) {
        const res = await raw(server.url, { method, path, headers: formHeaders(), body: FORM_BODY });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.allow).toBe("GET, HEAD, POST");
        const empty = await raw(server.url, { method, path });
        expect(empty.status).toBe(405);
      }
    }
    expect(storedCount(server.dataDir)).toBe(count);
    const pageRes = await raw(server.url, { method: "DELETE", path: "/blog" });
    expect(pageRes.status).toBe(405);
    expect(pageRes.headers.allow).toBe("GET, HEAD");
  });

  it("answers client mistakes with 4xx and one log line without a stack (item 4)", async () => {
    const cases: Array<[string, Parameters<typeof raw>[1], number]> = [
      ["TRACE /", { method: "TRACE", path: "/" }, 405],
      ["text/plain", { method: "POST", path: "/contact", headers: { "content-type": "text/plain" }, body: "hi" }, 415],
      ["JSON", { method: "POST", path: "/contact", headers: json, body: JSON.stringify(valid) }, 415],
      ["no content type", { method: "POST", path: "/contact", headers: { "content-length": "5" }, body: "hello" }, 415],
      [
        "broken multipart",
        {
          method: "POST",
          path: "/contact",
          headers: { "content-type": "multipart/form-data; boundary=x" },
          body: "this is not multipart",
        },
        400,
      ],
      [
        "form in utf-7",
        {
          method: "POST",
          path: "/contact",
          headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-7" },
          body: FORM_BODY,
        },
        415,
      ],
      [
        "JSON in utf-7",
        {
          method: "POST",
          path: "/functions/v1/send-email",
          headers: { ...json, "content-type": "application/json; charset=utf-7" },
          body: JSON.stringify(valid),
        },
        415,
      ],
    ];
    await sleep(300); // the earlier tests' last request lines are out
    for (const [name, req, status] of cases) {
      const mark = server.output().length;
      const res = await raw(server.url, req);
      expect(res.status, name).toBe(status);
      expect(res.body).not.toMatch(/\n\s+at |node_modules/);
      await sleep(50);
      const out = server.output().slice(mark);
      expect(out, name).not.toMatch(/^\s+at /m);
      expect(
        lines(out).filter((l) => l.method !== undefined),
        `${name}: ${out}`,
      ).toHaveLength(1);
    }
  });

  const PATHS = [
    "/",
    "/services",
    "/blog",
    "/blog/rent-or-buy-it-infrastructure",
    "/blog/nope",
    "/contact",
    "/contact/",
    "/imprint",
    "/nope",
    "/Contact",
    "/%63ontact",
    "/contact//",
    "/contact.data",
    "/contact/.data",
    "/_root.data",
    "/blog/rss.xml",
    "/sitemap.xml",
    "/healthz",
    "/readyz",
    "/functions/v1/send-email",
    "/assets/nope.js",
    "/%E0%A4%A",
    "/..%2f..%2fetc%2fpasswd",
  ];
  const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"];
  const BODIES: Array<[string, Record<string, string>, string | undefined]> = [
    ["none", {}, undefined],
    ["form", { "content-type": "application/x-www-form-urlencoded" }, FORM_BODY],
    ["json", json, JSON.stringify(valid)],
    ["garbage", { "content-type": "multipart/form-data; boundary=zz" }, "\u0000\u00ff--zz"],
  ];

  it("never answers 5xx, whatever the path, method and body (the table, item 4)", async () => {
    const seen: string[] = [];
    for (const path of PATHS) {
      for (const method of METHODS) {
        for (const [bodyName, headers, body] of BODIES) {
          if ((method === "GET" || method === "HEAD" || method === "TRACE") && body !== undefined) continue;
          const res = await raw(server.url, {
            method,
            path,
            headers: { ...headers, "x-forwarded-for": nextIp() },
            body,
          });
          seen.push(`${method} ${path} [${bodyName}] ${res.status}`);
          expect(res.status, `${method} ${path} [${bodyName}]`).toBeGreaterThanOrEqual(200);
          expect(res.status, `${method} ${path} [${bodyName}]`).toBeLessThan(500);
          expect(res.body).not.toMatch(/\n\s+at |node_modules/);
          if (res.status === 405) expect(res.headers.allow, `${method} ${path}`).toBeTruthy();
        }
      }
    }
    expect(seen.length).toBeGreaterThan(500);
    expect(server.output()).not.toMatch(/^\s+at /m);
    expect(lines(server.output()).filter((l) => (l.level as number) >= 50)).toEqual([]);
  }, 120_000);

  it("serves unknown paths from the prebuilt 404 pages and redirects mis-cased paths (item 5)", async () => {
    const nope = await fetch(`${server.url}/no/such/page`);
    expect(nope.status).toBe(404);
    expect(await nope.text()).toMatch(/Page not found/);
    const post = await fetch(`${server.url}/blog/no-such-post`);
    expect(post.status).toBe(404);
    expect(await post.text()).toMatch(/Post Not Found/);
    for (const [path, target] of [
      ["/Contact", "/contact"],
      ["/CONTACT/", "/contact"],
      ["/%63ontact", "/contact"],
      ["/Blog/Rent-Or-Buy-IT-Infrastructure", "/blog/rent-or-buy-it-infrastructure"],
      ["//services", "/services"],
      ["/Services?x=1", "/services?x=1"],
    ]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(301);
      expect(res.headers.get("location"), path).toBe(target);
    }
    // Never a redirect to another site.
    const open = await fetch(`${server.url}//evil.example/`, { redirect: "manual" });
    expect(open.status).toBe(404);
  });

  it("redirects to HTTPS only for the site's own hosts (item 7)", async () => {
    const evil = await raw(server.url, {
      path: "/contact",
      headers: { host: "evil.example", "x-forwarded-proto": "http" },
    });
    expect(evil.status).toBe(421);
    expect(evil.headers.location).toBeUndefined();
    const own = await raw(server.url, {
      path: "/contact?x=1",
      headers: { host: "www.example.com", "x-forwarded-proto": "http" },
    });
    expect(own.status).toBe(308);
    expect(own.headers.location).toBe("https://www.example.com/contact?x=1");
  });

  it("limits an IPv6 /64 as one address, and a network as a whole (item 8)", async () => {
    const post = (ip: string) =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": ip },
        body: JSON.stringify(valid),
      });
    const statuses: number[] = [];
    for (let i = 1; i <= 100; i++) statuses.push((await post(`2001:db8:aa:bb::${i.toString(16)}`)).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(95);
    // IPv4-mapped IPv6 is the IPv4 address.
    for (let i = 0; i < 5; i++) expect((await post("198.51.100.9")).status).toBe(201);
    expect((await post("::ffff:198.51.100.9")).status).toBe(429);
    // One /24, many addresses: at most 20 a minute from the network.
    const net: number[] = [];
    for (let i = 1; i <= 30; i++) net.push((await post(`192.0.2.${i}`)).status);
    expect(net.filter((s) => s === 201)).toHaveLength(20);
  });

  it("gives the no-JavaScript form's 429 a Retry-After (item 8)", async () => {
    const ip = "198.18.0.1";
    let last: Awaited<ReturnType<typeof raw>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await raw(server.url, { method: "POST", path: "/contact", headers: formHeaders(ip), body: FORM_BODY });
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers["retry-after"])).toBeGreaterThan(0);
    expect(last?.body).toMatch(/Too many/);
  });

  it("requires the page's public key by default (spec §7)", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.18.3.3", ...headers },
        body: JSON.stringify(valid),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: "Bearer somebody-elses-key" })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${DEFAULT_PUBLIC_KEY}` })).status).toBe(201);
    const page = await (await fetch(`${server.url}/contact`)).text();
    expect(page).toContain(`data-public-key="${DEFAULT_PUBLIC_KEY}"`);
  });

  it("refuses an Idempotency-Key reused with another message (422), and replays a true repeat (item 9)", async () => {
    const post = (body: unknown, key: string) =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": "198.18.1.1", "idempotency-key": key },
        body: JSON.stringify(body),
      });
    const first = await post(valid, "reuse-1");
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const same = await post(valid, "reuse-1");
    expect(same.status).toBe(201);
    expect(await same.json()).toEqual(firstBody);
    const other = await post({ ...valid, message: "A different message" }, "reuse-1");
    expect(other.status).toBe(422);
    expect((await other.json()).error).toMatch(/different message/);
  });

  it("stores a keyed hash of the address, with the key outside the database (item 10)", async () => {
    const res = await fetch(`${server.url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": "198.18.2.2" },
      body: JSON.stringify(valid),
    });
    const { id } = await res.json();
    const file = join(server.dataDir, "inquiries.sqlite");
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const row = db.prepare("SELECT ip_hash FROM inquiries WHERE id = ?").get(id) as { ip_hash: string };
      const secret = loadAddressSecret({ dataDir: server.dataDir });
      expect(row.ip_hash).toBe(addressHasher(secret).hashes("198.18.2.2")?.address);
      expect(db.prepare("SELECT COUNT(*) AS n FROM settings WHERE name = 'ip_hash_salt'").get()).toEqual({ n: 0 });
      for (const f of [file, `${file}-wal`]) {
        expect(readFileSync(f).includes(Buffer.from(secret)), f).toBe(false);
      }
    } finally {
      db.close();
    }
  });
});

describe("static files: encodings and validators (item 12)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const get = (path: string, headers: Record<string, string>) => raw(server.url, { path, headers });

  it("honours q-values in Accept-Encoding, q=0 included", async () => {
    const cases: Array<[string, string | undefined]> = [
      ["br, gzip", "br"],
      ["gzip, br;q=0", "gzip"],
      ["br;q=0, gzip;q=0", undefined],
      ["gzip;q=0.5, br;q=0.4", "gzip"],
      ["*", "br"],
      ["*;q=0, gzip", "gzip"],
      ["identity", undefined],
      ["", undefined],
    ];
    for (const [accept, encoding] of cases) {
      const res = await get("/", { "accept-encoding": accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers["content-encoding"], accept).toBe(encoding);
      expect(res.headers.vary).toBe("Accept-Encoding");
    }
  });

  it("gives each encoding its own ETag, and answers If-None-Match as RFC 9110 says", async () => {
    const br = await get("/services", { "accept-encoding": "br" });
    const gz = await get("/services", { "accept-encoding": "gzip" });
    const id = await get("/services", { "accept-encoding": "identity" });
    const tags = [br, gz, id].map((r) => String(r.headers.etag));
    expect(new Set(tags).size).toBe(3);
    const [brTag, gzTag] = tags as [string, string];
    const revalidate = async (accept: string, inm: string) =>
      (await get("/services", { "accept-encoding": accept, "if-none-match": inm })).status;
    expect(await revalidate("br", brTag)).toBe(304);
    expect(await revalidate("br", `W/${brTag}`)).toBe(304);
    expect(await revalidate("br", `"nope", ${brTag}`)).toBe(304);
    expect(await revalidate("br", "*")).toBe(304);
    // A gzip copy's tag does not validate the brotli copy.
    expect(await revalidate("br", gzTag)).toBe(200);
    expect(await revalidate("gzip", gzTag)).toBe(304);
  });
});

describe("start-up that fails says so, and storage that fails does not take the pages down (item 6)", () => {
  it("a second instance on a busy port exits non-zero with one line", async () => {
    const first = await startServer();
    try {
      const second = spawn(process.execPath, ["server.js"], {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: "production",
          PORT: String(first.port),
          HOST: "127.0.0.1",
          DATA_DIR: first.dataDir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      second.stdout.on("data", (d) => {
        out += d;
      });
      second.stderr.on("data", (d) => {
        out += d;
      });
      const code = await new Promise<number | null>((r) => second.on("exit", r));
      expect(code).toBe(1);
      const fatal = lines(out).filter((l) => l.level === 60);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]?.msg).toMatch(/already in use/);
      expect(out).not.toMatch(/server started/);
      expect(out).not.toMatch(/^\s+at /m);
    } finally {
      await first.stop();
    }
  });

  it.each([
    ["PORT", "eighty", "PORT: "],
    ["SITE_URL", "www.example.com", "SITE_URL: an http:// or https:// URL"],
  ])("%s=%s stops the start with one line naming the variable", async (name, value, message) => {
    const err = await startServer({ [name]: value }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).toMatch(/server exited \(1\)/);
    const fatal = lines(String(err).replace(/^server exited \(1\):\n/, "")).filter((l) => l.level === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toMatch(/^Invalid environment: /);
    expect(fatal[0]?.msg).toContain(message);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it.each([
    ["nonsense", 'TRUST_PROXY: "nonsense"'],
    ["10.0.0.0/99", 'TRUST_PROXY: "10.0.0.0/99"'],
  ])("TRUST_PROXY=%s stops the start with one line", async (value, message) => {
    const err = await startServer({ TRUST_PROXY: value }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).toMatch(/server exited \(1\)/);
    const fatal = lines(String(err).replace(/^server exited \(1\):\n/, "")).filter((l) => l.level === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toContain(message);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it.each(["true", "false", "", "1", "loopback, 10.0.0.0/8"])("TRUST_PROXY=%j starts", async (value) => {
    const s = await startServer({ TRUST_PROXY: value });
    try {
      expect((await fetch(`${s.url}/`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it("a DATA_DIR that cannot be written: pages 200, contact 503, not ready; then it recovers", async () => {
    const base = mkdtempSync(join(tmpdir(), "blocked-"));
    const blocker = join(base, "data");
    writeFileSync(blocker, "a file where the data folder should be");
    const s = await startServer({ DATA_DIR: join(blocker, "inner") });
    try {
      expect((await fetch(`${s.url}/services`)).status).toBe(200);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).reason).toMatch(/ENOTDIR|not a directory/i);
      const api = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(api.status).toBe(503);
      expect(api.headers.get("retry-after")).toBeTruthy();
      const form = await raw(s.url, { method: "POST", path: "/contact", headers: formHeaders(), body: FORM_BODY });
      expect(form.status).toBe(503);
      expect(form.headers["retry-after"]).toBeTruthy();
      expect(lines(s.output()).filter((l) => String(l.msg).startsWith("contact storage unavailable"))).toHaveLength(1);
      // The operator fixes the folder; the server notices without a restart.
      rmSync(blocker);
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        await sleep(250);
        status = (await fetch(`${s.url}/readyz`)).status;
      }
      expect(status).toBe(200);
      const ok = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(ok.status).toBe(201);
    } finally {
      await s.stop();
    }
  }, 30_000);

  it("a database that does not answer: pages 200, contact 503, not ready", async () => {
    const s = await startServer({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    try {
      expect((await fetch(`${s.url}/`)).status).toBe(200);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).status).toBe("not ready");
      const api = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(valid),
      });
      expect(api.status).toBe(503);
      expect(s.child.exitCode).toBeNull();
    } finally {
      await s.stop();
    }
  });
});

describe("rate limits behind a proxy (item 8)", () => {
  const post = (url: string, forwardedFor: string) =>
    fetch(`${url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": forwardedFor },
      body: JSON.stringify(valid),
    });
  const warning = (out: string) => lines(out).filter((l) => String(l.msg).includes("TRUST_PROXY does not trust"));

  it("a trusted proxy: each visitor has their own limit, no warning", async () => {
    const s = await startServer({ RATE_LIMIT_PER_MINUTE: "2" });
    try {
      for (let i = 1; i <= 6; i++) expect((await post(s.url, `198.51.100.${i}`)).status).toBe(201);
      expect(warning(s.output())).toHaveLength(0);
    } finally {
      await s.stop();
    }
  });

  it("a proxy that is not trusted: everyone shares one bucket, and the server says so once", async () => {
    const s = await startServer({ RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY: "192.0.2.254" });
    try {
      const statuses = [];
      for (let i = 1; i <= 6; i++) statuses.push((await post(s.url, `198.51.100.${i}`)).status);
      expect(statuses).toEqual([201, 201, 429, 429, 429, 429]);
      expect(warning(s.output())).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });
});
