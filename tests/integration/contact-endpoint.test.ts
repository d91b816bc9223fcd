import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../support/server";

/**
 * The contact endpoint against the production server: a table of bad requests, each answered with
 * its documented 4xx JSON — never a 5xx, never a stack trace — and the server answering after them.
 */

const KEY = "test-public-key";
const PARTNER = "https://partner.example";
const valid = {
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "",
  service: "",
  message: "Hello",
};

let server: RunningServer;
let ipCounter = 0;
const nextIp = () => `192.0.2.${(ipCounter++ % 250) + 1}`;

type Case = {
  name: string;
  status: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  error?: RegExp;
  field?: string;
};

const json = (v: unknown) => JSON.stringify(v);
const withField = (k: string, v: unknown) => json({ ...valid, [k]: v });
const auth = { authorization: `Bearer ${KEY}` };
const ct = { "content-type": "application/json" };

const cases: Case[] = [
  // Methods
  { name: "GET", method: "GET", status: 405, error: /Use POST/ },
  { name: "PUT", method: "PUT", status: 405 },
  { name: "DELETE", method: "DELETE", status: 405 },
  { name: "PATCH", method: "PATCH", status: 405, headers: { ...auth, ...ct }, body: json(valid) },
  // Authorization
  {
    name: "no Authorization header",
    status: 401,
    headers: ct,
    body: json(valid),
    error: /authorization/,
  },
  {
    name: "wrong bearer key",
    status: 401,
    headers: { ...ct, authorization: "Bearer nope" },
    body: json(valid),
  },
  {
    name: "Basic credentials",
    status: 401,
    headers: { ...ct, authorization: "Basic dXNlcjpwYXNz" },
    body: json(valid),
  },
  {
    name: "key without Bearer",
    status: 401,
    headers: { ...ct, authorization: KEY },
    body: json(valid),
  },
  // Content type and encoding
  {
    name: "no Content-Type",
    status: 415,
    headers: auth,
    body: json(valid),
    error: /application\/json/,
  },
  {
    name: "text/plain",
    status: 415,
    headers: { ...auth, "content-type": "text/plain" },
    body: json(valid),
  },
  {
    name: "form-urlencoded",
    status: 415,
    headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
    body: "name=Ada&email=ada%40example.org&message=Hi",
  },
  {
    name: "multipart",
    status: 415,
    headers: { ...auth, "content-type": "multipart/form-data; boundary=x" },
    body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--x--',
  },
  {
    name: "unsupported charset",
    status: 415,
    headers: { ...auth, "content-type": "application/json; charset=latin1" },
    body: json(valid),
  },
  {
    name: "unsupported content encoding",
    status: 415,
    headers: { ...auth, ...ct, "content-encoding": "compress" },
    body: json(valid),
  },
  {
    name: "corrupt gzip body",
    status: 400,
    headers: { ...auth, ...ct, "content-encoding": "gzip" },
    body: Buffer.from("definitely not gzip"),
  },
  // Malformed JSON and wrong shapes
  {
    name: "truncated JSON",
    status: 400,
    headers: { ...auth, ...ct },
    body: '{"name":',
    error: /not valid JSON/,
  },
  {
    name: "single quotes",
    status: 400,
    headers: { ...auth, ...ct },
    body: "{'name':'Ada'}",
    error: /not valid JSON/,
  },
  { name: "trailing comma", status: 400, headers: { ...auth, ...ct }, body: '{"name":"Ada",}' },
  { name: "empty body", status: 400, headers: { ...auth, ...ct }, body: "" },
  { name: "null", status: 400, headers: { ...auth, ...ct }, body: "null", error: /JSON object/ },
  {
    name: "an array",
    status: 400,
    headers: { ...auth, ...ct },
    body: json([valid]),
    error: /JSON object/,
  },
  {
    name: "a string",
    status: 400,
    headers: { ...auth, ...ct },
    body: '"hello"',
    error: /JSON object/,
  },
  { name: "a number", status: 400, headers: { ...auth, ...ct }, body: "42", error: /JSON object/ },
  { name: "true", status: 400, headers: { ...auth, ...ct }, body: "true", error: /JSON object/ },
  { name: "empty object", status: 400, headers: { ...auth, ...ct }, body: "{}", field: "name" },
  // Wrong types
  {
    name: "name is a number",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("name", 42),
    field: "name",
  },
  {
    name: "name is null",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("name", null),
    field: "name",
  },
  {
    name: "email is an array",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("email", ["a@b.co"]),
    field: "email",
  },
  {
    name: "message is an object",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("message", { t: 1 }),
    field: "message",
  },
  {
    name: "service is a number",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("service", 3),
    field: "service",
  },
  {
    name: "company is a boolean",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("company", true),
    field: "company",
  },
  // Missing and empty fields
  {
    name: "no name",
    status: 400,
    headers: { ...auth, ...ct },
    body: json({ ...valid, name: undefined }),
    field: "name",
  },
  {
    name: "no email",
    status: 400,
    headers: { ...auth, ...ct },
    body: json({ ...valid, email: undefined }),
    field: "email",
  },
  {
    name: "no message",
    status: 400,
    headers: { ...auth, ...ct },
    body: json({ ...valid, message: undefined }),
    field: "message",
  },
  {
    name: "name of spaces",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("name", "    "),
    field: "name",
  },
  // Values
  {
    name: "invalid email",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("email", "ada(at)example"),
    field: "email",
  },
  {
    name: "service not offered",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("service", "Web Design"),
    field: "service",
  },
  {
    name: "unknown field",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("isAdmin", true),
    error: /Unknown field/,
  },
  // Huge fields
  {
    name: "name of 201",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("name", "n".repeat(201)),
    field: "name",
  },
  {
    name: "company of 201",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("company", "c".repeat(201)),
    field: "company",
  },
  {
    name: "email of 255",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("email", `${"e".repeat(243)}@example.com`),
    field: "email",
  },
  {
    name: "message of 5001",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("message", "m".repeat(5001)),
    field: "message",
  },
  // Oversize bodies
  {
    name: "body over 32 KB",
    status: 413,
    headers: { ...auth, ...ct },
    body: withField("message", "m".repeat(33 * 1024)),
    error: /too large/,
  },
  { name: "body of 1 MB", status: 413, headers: { ...auth, ...ct }, body: "x".repeat(1024 * 1024) },
  {
    name: "gzip bomb over 32 KB inflated",
    status: 413,
    headers: { ...auth, ...ct, "content-encoding": "gzip" },
    body: gzipSync(Buffer.from(withField("message", " ".repeat(200_000)))),
  },
  // Header injection and unicode edge cases
  {
    name: "CR/LF in name",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("name", "Ada\r\nBcc: x@y.z"),
    field: "name",
  },
  {
    name: "LF in email",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("email", "ada@example.org\nBcc: x@y.z"),
    field: "email",
  },
  {
    name: "CR in company",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("company", "Evil\rCorp"),
    field: "company",
  },
  {
    name: "NUL in message",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("message", "a\u0000b"),
    field: "message",
  },
  {
    name: "lone surrogate in name",
    status: 400,
    headers: { ...auth, ...ct },
    body: '{"name":"\\ud800","email":"a@b.co","message":"x"}',
    field: "name",
  },
  {
    name: "escape sequence in company",
    status: 400,
    headers: { ...auth, ...ct },
    body: withField("company", "\u001b[2J"),
    field: "company",
  },
  // Idempotency key and origin
  {
    name: "Idempotency-Key of 256",
    status: 400,
    headers: { ...auth, ...ct, "idempotency-key": "k".repeat(256) },
    body: json(valid),
    error: /Idempotency-Key/,
  },
  {
    name: "Idempotency-Key with a space",
    status: 400,
    headers: { ...auth, ...ct, "idempotency-key": "a b" },
    body: json(valid),
  },
  {
    name: "origin not allowed",
    status: 403,
    headers: { ...auth, ...ct, origin: "https://evil.example" },
    body: json(valid),
    error: /origin/,
  },
  {
    name: "preflight from a foreign origin",
    method: "OPTIONS",
    status: 403,
    headers: { origin: "https://evil.example" },
  },
];

