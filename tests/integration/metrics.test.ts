import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PUBLIC_KEY } from "../../app/contact/api.ts";
import { freePort } from "../support/ports";
import { Receiver } from "../support/receiver";
import { type RunningServer, startServer } from "../support/server";

/** Readiness, Prometheus metrics behind a token, and channels in the real server. */

const TOKEN = "metrics-token-0123456789";
const valid = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello" };
const post = (url: string, body: unknown, ip: string) =>
  fetch(`${url}/functions/v1/send-email`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
      "x-forwarded-for": ip,
    },
    body: JSON.stringify(body),
  });
/** One sample's value from the Prometheus text format. */
const sample = (text: string, name: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(name));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
};

describe("metrics on the site's port, behind METRICS_TOKEN", () => {
  let server: RunningServer;
  let hook: Receiver;
  beforeAll(async () => {
    hook = await new Receiver().start();
    server = await startServer(
      {
        METRICS_TOKEN: TOKEN,
        RATE_LIMIT_PER_MINUTE: "2",
        SPAM_FILTER: "off",
        WEBHOOK_URL: hook.url,
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
      },
      undefined,
      { OUTBOX_POLL_MS: 50 },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await hook?.stop();
  });

  it("refuses a scrape without the token", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("contact_");
  });

  it("counts what arrives and what is delivered, per channel", async () => {
    expect((await post(server.url, valid, "198.51.100.1")).status).toBe(201);
    expect((await post(server.url, { ...valid, email: "nope" }, "198.51.100.2")).status).toBe(400);
    expect((await post(server.url, { ...valid, website: "spam" }, "198.51.100.3")).status).toBe(
      201,
    );
    for (let i = 0; i < 3; i++) await post(server.url, valid, "198.51.100.4");
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(3);
    const scrape = async () => {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    await expect
      .poll(
        async () =>
          sample(await scrape(), 'contact_deliveries_total{channel="webhook",outcome="delivered"}'),
        {
          timeout: 10_000,
        },
      )
      .toBe(3);
    const text = await scrape();
    expect(sample(text, 'contact_inquiries_total{source="api",outcome="stored"}')).toBe(3);
    expect(sample(text, 'contact_inquiries_total{source="api",outcome="held"}')).toBe(1);
    expect(sample(text, 'contact_inquiries_total{source="api",outcome="invalid"}')).toBe(1);
    expect(sample(text, 'contact_inquiries_total{source="api",outcome="rate_limited"}')).toBe(1);
    await expect
      .poll(async () =>
        sample(await scrape(), 'contact_deliveries_total{channel="email",outcome="delivered"}'),
      )
      .toBe(3);
    expect(sample(text, 'contact_delivery_latency_seconds_count{channel="webhook"}')).toBe(3);
    expect(text).toContain("# TYPE contact_deliveries_pending gauge");
    expect(text).toContain("# TYPE contact_delivery_oldest_pending_seconds gauge");
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it("takes the token with the Bearer scheme spelled in any case", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `${scheme} ${TOKEN}` },
      });
      expect(res.status, scheme).toBe(200);
    }
    expect(
      (await fetch(`${server.url}/metrics`, { headers: { authorization: `Basic ${TOKEN}` } }))
        .status,
    ).toBe(401);
  });

  it("reports readiness separately from liveness", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
  });
});

describe("metrics never on the public site by accident", () => {
  it("without METRICS_TOKEN, /metrics on the site is a 404 page", async () => {
    const server = await startServer({ SPAM_FILTER: "off" });
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("process_cpu");
    } finally {
      await server.stop();
    }
  });
});

describe("the series of the documented alerts", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // A relay nobody listens on: an email delivery stays pending, retried later.
    server = await startServer(
      {
        METRICS_TOKEN: TOKEN,
        SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
        SPAM_FILTER: "off",
      },
      undefined,
      { OUTBOX_POLL_MS: 50 },
    );
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("has every series of the documented alerts (docs/operations.md) from the start, at 0, and counts a delivery that waits", async () => {
    const scrape = async () =>
      (
        await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).text();
    const fresh = await scrape();
    // Without these at 0, increase(…{outcome="failed"}[15m]) > 0 misses the first failure after a restart.
    for (const channel of ["email", "webhook", "slack"]) {
      for (const outcome of ["delivered", "retry", "failed"]) {
        expect(
          sample(fresh, `contact_deliveries_total{channel="${channel}",outcome="${outcome}"}`),
        ).toBe(0);
      }
      expect(sample(fresh, `contact_deliveries_pending{channel="${channel}"}`)).toBe(0);
      expect(sample(fresh, `contact_delivery_oldest_pending_seconds{channel="${channel}"}`)).toBe(
        0,
      );
    }
    expect(sample(fresh, 'contact_inquiries_total{source="form",outcome="stored"}')).toBe(0);
    // The reply promise (LeadWaitingPastPromise): nothing waiting, nothing overdue, no reminder yet.
    for (const name of [
      "contact_leads_waiting",
      "contact_leads_overdue",
      "contact_lead_reminders_total",
    ])
      expect(sample(fresh, name), name).toBe(0);
    expect((await post(server.url, valid, "198.51.100.9")).status).toBe(201);
    await expect.poll(async () => sample(await scrape(), "contact_leads_waiting")).toBe(1);
    await expect
      .poll(async () => sample(await scrape(), 'contact_deliveries_pending{channel="email"}'))
      .toBe(1);
    await expect
      .poll(async () =>
        sample(await scrape(), 'contact_delivery_oldest_pending_seconds{channel="email"}'),
      )
      .toBeGreaterThan(0);
    await expect
      .poll(async () =>
        sample(await scrape(), 'contact_deliveries_total{channel="email",outcome="retry"}'),
      )
      .toBeGreaterThanOrEqual(1);
  });
});
