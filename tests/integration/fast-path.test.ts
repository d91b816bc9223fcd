import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTACT_API_PATH } from "../../app/contact/api.ts";
import { type RunningServer, startServer } from "../support/server";

/**
 * The contact endpoint's everyday request is answered without Express (fastContactPath in
 * server/contact/http.ts); everything else goes through the Express route. Each case here sends the
 * same request twice against the production server: once as the fast path takes it (Content-Type
 * application/json), once with a spelling of it that the fast path leaves to Express (two spaces
 * before the charset, which Express reads as the same type). The two answers must be the same:
 * status, every header in order, body, log line and metrics.
 */

const KEY = "test-public-key";
const PARTNER = "https://partner.example";
const TOKEN = "metrics-token-for-tests";
const FAST = "application/json";
const EXPRESS = "application/json;  charset=utf-8";
const valid = { name: "Ada Lovelace", email: "ada@example.org", company: "", service: "", message: "Hello" };

let server: RunningServer;
let ip = 0;
const nextIp = () => `198.51.100.${++ip}`;

type Reply = { status: number; headers: Array<[string, string]>; body: string };

function send(headers: Record<string, string>, body: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method: "POST",
        path: CONTACT_API_PATH,
        headers: { "content-length": String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => {
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = (res.rawHeaders[i] ?? "").toLowerCase();
            if (name !== "date") pairs.push([name, res.rawHeaders[i + 1] ?? ""]);
          }
          resolve({ status: res.statusCode ?? 0, headers: pairs, body: text });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The same request by both ways; `vary` makes what must differ (addresses, keys) per way. */
async function both(
  make: (way: "fast" | "express") => { headers?: Record<string, string>; body: string | Buffer },
): Promise<{ fast: Reply; express: Reply }> {
  const call = (way: "fast" | "express") => {
    const r = make(way);
    return send(
      { authorization: `Bearer ${KEY}`, "content-type": way === "fast" ? FAST : EXPRESS, ...r.headers },
      r.body,
    );
  };
  return { fast: await call("fast"), express: await call("express") };
}

/** Ids differ between two stored submissions; everything else must not. */
const sameShape = (text: string) => text.replace(/"id":"[0-9a-f-]{36}"/, '"id":"…"');

function expectSame({ fast, express }: { fast: Reply; express: Reply }) {
  expect(fast.status).toBe(express.status);
  expect(fast.headers).toEqual(express.headers);
  expect(sameShape(fast.body)).toBe(sameShape(express.body));
}

/** The contact_inquiries_total counters this file's requests move. */
async function metric() {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  const line = (outcome: string) => {
    const found = text
      .split("\n")
      .find(
        (l) =>
          l.startsWith("contact_inquiries_total{") && l.includes('source="api"') && l.includes(`outcome="${outcome}"`),
      );
    return Number(found?.split(" ").pop() ?? 0);
  };
  // Scripted calls carry no page token, so the spam filter holds them (stored, delivered nowhere).
  return { held: line("held"), invalid: line("invalid") };
}

/** Half a body, then the connection closed: nothing can be answered. */
function abandon(contentType: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(
        `POST ${CONTACT_API_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Content-Type: ${contentType}\r\nContent-Length: 100\r\n\r\n{"name":`,
      );
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 100);
    });
    socket.on("error", reject);
  });
}

const json = (v: unknown) => JSON.stringify(v);
const from = () => ({ "x-forwarded-for": nextIp() });

