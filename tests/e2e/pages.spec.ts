import { expect, test } from "@playwright/test";
import { site, usd } from "../../app/config/site.ts";
import { allRoutes } from "./routes";

test("no link in a served page leads to an error page", async ({ request, baseURL }) => {
  const targets = new Set<string>();
  for (const route of allRoutes) {
    const html = await (await request.get(route.path)).text();
    // Every address in the page as served, hidden ones (a dialog's, a template's) included.
    for (const [, href = ""] of html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/g)) {
      const url = new URL(href.replaceAll("&amp;", "&"), `${baseURL}${route.path}`);
      if (url.origin === new URL(baseURL ?? "").origin) targets.add(`${url.pathname}${url.search}`);
    }
  }
  expect(targets.size).toBeGreaterThan(10);
  for (const target of targets) {
    expect((await request.get(target, { maxRedirects: 5 })).status(), target).toBeLessThan(400);
  }
});

test.describe("shared layout", () => {
  for (const route of allRoutes) {
    test(`${route.path}: navigation, highlighting and footer`, async ({ page }) => {
      await page.goto(route.path);
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const [name, href] of [
        ["Home", "/"],
        ["Services", "/services"],
        ["Blog", "/blog"],
        ["Contact", "/contact"],
        ["Get Started", "/contact"],
      ] as const) {
        await expect(nav.getByRole("link", { name, exact: true }).first()).toHaveAttribute(
          "href",
          href,
        );
      }
      const current = nav.locator('a[aria-current="page"]:visible');
      if (route.nav) {
        await expect(current).toHaveCount(1);
        await expect(current).toHaveText(route.nav);
      } else {
        await expect(current).toHaveCount(0);
      }
      await expect(page.locator("h1")).toHaveCount(1);
      await expect(page.locator("h1")).toHaveText(route.h1);

      const footer = page.getByRole("contentinfo");
      await expect(footer.getByRole("link", { name: site.email })).toHaveAttribute(
        "href",
        `mailto:${site.email}`,
      );
      for (const name of [
        "IT Infrastructure",
        "IT Consulting",
        "AI Consulting",
        "AI Software Development",
      ]) {
        await expect(footer.getByRole("link", { name, exact: true })).toHaveAttribute(
          "href",
          /^\/services#/,
        );
      }
      for (const [name, href] of [
        ["Blog", "/blog"],
        ["Contact", "/contact"],
        ["Imprint", "/imprint"],
        ["Privacy Policy", "/privacy"],
      ] as const) {
        await expect(footer.getByRole("link", { name, exact: true })).toHaveAttribute("href", href);
      }
      await expect(footer).toContainText(`© ${site.copyrightYear} ${site.legalName}`);
      await expect(page.getByRole("link", { name: "Skip to content" })).toHaveAttribute(
        "href",
        "#main",
      );
    });
  }

  test("every page has its own title and description", async ({ page }) => {
    const titles = new Set<string>();
    const descriptions = new Set<string>();
    for (const route of allRoutes) {
      await page.goto(route.path);
      titles.add(await page.title());
      descriptions.add(
        (await page.locator('meta[name="description"]').getAttribute("content")) ?? "",
      );
    }
    expect(titles.size).toBe(allRoutes.length);
    expect(descriptions.size).toBe(allRoutes.length);
  });
});

