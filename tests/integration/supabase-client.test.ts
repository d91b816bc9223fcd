import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@supabase/supabase-js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PUBLIC_KEY } from "../../app/contact/api.ts";
import { launchChromium } from "../support/chromium";
import { type RunningServer, startServer } from "../support/server";

/**
 * A site that calls the hosted function with the platform's own client library
 * (`supabase.functions.invoke("send-email", { body })`) works unchanged against this server: in
 * Node, and in Chromium from another origin (listed in ALLOWED_ORIGINS), preflight and all.
 */

const root = new URL("../../", import.meta.url).pathname;
const lead = {
  name: "Grace Hopper",
  email: "grace@example.org",
  company: "",
  service: "",
  message: "Hello from supabase-js",
};

let server: RunningServer;
let partner: Server;
let partnerOrigin: string;
let browser: Browser;

beforeAll(async () => {
  // The partner site: another origin, serving a page and the library's own browser bundle.
  const bundle = readFileSync(`${root}node_modules/@supabase/supabase-js/dist/umd/supabase.js`);
  partner = createServer((req, res) => {
    if (req.url === "/supabase.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    res
      .writeHead(200, { "content-type": "text/html" })
      .end('<!doctype html><title>Partner</title><script src="/supabase.js"></script>');
  });
  await new Promise<void>((r) => partner.listen(0, "127.0.0.1", r));
  partnerOrigin = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
  server = await startServer({
    ALLOWED_ORIGINS: partnerOrigin,
    RATE_LIMIT_PER_MINUTE: "100",
    RATE_LIMIT_NETWORK_PER_MINUTE: "100",
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((r) => partner?.close(r));
});

describe("the hosted platform's client library, pointed at this server", () => {
  it("works unchanged from Node", async () => {
    const supabase = createClient(server.url, DEFAULT_PUBLIC_KEY);
    const { data, error } = await supabase.functions.invoke("send-email", { body: lead });
    expect(error).toBeNull();
    expect(data).toMatchObject({ ok: true, id: expect.any(String) });
    // With another key, the server refuses it, and the library reports the HTTP error.
    const other = createClient(server.url, "pk_not_this_sites_key");
    const refused = await other.functions.invoke("send-email", { body: lead });
    expect(refused.error?.name).toBe("FunctionsHttpError");
    expect((refused.error as { context: Response }).context.status).toBe(401);
  });

  it("works unchanged in Chromium from an allowed origin, preflight included", async () => {
    const page = await browser.newPage();
    const requests: Array<{ method: string; headers: Record<string, string> }> = [];
    page.on("request", (r) => {
      if (r.url().includes("/functions/v1/send-email"))
        requests.push({ method: r.method(), headers: r.headers() });
    });
    await page.goto(partnerOrigin);
    const result = await page.evaluate(
      async ({ url, key, body }) => {
        const client = (
          window as unknown as { supabase: typeof import("@supabase/supabase-js") }
        ).supabase.createClient(url, key);
        const { data, error } = await client.functions.invoke("send-email", { body });
        return { data, error: error ? String(error) : null };
      },
      {
        url: server.url,
        key: DEFAULT_PUBLIC_KEY,
        body: { ...lead, name: "Grace from the partner site" },
      },
    );
    expect(result.error).toBeNull();
    expect(result.data).toMatchObject({ ok: true, id: expect.any(String) });
    const post = requests.find((r) => r.method === "POST");
    expect(post?.headers["x-client-info"]).toMatch(/^supabase-js/);
    // A preflight was needed (the library's own headers) and allowed.
    const preflight = await fetch(`${server.url}/functions/v1/send-email`, {
      method: "OPTIONS",
      headers: {
        origin: partnerOrigin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, apikey, x-client-info, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(partnerOrigin);
    for (const h of ["authorization", "apikey", "x-client-info", "content-type"]) {
      expect(preflight.headers.get("access-control-allow-headers")).toContain(h);
    }
    await page.close();
  });

  it("from an allowed origin, a missing form token is a signal, not a hold: the lead is delivered, a pitch is held or marked", async () => {
    const page = await browser.newPage();
    await page.goto(partnerOrigin);
    const invoke = (body: typeof lead) =>
      page.evaluate(
        async ({ url, key, body }) => {
          const client = (
            window as unknown as { supabase: typeof import("@supabase/supabase-js") }
          ).supabase.createClient(url, key);
          const { data } = await client.functions.invoke("send-email", { body });
          return (data as { id: string }).id;
        },
        { url: server.url, key: DEFAULT_PUBLIC_KEY, body },
      );
    const genuine = await invoke({
      ...lead,
      name: "Ada from the partner site",
      message:
        "Hi, we are moving our office network and 20 laptops to a new building in Casper next month. Can you quote the move?",
    });
    const pitch = await invoke({
      ...lead,
      name: "Vendor via the partner site",
      message:
        "Hi, we book qualified sales meetings for IT consulting firms with decision makers. You only pay for meetings that happen. Open to a short call?",
    });
    await page.close();
    // The same genuine lead from Node: no Origin, no token, as a scripted bot sends it — held as before.
    const { data } = await createClient(server.url, DEFAULT_PUBLIC_KEY).functions.invoke(
      "send-email",
      {
        body: {
          ...lead,
          name: "Ada from a script",
          message: "Hi, can you quote moving our office network to Casper?",
        },
      },
    );
    const listed = JSON.parse(
      spawnSync(process.execPath, ["server/cli.ts", "list", "--json"], {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "" },
        encoding: "utf8",
      }).stdout,
    ) as Array<{
      id: string;
      verdict: string;
      heldReason: string | null;
      deliveries: Array<{ channel: string }>;
    }>;
    const of = (id: string) => listed.find((r) => r.id === id);
    expect(of(genuine)?.verdict).toBe("clean");
    expect(of(genuine)?.deliveries.map((d) => d.channel)).toEqual(["email"]);
    expect(["suspect", "held"]).toContain(of(pitch)?.verdict);
    expect(of(pitch)?.heldReason ?? "").not.toMatch(/no form token/);
    expect(of((data as { id: string }).id)).toMatchObject({
      verdict: "held",
      heldReason: "no form token",
    });
  });

  it("is refused from an origin that is not allowed", async () => {
    const page = await browser.newPage();
    const other = createServer((_req, res) => {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>Other</title>");
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}`);
      await page.addScriptTag({
        content: readFileSync(
          `${root}node_modules/@supabase/supabase-js/dist/umd/supabase.js`,
          "utf8",
        ),
      });
      const result = await page.evaluate(
        async ({ url, key }) => {
          const client = (
            window as unknown as { supabase: typeof import("@supabase/supabase-js") }
          ).supabase.createClient(url, key);
          const { error } = await client.functions.invoke("send-email", {
            body: { name: "x", email: "x@example.org", message: "x" },
          });
          return error ? error.name : null;
        },
        { url: server.url, key: DEFAULT_PUBLIC_KEY },
      );
      expect(result).toBe("FunctionsFetchError");
    } finally {
      await page.close();
      await new Promise((r) => other.close(r));
    }
  });
});
