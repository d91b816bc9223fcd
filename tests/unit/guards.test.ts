import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { addressHashes } from "../../server/contact/intake/address-hash.ts";
import { KeyRing } from "../../server/contact/keys.ts";
import { deleteExpiredKeys } from "../../server/contact/storage/keys.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { loadEnv } from "../../server/env.ts";
import {
  clientKeys,
  isLoopbackHost,
  isReservedHost,
  isUtf8,
  peerForLog,
  warnUntrustedProxy,
} from "../../server/guards.ts";

const parseTrustProxy = (value: string | undefined) => loadEnv({ TRUST_PROXY: value }).TRUST_PROXY;

describe("TRUST_PROXY", () => {
  it.each([
    [undefined, ["loopback"]],
    ["", ["loopback"]],
    ["true", true],
    ["false", false],
    ["1", 1],
    ["2", 2],
    ["loopback, 10.0.0.0/8", ["loopback", "10.0.0.0/8"]],
    ["192.0.2.7,2001:db8::/32", ["192.0.2.7", "2001:db8::/32"]],
  ])("reads %j as Express documents it", (value, expected) => {
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each(["yes", "1.2.3", "10.0.0.0/33", "loopback,,", "-1", "one"])(
    "refuses %j with one line",
    (value) => {
      expect(() => parseTrustProxy(value)).toThrow(
        /^Invalid environment: TRUST_PROXY: ".*" is not an address/,
      );
    },
  );

  /** What Express makes of X-Forwarded-For with the parsed setting, on a real server. */
  async function clientIp(setting: string, forwardedFor: string): Promise<string> {
    const app = express();
    app.set("trust proxy", parseTrustProxy(setting));
    app.get("/", (req, res) => {
      res.send(req.ip);
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`, {
        headers: { "x-forwarded-for": forwardedFor },
      });
      return await res.text();
    } finally {
      server.close();
    }
  }

  it("TRUST_PROXY=1 is one hop, not the address 0.0.0.1", async () => {
    expect(await clientIp("1", "203.0.113.5, 198.51.100.7")).toBe("198.51.100.7");
    expect(await clientIp("2", "203.0.113.5, 198.51.100.7")).toBe("203.0.113.5");
    expect(await clientIp("false", "203.0.113.5")).toBe("127.0.0.1");
    expect(await clientIp("", "203.0.113.5")).toBe("203.0.113.5");
  });
});

describe("client address keys", () => {
  it("keys IPv4 by the address and its /24", () => {
    expect(clientKeys("198.51.100.9")).toEqual({
      address: "198.51.100.9",
      network: "198.51.100.0/24",
    });
    expect(clientKeys("::ffff:198.51.100.9")).toEqual(clientKeys("198.51.100.9"));
  });
  it("keys IPv6 by its /64 and its /48, however it is written", () => {
    const a = clientKeys("2001:db8:aa:bb::1");
    expect(a).toEqual({ address: "2001:db8:aa:bb::/64", network: "2001:db8:aa::/48" });
    expect(clientKeys("2001:0db8:00aa:00bb:ffff:1:2:3")).toEqual(a);
    expect(clientKeys("2001:db8:aa:cc::1")?.address).not.toBe(a?.address);
    expect(clientKeys("2001:db8:aa:cc::1")?.network).toBe(a?.network);
  });
  it("has no key for something that is not an address", () => {
    expect(clientKeys("not-an-ip")).toBeNull();
  });
});

describe("address hashes", () => {
  it("keys each month with a random key of its own, shared through the database and deleted once the month is over", async () => {
    const nov = Date.UTC(2026, 10, 22);
    const dec = Date.UTC(2026, 11, 2);
    const db = openSqlite(":memory:");
    await db.migrate();
    const ring = new KeyRing();
    await ring.attach(db, nov);
    const h = await addressHashes(ring, "198.51.100.9", nov);
    expect(h?.address).toMatch(/^[0-9a-f]{64}$/);
    expect(await addressHashes(ring, "198.51.100.9", nov)).toEqual(h);
    expect((await addressHashes(ring, "198.51.100.9", dec))?.address).not.toBe(h?.address);
    expect((await addressHashes(ring, "198.51.100.10", nov))?.network).toBe(h?.network);
    expect(await addressHashes(ring, undefined, nov)).toBeNull();
    // Another instance on the same database hashes alike (rate limits are shared).
    const other = new KeyRing();
    await other.attach(db, nov);
    expect(await addressHashes(other, "198.51.100.9", nov)).toEqual(h);
    // Once December has begun, November's key is gone: nobody can make November's hash again.
    expect(await deleteExpiredKeys(db, dec, { links: 1, form: 1 })).toBe(1);
    await ring.read(dec);
    expect((await addressHashes(ring, "198.51.100.9", nov))?.address).not.toBe(h?.address);
    await db.close();
  });
});

describe("charsets", () => {
  it.each([
    [undefined, true],
    ["application/json", true],
    ["application/json; charset=utf-8", true],
    ['application/json; charset="UTF-8"', true],
    ["application/json; charset=utf-7", false],
    ["application/json; charset=utf-16", false],
    ["application/x-www-form-urlencoded; charset=latin1", false],
  ])("%j is UTF-8: %s", (type, expected) => {
    expect(isUtf8(type)).toBe(expected);
  });
});

describe("warnings never log a visitor's address", () => {
  it("names a proxy on this host or a private network, and any other address only by its kind", () => {
    expect(peerForLog("127.0.0.1")).toBe("127.0.0.1");
    expect(peerForLog("::ffff:10.0.0.7")).toBe("10.0.0.7");
    expect(peerForLog("fd00::5")).toBe("fd00::5");
    for (const visitor of ["8.8.4.4", "203.0.113.9", "2001:db8::1", "2a00:1450::1"]) {
      expect(peerForLog(visitor)).not.toContain(visitor);
      expect(peerForLog(visitor)).toMatch(/^a public IPv[46] address/);
    }
    expect(peerForLog(undefined)).toBe("unknown");
  });

  it("the untrusted-proxy warning, on a real server: the peer as peerForLog says, never the forwarded address", async () => {
    const said: object[] = [];
    const log = { warn: (o: object) => said.push(o), error: (o: object) => said.push(o) };
    const app = express();
    app.use(warnUntrustedProxy(() => false, log));
    app.get("/", (_req, res) => {
      res.send("ok");
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-forwarded-for": "198.51.100.23" } });
    } finally {
      server.close();
    }
    expect(said).toEqual([{ peer: "127.0.0.1" }]);
  });
});

describe("hosts nobody publishes on (one rule for placeholders, public builds, feeds and links)", () => {
  it("are this machine and the names reserved for examples and tests", () => {
    const reserved = [
      "example.com",
      "www.example.org",
      "EXAMPLE.NET.",
      "example",
      "shop.test",
      "x.invalid",
    ];
    const local = ["localhost", "app.localhost", "127.0.0.5", "[::1]"];
    for (const host of [...reserved, ...local]) expect(isReservedHost(host), host).toBe(true);
    for (const host of [
      "examples.com",
      "example.co",
      "contest",
      "www.tetondigital.com",
      "8.8.8.8",
      "[2001:db8::1]",
    ])
      expect(isReservedHost(host), host).toBe(false);
    expect(local.every(isLoopbackHost)).toBe(true);
    expect(reserved.some(isLoopbackHost)).toBe(false);
  });
});