test("home: hero, badge, stats, service cards and calls to action", async ({ page }) => {
  await page.goto("/");
  const main = page.getByRole("main");
  await expect(main.getByRole("link", { name: "Explore Services" })).toHaveAttribute(
    "href",
    "/services",
  );
  await expect(main.getByRole("link", { name: "Get Consultation" })).toHaveAttribute(
    "href",
    "/contact",
  );
  await expect(main.getByText("SOC 2 Compliant")).toBeVisible();
  for (const stat of ["50+", "99.9%", "24/7", "5+"])
    await expect(main.locator("dd", { hasText: stat })).toBeVisible();
  for (const label of [
    "Projects Delivered",
    "Uptime Guarantee",
    "Support Available",
    "Enterprise Clients",
  ]) {
    await expect(main.locator("dt", { hasText: label })).toBeVisible();
  }
  const cards = main.locator("section[aria-labelledby=services-heading] > ul > li");
  await expect(cards).toHaveCount(4);
  await expect(cards.locator("h3")).toHaveText([
    "IT Infrastructure",
    "IT Consulting",
    "AI Consulting",
    "AI Development",
  ]);
  for (let i = 0; i < 4; i++) await expect(cards.nth(i).locator("ul > li")).toHaveCount(3);
  await expect(main.getByRole("link", { name: "View All Services" })).toHaveAttribute(
    "href",
    "/services",
  );
  await expect(main.getByRole("link", { name: "Start Your Project" })).toHaveAttribute(
    "href",
    "/contact",
  );
});

test("services: four categories of three offerings with four features, and working buttons", async ({
  page,
}) => {
  await page.goto("/services");
  const categories = page.locator("main section[id]");
  await expect(categories.locator("h2")).toHaveText([
    "IT Infrastructure",
    "IT Consulting",
    "AI Consulting",
    "AI Software Development",
  ]);
  const expected = [
    ["Buy Solutions", "Rental Options", "Infrastructure as a Service"],
    ["Digital Strategy", "System Architecture", "Technology Audits"],
    ["AI Strategy Development", "Machine Learning Implementation", "AI Ethics & Compliance"],
    ["Marketing Automation", "Financial Analysis", "Global Market Risk Analysis"],
  ];
  for (let c = 0; c < 4; c++) {
    const offerings = categories.nth(c).locator("article");
    await expect(offerings.locator("h3")).toHaveText(expected[c] ?? []);
    for (let o = 0; o < 3; o++) {
      await expect(offerings.nth(o).locator("p")).not.toBeEmpty();
      await expect(offerings.nth(o).locator("li")).toHaveCount(4);
    }
  }
  for (const name of ["Schedule Consultation", "Request Quote"]) {
    const link = page.getByRole("link", { name });
    await expect(link).toHaveAttribute("href", /^\/contact/);
  }
  await page.getByRole("link", { name: "Request Quote" }).click();
  await expect(page).toHaveURL(/\/contact/);
  await expect(page.locator("h1")).toHaveText("Contact Us");
});

test("blog list: a featured article, then a grid, each linking to its page", async ({ page }) => {
  await page.goto("/blog");
  const featured = page.locator("main article").first();
  await expect(featured).toContainText("Featured article");
  await expect(featured.getByRole("heading", { level: 2 })).toHaveText(
    "AI Infrastructure: The Next American Goldmine",
  );
  await expect(featured).toContainText("AI Infrastructure");
  await expect(featured).toContainText("8 min read");
  await expect(featured).toContainText("Read article");
  await expect(
    featured.getByRole("link", { name: "AI Infrastructure: The Next American Goldmine" }),
  ).toHaveAttribute("href", "/blog/ai-infrastructure-us-goldmine");
  const grid = page.locator("section[aria-labelledby=more-heading] li article");
  await expect(grid).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    const card = grid.nth(i);
    await expect(card.locator("h3")).not.toBeEmpty();
    await expect(card.locator("p").nth(1)).not.toBeEmpty();
    await expect(card).toContainText(/\d+ min read/);
    await expect(card).toContainText("Read more");
    await expect(card.locator("h3").getByRole("link")).toHaveAttribute(
      "href",
      /^\/blog\/[a-z0-9-]+$/,
    );
  }
  await expect(grid.nth(0)).toContainText("Case Study");
  await grid.nth(0).locator("h3").getByRole("link").click();
  await expect(page).toHaveURL(/\/blog\/startup-ai-scaling-success$/);
});

