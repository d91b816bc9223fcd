import { expect, type Page, test } from "@playwright/test";
import sharp from "sharp";
import { site } from "../../app/config/site.ts";
import { allRoutes } from "./routes";

/** Found and shared: head tags, social images, structured data, and the files crawlers read. */

const SITE = "https://www.example.com";

type Thing = Record<string, unknown> & { "@type": string };
async function jsonLd(page: Page): Promise<Thing[]> {
  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
  return blocks.flatMap((b) => (JSON.parse(b) as { "@graph": Thing[] })["@graph"]);
}
const meta = (page: Page, key: string) =>
  page.locator(`meta[property="${key}"], meta[name="${key}"]`).first().getAttribute("content");

for (const route of allRoutes) {
  test(`${route.path}: head tags, social image and structured data`, async ({ page, request }) => {
    await page.goto(route.path);
    await expect(page.locator("html")).toHaveAttribute("lang", "en-US");
    const canonical = `${SITE}${route.path}`;
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", canonical);
    expect(await meta(page, "og:url")).toBe(canonical);
    expect((await meta(page, "og:title"))?.length).toBeGreaterThan(3);
    expect((await meta(page, "og:description"))?.length).toBeGreaterThan(40);
    expect(await meta(page, "og:type")).toBe(
      route.path.startsWith("/blog/") ? "article" : "website",
    );
    expect(await meta(page, "twitter:card")).toBe("summary_large_image");
    await expect(page.locator('meta[name="theme-color"]')).toHaveCount(2);
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute("href", "/site.webmanifest");
    await expect(page.locator('link[rel="alternate"][type="application/rss+xml"]')).toHaveAttribute(
      "href",
      "/blog/rss.xml",
    );

    // The social image exists, is 1200×630 (drawn for the page, or cut from a post's photo), and is
    // served from this site.
    const image = (await meta(page, "og:image")) ?? "";
    expect(image).toMatch(new RegExp(`^${SITE}/(social/.+\\.png|assets/.+-og-.+\\.jpg)$`));
    const card = await request.get(new URL(image).pathname);
    expect(card.status()).toBe(200);
    expect(card.headers()["content-type"]).toBe(
      image.endsWith(".png") ? "image/png" : "image/jpeg",
    );
    const size = await sharp(await card.body()).metadata();
    expect([size.width, size.height]).toEqual([1200, 630]);

    // Organization and WebSite on every page, built from the company facts.
    const graph = await jsonLd(page);
    const org = graph.find((t) => t["@type"] === "LocalBusiness");
    expect(graph.some((t) => t["@type"] === "ProfessionalService")).toBe(false);
    expect(org).toMatchObject({
      name: site.name,
      legalName: site.legalName,
      url: SITE,
      email: site.email,
      telephone: site.phone.e164,
      address: {
        "@type": "PostalAddress",
        addressRegion: site.address.region,
        addressLocality: site.address.city,
        postalCode: site.address.postalCode,
        addressCountry: site.address.country,
      },
      geo: {
        "@type": "GeoCoordinates",
        latitude: expect.any(Number),
        longitude: expect.any(Number),
      },
    });
    expect(org?.openingHoursSpecification).toEqual([
      expect.objectContaining({
        opens: "09:00",
        closes: "18:00",
        dayOfWeek: expect.arrayContaining([
          "https://schema.org/Monday",
          "https://schema.org/Friday",
        ]),
      }),
      expect.objectContaining({
        opens: "10:00",
        closes: "14:00",
        dayOfWeek: ["https://schema.org/Saturday"],
      }),
    ]);
    expect(graph.find((t) => t["@type"] === "WebSite")).toMatchObject({
      url: SITE,
      name: "Teton Digital",
    });

    if (route.path === "/services") {
      const services = graph.filter((t) => t["@type"] === "Service");
      expect(services.map((s) => s.name)).toEqual([
        "IT Infrastructure",
        "IT Consulting",
        "AI Consulting",
        "AI Software Development",
      ]);
      for (const s of services)
        expect(s).toMatchObject({
          provider: { "@id": `${SITE}/#organization` },
          description: expect.any(String),
        });
    }
    if (route.path.startsWith("/blog/") || route.path === "/services") {
      const crumbs = graph.find((t) => t["@type"] === "BreadcrumbList") as unknown as {
        itemListElement: Array<{ position: number; item: string }>;
      };
      expect(crumbs.itemListElement[0]).toMatchObject({ position: 1, item: `${SITE}/` });
      expect(crumbs.itemListElement.at(-1)?.item).toBe(canonical);
    }
    if (route.path.startsWith("/blog/")) {
      const post = graph.find((t) => t["@type"] === "BlogPosting");
      expect(post).toMatchObject({
        headline: await page.locator("h1").textContent(),
        author: { "@type": "Person", name: expect.any(String) },
        datePublished: expect.stringMatching(
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[-+]\d{2}:\d{2}$/,
        ),
        dateModified: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[-+]\d{2}:\d{2}$/),
        publisher: { "@id": `${SITE}/#organization` },
        mainEntityOfPage: { "@id": canonical },
      });
      expect((post?.image as string[] | undefined)?.[0]).toMatch(
        new RegExp(`^${SITE}/assets/.+\\.(svg|jpg)$`),
      );
    }
  });
}

