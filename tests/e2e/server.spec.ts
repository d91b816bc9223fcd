import { spawn } from "node:child_process";
import { once } from "node:events";
import { expect, test } from "@playwright/test";
import { serverArgs } from "../support/server.ts";

test("prerendered pages answer with and without a trailing slash, never redirecting", async ({
  request,
}) => {
  for (const path of [
    "/contact",
    "/contact/",
    "/services",
    "/services/",
    "/blog/rent-or-buy-it-infrastructure/",
  ]) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"]).toBe("text/html; charset=utf-8");
  }
});

test("compression: brotli and gzip, precompressed", async ({ request }) => {
  const br = await request.get("/", { headers: { "accept-encoding": "br" } });
  expect(br.headers()["content-encoding"]).toBe("br");
  expect(br.headers().vary).toContain("Accept-Encoding");
  expect(await br.text()).toContain("<h1");
  const gz = await request.get("/services", { headers: { "accept-encoding": "gzip" } });
  expect(gz.headers()["content-encoding"]).toBe("gzip");
  const none = await request.get("/services", { headers: { "accept-encoding": "identity" } });
  expect(none.headers()["content-encoding"]).toBeUndefined();
  expect(Number(none.headers()["content-length"])).toBeGreaterThan(
    Number(gz.headers()["content-length"]),
  );
});

test("caching: immutable hashed assets, revalidated HTML, 304 on a matching ETag", async ({
  request,
}) => {
  const page = await request.get("/");
  expect(page.headers()["cache-control"]).toBe("public, max-age=0, must-revalidate");
  const css = (await page.text()).match(/href="(\/assets\/[^"]+\.css)"/)?.[1];
  expect(css).toBeTruthy();
  const asset = await request.get(css ?? "");
  expect(asset.status()).toBe(200);
  expect(asset.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
  const etag = page.headers().etag ?? "";
  const again = await request.get("/", { headers: { "if-none-match": etag } });
  expect(again.status()).toBe(304);
});

test("HEAD answers headers without a body; /healthz answers ok", async ({ request }) => {
  const head = await request.head("/blog");
  expect(head.status()).toBe(200);
  expect(await head.body()).toHaveLength(0);
  const health = await request.get("/healthz");
  expect(await health.json()).toEqual({ status: "ok" });
  expect(health.headers()["cache-control"]).toBe("no-store");
});

test("stops cleanly on SIGTERM, logging one JSON line per request", async () => {
  const port = 4180 + test.info().workerIndex;
  const child = spawn(process.execPath, serverArgs(), {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: `${process.env.E2E_DATA_DIR}/sigterm-${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  try {
    await expect.poll(() => out, { timeout: 15_000 }).toContain("server started");
    const res = await fetch(`http://127.0.0.1:${port}/imprint`);
    expect(res.status).toBe(200);
    await expect.poll(() => out).toContain('"path":"/imprint"');
    const line = out.split("\n").find((l) => l.includes('"path":"/imprint"')) ?? "";
    expect(JSON.parse(line)).toMatchObject({ method: "GET", path: "/imprint", status: 200 });
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(out).toContain("server stopped");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("other methods on pages: 405 with Allow, before the page router", async ({ request }) => {
  for (const [method, path, allow] of [
    ["OPTIONS", "/", "GET, HEAD"],
    ["PUT", "/", "GET, HEAD"],
    ["DELETE", "/blog", "GET, HEAD"],
    ["PATCH", "/contact", "GET, HEAD, POST"],
  ] as const) {
    const res = await request.fetch(path, { method });
    expect(res.status(), `${method} ${path}`).toBe(405);
    expect(res.headers().allow).toBe(allow);
  }
});