test("blog article: hero, metadata, every Markdown element, author box and calls to action", async ({
  page,
}) => {
  await page.goto("/blog/ai-infrastructure-us-goldmine");
  // Its hero is a photo: AVIF for Chromium, at the width its slot needs, with its size set.
  const hero = page.locator("main header picture img");
  await expect(hero).toHaveAttribute("width", "1600");
  await expect(hero).toHaveAttribute("height", "840");
  await expect(hero).toHaveAttribute("fetchpriority", "high");
  await expect(hero).toHaveAttribute("src", /^\/assets\/.+\.jpg$/);
  await expect
    .poll(() => hero.evaluate((img: HTMLImageElement) => img.complete && img.currentSrc))
    .toMatch(/\.avif$/);
  const header = page.locator("main header");
  await expect(header).toContainText("AI Infrastructure");
  await expect(header).toContainText("Michael Harrison");
  await expect(header).toContainText("8 min read");
  const body = page.locator(".prose-article");
  for (const selector of ["h2", "h3", "h4", "ul > li", "ol > li", "blockquote", "strong", "code"]) {
    await expect(body.locator(selector).first()).toBeVisible();
  }
  const author = page.getByRole("complementary", { name: "About the author" });
  await expect(author).toContainText(site.blog.authorTitle);
  await expect(page.getByRole("link", { name: "Contact Us" })).toHaveAttribute("href", "/contact");
  await expect(page.getByRole("link", { name: "Back to Blog" }).first()).toHaveAttribute(
    "href",
    "/blog",
  );
});

test("contact: information panel, tiles and the form's fields", async ({ page }) => {
  await page.goto("/contact");
  const main = page.getByRole("main");
  await expect(main.getByRole("link", { name: site.phone.display })).toHaveAttribute(
    "href",
    `tel:${site.phone.e164}`,
  );
  await expect(main).toContainText(site.phone.hours);
  const { city, region, postalCode } = site.address;
  await expect(main.locator("address")).toContainText(`${city}, ${region} ${postalCode}`);
  for (const line of site.officeHours.flatMap((h) => [h.label, h.text])) {
    await expect(main.locator("dl")).toContainText(line);
  }
  await expect(main).toContainText(site.response.infoLine);
  for (const tile of ["Quick Response", "Expert Team", "Free Consultation"]) {
    await expect(main.getByRole("heading", { name: tile })).toBeVisible();
  }
  await expect(main).toContainText(site.response.tile);
  await expect(main).toContainText(`${site.consultationMinutes}-minute consultation`);

  await expect(page.getByLabel("Full Name")).toHaveAttribute("required", "");
  await expect(page.getByLabel("Email Address")).toHaveAttribute("type", "email");
  await expect(page.getByLabel("Email Address")).toHaveAttribute("required", "");
  await expect(page.getByLabel("Company")).not.toHaveAttribute("required", "");
  await expect(page.getByLabel("Service Interest").locator("option")).toHaveText([
    "Select a service",
    "IT Infrastructure Solutions",
    "IT Consulting",
    "AI Consulting",
    "AI Software Development",
    "General Inquiry",
  ]);
  await expect(page.getByLabel("Service Interest")).toHaveValue("");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveAttribute("rows", "6");
  await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
});

test("imprint: the eight sections and the legal constants", async ({ page }) => {
  await page.goto("/imprint");
  await expect(page.locator("main h2")).toHaveText([
    "Company Information",
    "Contact Details",
    "Management",
    "Liability Disclaimer",
    "Copyright Notice",
    "Privacy Note",
    "Professional Licensing",
    "Dispute Resolution",
  ]);
  const main = page.getByRole("main");
  for (const text of [
    site.legalName,
    `Registration number: ${site.imprint.registrationNumber}`,
    site.imprint.supportHours,
    site.emergencySupport,
    ...site.imprint.managementRoles,
    usd(site.imprint.liabilityCoverageUsd),
    "California",
    `Last updated: ${site.imprint.lastUpdated}`,
  ]) {
    await expect(main).toContainText(text);
  }
});

