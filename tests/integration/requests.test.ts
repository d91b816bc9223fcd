import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PUBLIC_KEY } from "../../app/contact/api.ts";
import { raw, rssMb, streamChunked } from "../support/http";
import {
  FORM_BODY,
  formHeaders,
  json,
  lines,
  nextIp,
  storedCount,
  valid,
} from "../support/requests";
import { type RunningServer, startServer } from "../support/server";

/**
 * Whatever a visitor sends, to any path with any method, the server answers in kind and stays up:
 * bodies capped before buffering, 405 with Allow, 4xx with one log line and no stack, no 5xx,
 * designed 404s, HTTPS only for its own hosts, the page's public key required.
 */

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

  it("caps every body by every path and method before buffering it", async () => {
    const before = rssMb(server.child.pid);
    for (const path of BODY_PATHS) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        // A declared body over the limit: 413 at once, whatever the path.
        const declared = await raw(server.url, {
          method,
          path,
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "content-length": String(64 * 1024 * 1024),
          },
        }).catch(() => ({ status: 0, body: "" }));
        expect(declared.status, `${method} ${path} declared 64 MB`).toBe(413);
        // A chunked body of 64 MB: refused (411/405/404) after at most a few chunks, never buffered.
        // (0: the server closed before the client read its answer — it does not read such a body.)
        const chunked = await streamChunked(server.url, method, path, 64 * 1024 * 1024);
        expect([0, 404, 405, 411, 413], `${method} ${path} chunked`).toContain(chunked.status);
        expect(chunked.sent, `${method} ${path}: bytes the server took`).toBeLessThan(
          16 * 1024 * 1024,
        );
      }
    }
    const after = rssMb(server.child.pid);
    expect(after - before).toBeLessThan(64);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it("stores inquiries only from POST; other methods get 405 with Allow", async () => {
    const count = storedCount(server.dataDir);
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      for (const path of ["/contact", "/contact/"]) {
        const res = await raw(server.url, {
          method,
          path,
          headers: formHeaders(),
          body: FORM_BODY,
        });
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

  it("answers client mistakes with 4xx and one log line without a stack", async () => {
    const cases: Array<[string, Parameters<typeof raw>[1], number]> = [
      ["TRACE /", { method: "TRACE", path: "/" }, 405],
      [
        "text/plain",
        { method: "POST", path: "/contact", headers: { "content-type": "text/plain" }, body: "hi" },
        415,
      ],
      [
        "JSON",
        { method: "POST", path: "/contact", headers: json, body: JSON.stringify(valid) },
        415,
      ],
      [
        "no content type",
        { method: "POST", path: "/contact", headers: { "content-length": "5" }, body: "hello" },
        415,
      ],
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
    for (const [name, req, status] of cases) {
      const mark = (await server.logged()).length;
      const res = await raw(server.url, req);
      expect(res.status, name).toBe(status);
      expect(res.body).not.toMatch(/\n\s+at |node_modules/);
      const out = (await server.logged()).slice(mark);
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
    "/lead",
    "/lead?t=01a20f26-702b-7dbf-8b35-0cf7cb44c182.spam.zzzzzz.forged",
    "/lead/",
    "/lead.data",
    "/overview",
    "/overview?t=overview.zzzzzz.k1.forged",
    "/overview/",
    "/overview.data",
    "/book",
    "/book?t=01a20f26-702b-7dbf-8b35-0cf7cb44c182.book.zzzzzz.forged",
    "/book/",
    "/book.data",
    "/contact/sent",
    "/contact/sent?t=forged",
    "/privacy",
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

  it("never answers 5xx, whatever the path, method and body", async () => {
    const seen: string[] = [];
    for (const path of PATHS) {
      for (const method of METHODS) {
        for (const [bodyName, headers, body] of BODIES) {
          if ((method === "GET" || method === "HEAD" || method === "TRACE") && body !== undefined)
            continue;
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
    expect(
      lines(server.output()).filter((l) => l.level === "error" || l.level === "fatal"),
    ).toEqual([]);
  }, 120_000);

  it("serves unknown paths from the prebuilt 404 pages and redirects mis-cased paths", async () => {
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

  it("redirects to HTTPS only for the site's own hosts", async () => {
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

  it("requires the page's public key by default (spec §7)", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": "198.18.3.3",
          ...headers,
        },
        body: JSON.stringify(valid),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: "Bearer somebody-elses-key" })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${DEFAULT_PUBLIC_KEY}` })).status).toBe(201);
    const page = await (await fetch(`${server.url}/contact`)).text();
    expect(page).toContain(`data-public-key="${DEFAULT_PUBLIC_KEY}"`);
  });
});

describe("what an operator must see in the log", () => {
  let server: RunningServer;
  const OLD = "pk_public_old_key_0001";
  const NEW = "pk_public_new_key_0002";
  beforeAll(async () => {
    // A proxy not trusted (TRUST_PROXY=false), and a public key being rotated.
    server = await startServer({
      TRUST_PROXY: "false",
      CONTACT_PUBLIC_KEY: NEW,
      CONTACT_PUBLIC_KEY_PREVIOUS: OLD,
      SPAM_FILTER: "off",
      METRICS_TOKEN: "m".repeat(32),
    });
  });
  afterAll(async () => server.stop());
  const post = (key: string) =>
    fetch(`${server.url}/functions/v1/send-email`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        origin: server.url,
      },
      body: JSON.stringify(valid),
    });

  it("each request's line carries the inquiry it stored, through either door, so one lead is one grep", async () => {
    const answer = await post(NEW);
    const id = String(((await answer.json()) as { id: string }).id);
    const form = await fetch(`${server.url}/contact`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: FORM_BODY,
    });
    expect(form.status).toBe(303);
    const stored = () => lines(server.output()).filter((l) => l.method === "POST" && l.inquiryId);
    await expect.poll(() => stored().length).toBe(2);
    const requests = stored();
    expect(requests.map((l) => [l.path, l.status])).toEqual([
      ["/functions/v1/send-email", 201],
      ["/contact", 303],
    ]);
    expect(requests[0]?.inquiryId).toBe(id);
    expect(
      lines(server.output())
        .filter((l) => l.inquiryId === id)
        .map((l) => l.msg),
    ).toContain("inquiry stored");
    expect(lines(server.output()).every((l) => typeof l.level === "string")).toBe(true);
  });

  it("a key rotation: the old and the new key both work; a page with neither is refused loudly, once", async () => {
    expect((await post(OLD)).status).toBe(201);
    expect((await post(NEW)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await post("pk_public_stale_0000")).status).toBe(401);
    const keyLines = () =>
      lines(server.output()).filter((l) => String(l.msg).startsWith("a page sent a public key"));
    await expect.poll(() => keyLines().length).toBe(1);
    await server.logged(); // and no second one
    const said = keyLines();
    expect(said).toHaveLength(1);
    expect(said[0]?.level).toBe("error");
    const metrics = await (
      await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${"m".repeat(32)}` },
      })
    ).text();
    expect(metrics).toMatch(/^contact_inquiries_total\{source="api",outcome="unauthorized"\} 3$/m);
  });

  it("a proxy reporting HTTPS that TRUST_PROXY does not trust: the redirect loop is said in the log, once", async () => {
    for (let i = 0; i < 3; i++) {
      const loop = await raw(server.url, {
        path: "/services",
        headers: { host: "www.example.com", "x-forwarded-proto": "https" },
      });
      expect(loop.status).toBe(308);
      expect(loop.headers.location).toBe("https://www.example.com/services");
    }
    const loopLines = () =>
      lines(server.output()).filter((l) => String(l.msg).startsWith("redirect loop"));
    await expect.poll(() => loopLines().length).toBe(1);
    await server.logged(); // and no second one
    const said = loopLines();
    expect(said).toHaveLength(1);
    expect(said[0]?.msg).toContain("Set TRUST_PROXY");
  });
});