test("favicons and the web manifest", async ({ request, page }) => {
  await page.goto("/");
  for (const href of ["/favicon.svg", "/favicon-32.png", "/apple-touch-icon.png"]) {
    await expect(page.locator(`link[href="${href}"]`)).toHaveCount(1);
    expect((await request.get(href)).status()).toBe(200);
  }
  const manifest = await (await request.get("/site.webmanifest")).json();
  expect(manifest).toMatchObject({ name: "Teton Digital", start_url: "/", theme_color: "#1d4ed8" });
  for (const icon of manifest.icons) expect((await request.get(icon.src)).status()).toBe(200);
  expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(
    expect.arrayContaining(["192x192", "512x512"]),
  );
});

test("sitemap.xml lists every public page, with the posts' dates", async ({ request }) => {
  const res = await request.get("/sitemap.xml");
  expect(res.headers()["content-type"]).toMatch(/^application\/xml/);
  const xml = await res.text();
  const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  expect(locs.sort()).toEqual(allRoutes.map((r) => `${SITE}${r.path}`).sort());
  expect(xml).toContain(
    `<url><loc>${SITE}/blog/ai-infrastructure-us-goldmine</loc><lastmod>2025-06-16</lastmod></url>`,
  );
});

test("robots.txt points to the sitemap", async ({ request }) => {
  const text = await (await request.get("/robots.txt")).text();
  expect(text).toMatch(/^User-agent: \*$/m);
  expect(text).toContain(`Sitemap: ${SITE}/sitemap.xml`);
});

test("the RSS feed carries every article in full", async ({ request, page }) => {
  const res = await request.get("/blog/rss.xml");
  expect(res.headers()["content-type"]).toBe("application/rss+xml; charset=utf-8");
  const text = await res.text();
  await page.goto("/");
  const feed = await page.evaluate((xml) => {
    const doc = new DOMParser().parseFromString(xml, "application/xml");
    if (doc.querySelector("parsererror")) return null;
    return {
      version: doc.documentElement.getAttribute("version"),
      items: [...doc.querySelectorAll("item")].map((i) => ({
        title: i.querySelector("title")?.textContent,
        link: i.querySelector("link")?.textContent,
        pubDate: i.querySelector("pubDate")?.textContent,
        content:
          i.getElementsByTagNameNS("http://purl.org/rss/1.0/modules/content/", "encoded")[0]
            ?.textContent ?? "",
      })),
    };
  }, text);
  expect(feed?.version).toBe("2.0");
  expect(feed?.items).toHaveLength(4);
  expect(feed?.items[0]).toMatchObject({
    title: "AI Infrastructure: The Next American Goldmine",
    link: `${SITE}/blog/ai-infrastructure-us-goldmine`,
  });
  for (const item of feed?.items ?? []) {
    expect(new Date(item.pubDate ?? "").getTime()).toBeGreaterThan(0);
    expect(item.content.replace(/<[^>]+>/g, " ").split(/\s+/).length).toBeGreaterThan(700);
  }
});

test("security.txt follows RFC 9116", async ({ request }) => {
  const text = await (await request.get("/.well-known/security.txt")).text();
  expect(text).toMatch(/^Contact: mailto:security@example\.com$/m);
  expect(text).toContain(`Canonical: ${SITE}/.well-known/security.txt`);
  const expires = new Date(/^Expires: (.+)$/m.exec(text)?.[1] ?? "");
  const days = (expires.getTime() - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(30);
  expect(days).toBeLessThan(366);
});

test("/favicon.ico is an icon", async ({ request }) => {
  const res = await request.get("/favicon.ico");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("image/x-icon");
  const bytes = await res.body();
  expect(bytes.readUInt16LE(2)).toBe(1); // an icon
  expect(bytes.subarray(22, 26).toString("latin1")).toBe("\x89PNG");
});

test("twitter:image:alt on every page", async ({ page }) => {
  for (const route of allRoutes) {
    await page.goto(route.path);
    await expect(page.locator('meta[name="twitter:image:alt"]')).toHaveAttribute("content", /\S/);
  }
});