beforeAll(async () => {
  server = await startServer({
    CONTACT_PUBLIC_KEY: KEY,
    ALLOWED_ORIGINS: PARTNER,
    RATE_LIMIT_PER_MINUTE: "5",
    RATE_LIMIT_PER_DAY: "50",
  });
});
afterAll(async () => {
  await server?.stop();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/functions/v1/send-email`, {
    method: "POST",
    headers: { ...auth, ...ct, "x-forwarded-for": nextIp(), ...headers },
    body: JSON.stringify(body),
  });

describe("bad requests", () => {
  it.each(cases)("$name → $status", async (c) => {
    const res = await fetch(`${server.url}/functions/v1/send-email`, {
      method: c.method ?? "POST",
      headers: { "x-forwarded-for": nextIp(), ...c.headers },
      body: typeof c.body === "string" || c.body === undefined ? c.body : new Uint8Array(c.body),
    });
    expect(res.status).toBe(c.status);
    if (c.method === "OPTIONS") return;
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(typeof body.error).toBe("string");
    expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
    if (c.error) expect(body.error).toMatch(c.error);
    if (c.field) expect(body.fields).toHaveProperty(c.field);
  });

  it("still answers after all of them", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const res = await post(valid);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ ok: true, id: expect.any(String) });
    expect(server.output()).not.toMatch(/"level":50|"level":60/);
  });
});

describe("good requests", () => {
  it("accepts the spec's call and unicode text", async () => {
    const res = await post({ ...valid, name: "Zoë 王小明 👋", message: "مرحبا\nこんにちは" });
    expect(res.status).toBe(201);
  });

  it("lets a configured origin call it (CORS), with a preflight", async () => {
    const pre = await fetch(`${server.url}/functions/v1/send-email`, {
      method: "OPTIONS",
      headers: { origin: PARTNER, "access-control-request-method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(PARTNER);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/idempotency-key/i);
    const res = await post(valid, { origin: PARTNER });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(PARTNER);
  });

  it("replays the first answer for a repeated Idempotency-Key, and refuses the key with another message", async () => {
    const first = await (await post(valid, { "idempotency-key": "http-key-1" })).json();
    const again = await post(valid, { "idempotency-key": "http-key-1" });
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(first);
    const changed = await post(
      { ...valid, message: "changed" },
      { "idempotency-key": "http-key-1" },
    );
    expect(changed.status).toBe(422);
  });
});