beforeAll(async () => {
  server = await startServer({
    CONTACT_PUBLIC_KEY: KEY,
    ALLOWED_ORIGINS: PARTNER,
    RATE_LIMIT_PER_MINUTE: "2",
    RATE_LIMIT_PER_DAY: "50",
    METRICS_TOKEN: TOKEN,
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("the contact endpoint's fast path answers exactly as its Express route", () => {
  it("stores a submission: 201, the same headers and body", async () => {
    const r = await both(() => ({ headers: from(), body: json(valid) }));
    expect(r.fast.status).toBe(201);
    expect(JSON.parse(r.fast.body).id).toMatch(/^[0-9a-f-]{36}$/);
    expectSame(r);
  });

  it("refuses invalid fields, a body that is not JSON, and JSON that is not an object", async () => {
    for (const body of [json({ ...valid, email: "nope" }), "{not json", "123", "[]", "null"]) {
      const r = await both(() => ({ headers: from(), body }));
      expect(r.fast.status).toBe(400);
      expectSame(r);
    }
  });

  it("reads UTF-8 with a byte-order mark and any text, as Express does", async () => {
    const text = json({ ...valid, name: "Zoë Ørsted 漢字", message: "Emoji 🎉 and\nlines" });
    const r = await both(() => ({
      headers: from(),
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    }));
    expect(r.fast.status).toBe(201);
    expectSame(r);
  });

  it("replays an Idempotency-Key's first answer, and refuses it with another message (422)", async () => {
    const key = (way: string) => `key-${way}-${Date.now()}`;
    const keys = { fast: key("fast"), express: key("express") };
    const first = await both((way) => ({ headers: { ...from(), "idempotency-key": keys[way] }, body: json(valid) }));
    const again = await both((way) => ({ headers: { ...from(), "idempotency-key": keys[way] }, body: json(valid) }));
    expect(again.fast.body).toBe(first.fast.body);
    expect(again.express.body).toBe(first.express.body);
    expectSame(again);
    const other = await both((way) => ({
      headers: { ...from(), "idempotency-key": keys[way] },
      body: json({ ...valid, message: "Another" }),
    }));
    expect(other.fast.status).toBe(422);
    expectSame(other);
  });

  it("answers a configured origin with CORS, and its own origin without", async () => {
    const partner = await both(() => ({ headers: { ...from(), origin: PARTNER }, body: json(valid) }));
    expect(partner.fast.headers).toContainEqual(["access-control-allow-origin", PARTNER]);
    expectSame(partner);
    const own = await both(() => ({ headers: { ...from(), origin: server.url }, body: json(valid) }));
    expect(own.fast.status).toBe(201);
    expectSame(own);
  });

  it("behind a trusted proxy over HTTPS, adds HSTS", async () => {
    const r = await both(() => ({
      headers: { ...from(), "x-forwarded-proto": "https", host: "www.example.com" },
      body: json(valid),
    }));
    expect(r.fast.headers.map(([name]) => name)).toContain("strict-transport-security");
    expectSame(r);
  });

  it("limits an address: 429 with Retry-After", async () => {
    const addresses = { fast: nextIp(), express: nextIp() };
    for (let i = 0; i < 2; i++) {
      await both((way) => ({ headers: { "x-forwarded-for": addresses[way] }, body: json(valid) }));
    }
    const r = await both((way) => ({ headers: { "x-forwarded-for": addresses[way] }, body: json(valid) }));
    expect(r.fast.status).toBe(429);
    // The seconds to wait may tick between the two; the rest is the same.
    const retry = (x: Reply) => Number(x.headers.find(([n]) => n === "retry-after")?.[1]);
    expect(Math.abs(retry(r.fast) - retry(r.express))).toBeLessThanOrEqual(1);
    const without = (x: Reply) => ({ ...x, headers: x.headers.filter(([n]) => n !== "retry-after") });
    expectSame({ fast: without(r.fast), express: without(r.express) });
  });

  it("writes the same request log line and counts the same in /metrics", async () => {
    const before = await metric();
    const mark = server.output().length;
    await both(() => ({ headers: from(), body: json(valid) }));
    await both(() => ({ headers: from(), body: "{not json" }));
    const after = await metric();
    expect(after.held - before.held).toBe(2);
    expect(after.invalid - before.invalid).toBe(2);
    // Request lines, without their timing: two 201s and two 400s, each pair alike. (The log is
    // written asynchronously: wait for the fourth.)
    const requestLines = () =>
      server
        .output()
        .slice(mark)
        .split("\n")
        .filter((l) => l.includes(`"path":"${CONTACT_API_PATH}"`));
    for (let waited = 0; requestLines().length < 4 && waited < 5000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const lines = requestLines().map((l) => {
      const { time: _t, ms: _ms, ...rest } = JSON.parse(l);
      return rest;
    });
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual(lines[1]);
    expect(lines[2]).toEqual(lines[3]);
    expect(lines[0]).toMatchObject({ method: "POST", status: 201 });
    expect(lines[2]).toMatchObject({ method: "POST", status: 400 });
  });

  it("counts a body the client abandons as one it could not read, either way", async () => {
    for (const type of [FAST, EXPRESS]) {
      const before = await metric();
      await abandon(type);
      let after = await metric();
      for (let waited = 0; after.invalid === before.invalid && waited < 2000; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
        after = await metric();
      }
      expect(after.invalid - before.invalid).toBe(1);
    }
  });
});
