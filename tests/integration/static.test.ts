import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../support/http";
import { type RunningServer, startServer } from "../support/server";

/** The prebuilt files: content negotiation and validators (server/static.ts). */

describe("static files: encodings and validators", () => {
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
