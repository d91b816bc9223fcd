import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../support/http";
import { FORM_BODY, formHeaders, json, lines, valid } from "../support/requests";
import { type RunningServer, startServer } from "../support/server";

/**
 * Rate limits as a visitor meets them through each door: per address (an IPv6 /64 is one), per
 * network, with Retry-After; behind a proxy; and limited by a keyed hash, never by a stored address.
 * (The counting rule itself, on both engines: pipeline.contract.test.ts.)
 */

describe("rate limits", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_MINUTE: "5", RATE_LIMIT_NETWORK_PER_MINUTE: "20" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers the JSON door's sixth submission a minute with 429, Retry-After and a message", async () => {
    const post = () =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": "198.51.100.77" },
        body: JSON.stringify(valid),
      });
    for (let i = 0; i < 5; i++) expect((await post()).status).toBe(201);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.json()).error).toMatch(/Too many/);
  });

  it("limits an IPv6 /64 as one address, and a network as a whole", async () => {
    const post = (ip: string) =>
      fetch(`${server.url}/functions/v1/send-email`, {
        method: "POST",
        headers: { ...json, "x-forwarded-for": ip },
        body: JSON.stringify(valid),
      });
    const statuses: number[] = [];
    for (let i = 1; i <= 100; i++)
      statuses.push((await post(`2001:db8:aa:bb::${i.toString(16)}`)).status);
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

  it("gives the no-JavaScript form's 429 a Retry-After", async () => {
    const ip = "198.18.0.1";
    let last: Awaited<ReturnType<typeof raw>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await raw(server.url, {
        method: "POST",
        path: "/contact",
        headers: formHeaders(ip),
        body: FORM_BODY,
      });
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers["retry-after"])).toBeGreaterThan(0);
    expect(last?.body).toMatch(/Too many/);
  });

  it("stores a keyed hash of the address, under this month's random key and nothing else", async () => {
    const res = await fetch(`${server.url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": "198.18.2.2" },
      body: JSON.stringify(valid),
    });
    const { id } = await res.json();
    const file = join(server.dataDir, "inquiries.sqlite");
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const row = db.prepare("SELECT ip_hash FROM inquiries WHERE id = ?").get(id) as {
        ip_hash: string;
      };
      // As docs/contact-api.md describes it: HMAC-SHA256 of "a:<address>" under the month's key, a
      // random one (table secret_keys, deleted when the month is over). Not the address, nor a plain hash.
      const month = new Date().toISOString().slice(0, 7);
      const keys = db
        .prepare("SELECT id, secret FROM secret_keys WHERE purpose = 'address'")
        .all() as Array<{
        id: string;
        secret: string;
      }>;
      expect(keys.map((k) => k.id)).toEqual([month]);
      const key = Buffer.from(keys[0]?.secret ?? "", "hex");
      expect(row.ip_hash).toBe(createHmac("sha256", key).update("a:198.18.2.2").digest("hex"));
      expect(readFileSync(file).includes(Buffer.from("198.18.2.2"))).toBe(false);
    } finally {
      db.close();
    }
  });
});

describe("rate limits behind a proxy", () => {
  const post = (url: string, forwardedFor: string) =>
    fetch(`${url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": forwardedFor },
      body: JSON.stringify(valid),
    });
  const warning = (out: string) =>
    lines(out).filter((l) => String(l.msg).includes("TRUST_PROXY does not trust"));

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
