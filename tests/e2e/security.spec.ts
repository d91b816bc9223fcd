import { readFileSync } from "node:fs";
import http from "node:http";
import { expect, test } from "@playwright/test";
import { PORT } from "../../playwright.config";
import { allRoutes } from "./routes";

/**
 * Security headers, as a visitor of the deployed site gets them: the server behind a TLS proxy
 * (X-Forwarded-Proto from 127.0.0.1, which the server trusts by default), on the public host.
 */

const HOST = "www.example.com";

function get(path: string, proto: "http" | "https", method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: PORT,
          path,
          method,
          headers: { host: HOST, "x-forwarded-proto": proto },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            body += c;
          });
          res.on("end", () => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
            resolve({ status: res.statusCode ?? 0, headers, body });
          });
        },
      );
      req.on("error", reject);
      req.end();
    },
  );
}

const paths = [...allRoutes.map((r) => r.path), "/no-such-page", "/blog/no-such-post"];

for (const path of paths) {
  test(`${path} carries every security header a strict policy asks for`, async () => {
    const https = await get(path, "https");
    const plain = await get(path, "http");
    // Plain HTTP goes to HTTPS on the same host, permanently.
    expect(plain.status).toBe(308);
    expect(plain.headers.location).toBe(`https://${HOST}${path}`);
    const h = https.headers;
    const csp = h["content-security-policy"] ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/base-uri 'none'/);
    expect(csp).toMatch(/form-action 'self'/);
    expect(csp).toMatch(/object-src 'none'|default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(h["strict-transport-security"]).toMatch(/includeSubDomains/);
    expect(
      Number(/max-age=(\d+)/.exec(h["strict-transport-security"] ?? "")?.[1]),
    ).toBeGreaterThanOrEqual(31_536_000);
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["x-frame-options"]).toBe("DENY");
    expect([
      "no-referrer",
      "same-origin",
      "strict-origin",
      "strict-origin-when-cross-origin",
    ]).toContain(h["referrer-policy"]);
    expect(h["permissions-policy"]).toMatch(/camera=\(\)/);
    expect(h["cross-origin-opener-policy"]).toBe("same-origin");
    expect(h["access-control-allow-origin"]).toBeUndefined();
    expect(h["set-cookie"]).toBeUndefined();
    // Every script the page loads is its own (no third-party script to need subresource integrity).
    for (const src of https.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g))
      expect(src[1]).toMatch(/^\/(?!\/)/);
  });
}

test("pages without scripts forbid scripts; the contact page allows its own module and nothing inline", async () => {
  expect((await get("/services", "https")).headers["content-security-policy"]).toMatch(
    /script-src 'none'/,
  );
  const contact = await get("/contact", "https");
  const scriptSrc =
    /script-src ([^;]+)/.exec(contact.headers["content-security-policy"] ?? "")?.[1] ?? "";
  // The contact page's one script is a module from this origin; it has no inline script to hash
  // (the hashing itself is tested with inline scripts in tests/unit/security.test.ts).
  expect(contact.body).toMatch(
    /<script type="module" src="\/assets\/contact-[0-9a-f]+\.js"><\/script>/,
  );
  expect([...contact.body.matchAll(/<script(?![^>]*src=)(?![^>]*ld\+json)[^>]*>/g)]).toHaveLength(
    0,
  );
  expect(scriptSrc).toBe("'self'");
});

test("plain HTTP without a proxy (local development) gets no HSTS and no redirect", async ({
  request,
}) => {
  const res = await request.get("/");
  expect(res.status()).toBe(200);
  expect(res.headers()["strict-transport-security"]).toBeUndefined();
  expect(res.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
});

test("every kind of response carries the headers, and none sets a cookie", async ({ request }) => {
  const css =
    (await (await request.get("/")).text()).match(/href="(\/assets\/[^"]+\.css)"/)?.[1] ?? "";
  for (const res of [
    await request.get(css),
    await request.get("/healthz"),
    await request.get("/favicon.svg"),
    await request.post("/functions/v1/send-email", {
      data: "{}",
      headers: { "content-type": "application/json" },
    }),
    await request.post("/contact", { form: { name: "", email: "", message: "" } }),
  ]) {
    const h = res.headers();
    expect(h["x-content-type-options"], res.url()).toBe("nosniff");
    expect(h["content-security-policy"], res.url()).toMatch(/default-src 'none'/);
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(h["set-cookie"]).toBeUndefined();
  }
});

test("build/client/_headers gives a static host the same policy as the server", async () => {
  const file = readFileSync("build/client/_headers", "utf8");
  for (const path of ["/", "/contact", "/services/", "/blog/ai-infrastructure-us-goldmine"]) {
    const served = (await get(path, "https")).headers["content-security-policy"];
    const block = file.split("\n\n").find((b) => b.split("\n")[0] === path) ?? "";
    expect(block, path).toContain(`Content-Security-Policy: ${served}`);
  }
  expect(file).toMatch(
    /^\/\*\n(?:.*\n)*?\s+Strict-Transport-Security: max-age=63072000; includeSubDomains/m,
  );
  expect(file).toMatch(/\/assets\/\*\n\s+Cache-Control: public, max-age=31536000, immutable/);
});