test("the privacy notice: what is collected, who gets it, how long, choices, DNT, GPC, changes, effective date", async ({
  page,
  request,
}) => {
  await page.goto("/privacy");
  const main = page.getByRole("main");
  await expect(main.locator("h2")).toHaveText([
    "In Short",
    "What We Collect",
    "Why We Use It",
    // The public reply figure's counting, where the site shows it (site.response.publicFigure).
    ...(site.response.publicFigure.show ? ["How We Count Our Replies"] : []),
    "Who Helps Us Handle It",
    "How Long We Keep It",
    "How We Protect It",
    "Seeing, Correcting or Deleting Your Information",
    "Do Not Track and Global Privacy Control",
    "Children",
    "Changes to This Policy",
    "Contact",
  ]);
  // Its facts are the configuration's: every processor, the period, the time to answer, the date.
  for (const p of [...Object.values(site.privacy.processors), ...site.privacy.infrastructure]) {
    await expect(main).toContainText(`${p.category}, ${p.name}: ${p.gets}.`);
  }
  await expect(main).toContainText(site.privacy.addressKey);
  await expect(main).toContainText(`that record is kept for ${site.privacy.logDays} days`);
  await expect(main).toContainText("No third party collects anything on this website");
  await expect(main).toContainText("we answer it only at the email address it names");
  await expect(main).toContainText("by our own choice");
  // CalOPPA applies to any commercial website that collects personal information from Californians, whatever its size.
  await expect(main).toContainText(
    "Online Privacy Protection Act (CalOPPA) applies to this website",
  );
  await expect(main).not.toContainText("larger than ours");
  // The note under Send and this section name the same uses: answering, and keeping spam out.
  await expect(main).toContainText(
    "To answer your inquiry, and to keep the form free of automated spam",
  );
  await expect(main).not.toContainText(/only to answer you|anything but answering you\./);
  await expect(main).not.toContainText("by law;");
  await expect(page.locator("h1 + p")).toContainText(`What changed: ${site.privacy.lastChange}`);
  await expect(main).toContainText(/no longer than one\s+year/);
  await expect(main).toContainText(`Within ${site.privacy.answerDays} days`);
  await expect(main).toContainText(
    `Our backups hold it at most ${site.privacy.backupDays} days longer`,
  );
  // The calendars: what ours and theirs hold once a consultation is confirmed, how long, and what erasing does.
  const { calendar, calendarDays } = site.privacy;
  await expect(main).toContainText(`${calendar.category}, ${calendar.name}: ${calendar.gets}.`);
  await expect(main).toContainText(
    `We delete the event from our calendar within ${calendarDays} days after the call`,
  );
  await expect(main).toContainText("The invitation in your calendar is yours to keep or delete");
  await expect(main).toContainText(
    "a consultation still ahead is cancelled: a cancellation goes to our calendar and to yours",
  );
  await expect(main).toContainText("the phone number you give us to call you at");
  await expect(main).toContainText(`Effective date: ${site.privacy.effectiveDate}`);
  for (const words of [
    /name, email address and message/,
    /user agent/,
    /never the address itself/,
    /no cookies/,
  ]) {
    await expect(main).toContainText(words);
  }
  await expect(main.getByRole("link", { name: site.email }).first()).toHaveAttribute(
    "href",
    `mailto:${site.email}`,
  );
  // The GPC statement it links to, as the spec has it.
  await expect(main.getByRole("link", { name: "GPC statement" })).toHaveAttribute(
    "href",
    "/.well-known/gpc.json",
  );
  const gpc = await request.get("/.well-known/gpc.json");
  expect(gpc.headers()["content-type"]).toMatch(/^application\/json/);
  expect(await gpc.json()).toEqual({
    gpc: true,
    lastUpdate: new Date(`${site.privacy.effectiveDate} UTC`).toISOString().slice(0, 10),
  });
  // The imprint's privacy note points here instead of keeping a copy of its own.
  await page.goto("/imprint");
  await expect(
    page.locator("#privacy").locator("..").getByRole("link", { name: "Privacy Policy" }),
  ).toHaveAttribute("href", "/privacy");
});
