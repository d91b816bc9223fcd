import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { freePort } from "../support/ports.ts";
import { copyOfProject, editFile } from "../support/project-copy.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * The company's editors at work, on a copy of the project as they have it: a post with a photo hero
 * dated later, the phone changed once, a fourth offering; `npm run build` as the docs say
 * (docs/editing.md); the production server under a controlled clock (Debian's faketime, preloaded)
 * crossing the post's date at the office. And the mistakes they make, read as they read them.
 */

const _root = process.cwd();
const copies: string[] = [];

function copy(): string {
  const dir = copyOfProject("editor-");
  copies.push(dir);
  return dir;
}

/** An editor's shell: neither the test runner's NODE_ENV nor a SITE_URL. */
function editorsShell(): NodeJS.ProcessEnv {
  const { SITE_URL: _, NODE_ENV: __, ...inherited } = process.env;
  return inherited;
}

/** An npm command in a copy, as an editor runs it: its exit code and everything it printed. */
function npm(dir: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync("npm", args, {
    cwd: dir,
    env: { ...editorsShell(), ...env },
    encoding: "utf8",
    timeout: 240_000,
    killSignal: "SIGKILL",
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const body = `${"Our new office opens in Cheyenne, with room for the whole team and a lab for client workshops. ".repeat(4)}\n\n## Where\n\nOn Central Avenue.\n`;
const post = (fields: Record<string, string>) =>
  `---\n${Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n")}\n---\n${body}`;

const LATER = "2030-01-15";
const newPost = {
  slug: "our-new-office",
  title: '"Our New Office in Cheyenne Opens Its Doors"',
  author: "Jennifer Walsh",
  category: "Company News",
  readTime: "3 min read",
  image: "./images/our-new-office.jpg",
  imageAlt: '"Photograph of warm light falling across the new office floor"',
  excerpt:
    '"We have moved into a bigger office on Central Avenue, with a lab where clients can try what we build."',
  icon: "Building",
  date: LATER,
};

const fourthOffering = `      {
        title: "Colocation",
        description:
          "Your own hardware in our Cheyenne data hall: power, cooling, cross-connects and remote hands, billed by the rack unit with no long contract.",
        features: ["Rack units from 1U to full racks", "Remote hands around the clock"],
      },
`;

describe("an editor publishes alone", { timeout: 300_000 }, () => {
  let dir: string;
  let build: { status: number | null; output: string };
  let server: RunningServer;

  beforeAll(async () => {
    dir = copy();
    execFileSync("convert", [
      "-seed",
      "7",
      "-size",
      "1600x900",
      "plasma:fractal",
      "-blur",
      "0x1",
      "-quality",
      "85",
      join(dir, "content/blog/images/our-new-office.jpg"),
    ]);
    writeFileSync(join(dir, "content/blog/our-new-office.md"), post(newPost));
    writeFileSync(
      join(dir, "content/blog/a-draft.md"),
      post({
        ...newPost,
        slug: "a-draft",
        title: '"A Draft Nobody Outside Should Read"',
        date: "2025-01-02",
        draft: "true",
      }),
    );
    editFile(dir, "app/config/site.ts", 'usPhone("(307) 555-0142")', 'usPhone("(307) 634-0100")');
    editFile(
      dir,
      "app/content/services.ts",
      '          "Scale up or down within a business day",\n        ],\n      },\n',
      `          "Scale up or down within a business day",\n        ],\n      },\n${fourthOffering}`,
    );
    build = npm(dir, ["run", "build"]);
    expect(build.status, build.output).toBe(0);
    // The office's midnight of the post's date (Mountain Standard Time, UTC-7) is 07:00 UTC: start
    // the server two minutes before it, its clock running five times as fast (24 seconds here).
    server = await startServer(
      {
        LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        FAKETIME: `@${LATER} 06:58:00 x5`,
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      },
      undefined,
      {},
      dir,
    );
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    for (const d of copies) rmSync(d, { recursive: true, force: true });
  });

  it("publishes the post dated later at the office's midnight, with nobody rebuilding", async () => {
    const get = (path: string) => fetch(`${server.url}${path}`);
    // Before the date (the server's own clock, in each answer's Date header, before midnight at the office): not there.
    const midnight = Date.parse(`${LATER}T07:00:00Z`);
    const post = await get("/blog/our-new-office");
    const blog = await get("/blog");
    expect(Date.parse(blog.headers.get("date") ?? "")).toBeLessThan(midnight);
    expect(post.status).toBe(404);
    expect(await blog.text()).not.toContain("Our New Office");
    // The clock passes midnight at the office: the server serves the day's state by itself.
    await expect
      .poll(async () => (await get("/blog/our-new-office")).status, { timeout: 60_000 })
      .toBe(200);
    expect(await (await get("/blog")).text()).toContain(
      "Our New Office in Cheyenne Opens Its Doors",
    );
    expect(await (await get("/blog/rss.xml")).text()).toContain("/blog/our-new-office");
    expect(await (await get("/sitemap.xml")).text()).toContain("/blog/our-new-office");
    expect((await get("/blog/our-new-office.md")).status).toBe(200);
  });

  it("builds the spec's content as given, naming each fact it states twice, once", () => {
    const warning = build.output.slice(build.output.indexOf("Facts that disagree"));
    expect(build.output.match(/Facts that disagree/g)).toHaveLength(1);
    expect(warning).toMatch(
      /^Facts that disagree \(kept for this build; a build for the public site refuses them\)/,
    );
    expect(warning).toMatch(/response\.dialogMessage says "within 24 hours"/);
    expect(warning).toMatch(/phone\.hours says "Monday to Friday 9:00 AM to 5:00 PM MDT"/);
    expect(warning).toMatch(/phone\.hours says "MDT"/);
    expect(warning).toMatch(
      /imprint\.supportHours says "Monday to Friday, 9:00 AM to 5:00 PM EST"/,
    );
    expect(warning).toMatch(/imprint\.supportHours says "EST"/);
    // A 1600 px photo is the size asked for: no note.
    expect(build.output).not.toMatch(/^Photo:/m);
  });

  it("shows the phone typed once wherever it is shown and dialled", async () => {
    const page = await (await fetch(`${server.url}/contact`)).text();
    expect(page).toContain(">(307) 634-0100<");
    expect(page).toContain('href="tel:+13076340100"');
    const ld = [...page.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)]
      .map((m) => m[1])
      .join();
    expect(ld).toContain('"telephone":"+13076340100"');
    expect(page).not.toContain("555-0142");
    expect(page).not.toContain("5550142");
  });

  it("lays out a fourth offering in two rows of two on a wide screen, one column on a phone", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      for (const [width, columns] of [
        [1440, [2, 2]],
        [768, [1, 1, 1, 1]],
        [390, [1, 1, 1, 1]],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}/services`);
        const cards = page.locator("#it-infrastructure article");
        await expect.poll(() => cards.count()).toBe(4);
        const boxes = await cards.evaluateAll((els) =>
          els.map((e) => {
            const r = e.getBoundingClientRect();
            return { top: Math.round(r.top), width: Math.round(r.width) };
          }),
        );
        const rows = [...new Set(boxes.map((b) => b.top))].map((top) =>
          boxes.filter((b) => b.top === top),
        );
        expect(rows.map((r) => r.length)).toEqual(columns);
        // Every card of a row as wide as the others: none left alone beside empty space.
        for (const row of rows) expect(new Set(row.map((b) => b.width)).size).toBe(1);
        // The lines with three offerings keep their one row of three.
        if (width === 1440) {
          const tops = await page
            .locator("#it-consulting article")
            .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
          expect(new Set(tops).size).toBe(1);
        }
      }
    } finally {
      await browser.close();
    }
  });

  it("shows drafts and later posts in the preview (npm run dev), and only there", async () => {
    expect((await fetch(`${server.url}/blog/a-draft`)).status).toBe(404);
    expect(await (await fetch(`${server.url}/blog`)).text()).not.toContain("A Draft Nobody");
    expect(await (await fetch(`${server.url}/blog`)).text()).not.toMatch(/Goes live|>Draft</);
    const port = await freePort();
    const dev = spawn("npm", ["run", "dev", "--", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: editorsShell(),
      detached: true,
      stdio: "ignore",
    });
    try {
      const preview = `http://127.0.0.1:${port}`;
      await expect
        .poll(
          () =>
            fetch(`${preview}/blog/a-draft`).then(
              (r) => r.status,
              () => 0,
            ),
          { timeout: 120_000 },
        )
        .toBe(200);
      const blog = await (await fetch(`${preview}/blog`)).text();
      expect(blog).toContain("A Draft Nobody Outside Should Read");
      expect(blog).toContain("Our New Office in Cheyenne Opens Its Doors");
      // Looked at as the editor does: what is not live is marked, and never the featured article.
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${preview}/blog`);
        const card = (title: string) => page.locator("article", { hasText: title });
        await expect
          .poll(() => card("A Draft Nobody").locator("strong").textContent())
          .toBe("Draft");
        expect(await card("Our New Office").locator("strong").textContent()).toBe(
          "Goes live Tue, Jan 15, 2030",
        );
        const featured = page.locator('article[aria-labelledby="featured-title"]');
        expect(await featured.locator("strong").count()).toBe(0);
        expect(await featured.textContent()).not.toMatch(/A Draft Nobody|Our New Office/);
        await page.goto(`${preview}/blog/a-draft`);
        expect(await page.locator("main header").textContent()).toContain(
          "Draft Only the preview shows this article while it is a draft.",
        );
        await page.goto(`${preview}/blog/our-new-office`);
        expect(await page.locator("main header").textContent()).toContain(
          "Goes live Tue, Jan 15, 2030 Only the preview shows this article before that day.",
        );
      } finally {
        await browser.close();
      }
    } finally {
      process.kill(-(dev.pid as number), "SIGTERM");
    }
  });

  it("serves the photo as AVIF and WebP at each width and the JPEG it was, in a picture that never shifts", async () => {
    await expect
      .poll(async () => (await fetch(`${server.url}/blog/our-new-office`)).status, {
        timeout: 60_000,
      })
      .toBe(200);
    const html = await (await fetch(`${server.url}/blog/our-new-office`)).text();
    const picture = /<picture>.*?<\/picture>/s.exec(html)?.[0] ?? "";
    const img = /<img [^>]*>/.exec(picture)?.[0] ?? "";
    expect(img).toContain('width="1600"');
    expect(img).toContain('height="900"');
    expect(img).toContain('fetchPriority="high"');
    expect(img).not.toContain("loading=");
    expect(img).toContain('alt="Photograph of warm light falling across the new office floor"');
    const og = /<meta property="og:image" content="[^"]*(\/assets\/[^"]+)"/.exec(html)?.[1] ?? "";
    for (const [type, set] of [
      ["image/avif", /<source type="image\/avif" srcSet="([^"]+)"/.exec(picture)?.[1]],
      ["image/webp", /<source type="image\/webp" srcSet="([^"]+)"/.exec(picture)?.[1]],
    ] as const) {
      const entries = (set ?? "").split(", ").map((e) => e.split(" "));
      expect(entries.map(([, w]) => w)).toEqual(["480w", "720w", "1080w", "1440w"]);
      for (const [url, w] of entries) {
        const response = await fetch(`${server.url}${url}`);
        expect(response.headers.get("content-type")).toBe(type);
        const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
        expect(`${meta.width}w`).toBe(w);
      }
    }
    // The original format, once, for what reads neither AVIF nor WebP.
    const src = /src="([^"]+)"/.exec(img)?.[1] ?? "";
    const fallback = await fetch(`${server.url}${src}`);
    expect(fallback.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(Buffer.from(await fallback.arrayBuffer())).metadata()).width).toBe(1200);
    const card = await sharp(
      Buffer.from(await (await fetch(`${server.url}${og}`)).arrayBuffer()),
    ).metadata();
    expect([card.format, card.width, card.height]).toEqual(["jpeg", 1200, 630]);
    // On the blog page, the newest post's picture is the largest element; the others load lazily.
    const blog = await (await fetch(`${server.url}/blog`)).text();
    const imgs = [...blog.matchAll(/<img [^>]*>/g)].map((m) => m[0]);
    expect(imgs[0]).toContain('fetchPriority="high"');
    for (const other of imgs.slice(1)) expect(other).toContain('loading="lazy"');
  });
});

describe("an editor's mistakes stop the build, the start and the preview with what to correct", {
  timeout: 300_000,
}, () => {
  let dir: string;
  beforeAll(() => {
    dir = copy();
    editFile(
      dir,
      "app/config/site.ts",
      '{ date: "2027-05-31", name: "Memorial Day" }',
      '{ date: "2027-05-32", name: "Memorial Day" }',
    );
    editFile(dir, "app/config/site.ts", 'usPhone("(307) 555-0142")', 'usPhone("(307) 555-014")');
    editFile(
      dir,
      "app/config/site.ts",
      'hours(["Saturday"], "10:00", "14:00")',
      'hours(["Saturday"], "10 AM", "14:00")',
    );
    editFile(
      dir,
      "content/blog/rent-or-buy-it-infrastructure.md",
      "date: 2025-03-18",
      "date: 2025-02-30",
    );
    editFile(
      dir,
      "content/blog/rent-or-buy-it-infrastructure.md",
      "icon: Building",
      "icon: Rocket",
    );
    editFile(
      dir,
      "content/blog/rent-or-buy-it-infrastructure.md",
      "readTime: 7 min read",
      "readtime: 7 min read",
    );
    editFile(
      dir,
      "content/blog/startup-ai-scaling-success.md",
      "image: ./images/startup-ai-scaling-success.svg",
      "image: ./images/img_4032.jpg",
    );
    // A comma forgotten after a line: before, the bundler's own output, and nothing else.
    editFile(
      dir,
      "app/content/services.ts",
      '"Scale up or down within a business day",',
      '"Scale up or down within a business day"\n          "Colocation in our Cheyenne data hall",',
    );
  });
  afterAll(() => {
    for (const d of copies) rmSync(d, { recursive: true, force: true });
  });

  const expected = [
    /^ {2}content\/blog\/rent-or-buy-it-infrastructure\.md, line 7, readtime: a post has no field "readtime" \(check its spelling\)/m,
    /^ {2}content\/blog\/rent-or-buy-it-infrastructure\.md, readTime: missing; add minutes to read, like: readTime: "8 min read"$/m,
    /^ {2}content\/blog\/rent-or-buy-it-infrastructure\.md, line 11, icon: found "Rocket"; expected one of TrendingUp, Building, Globe/m,
    /^ {2}content\/blog\/rent-or-buy-it-infrastructure\.md, line 12, date: found "2025-02-30", but February 2025 has 28 days; expected the publishing date written year-month-day, like: date: 2026-03-14/m,
    /^ {2}content\/blog\/startup-ai-scaling-success\.md, line 8, image: found "\.\/images\/img_4032\.jpg": the name has an underscore: use image: \.\/images\/img-4032\.jpg \(and rename the file to img-4032\.jpg\)$/m,
    /^ {2}app\/config\/site\.ts, line \d+, phone → display: a US number written \(307\) 555-0142 \(found "\(307\) 555-014"\)$/m,
    /^ {2}app\/config\/site\.ts, line \d+, officeHours → entry 2 → opens: use 24-hour HH:MM \(found "10 AM"\)$/m,
    /^ {2}app\/config\/site\.ts, line \d+, holidays → entry 12 → date: May 2027 has 31 days \(found "2027-05-32"\); expected a date like 2026-12-25$/m,
    /^ {2}app\/content\/services\.ts, line 65, column 11: found "Colocation in our Cheyenne data hall"; expected a comma \(,\) or the \] that ends the list opened on line 60 \(a comma at the end of line 64\?\)\. Write text in quotes, each field written name: "value" and followed by a comma, like: title: "Colocation",$/m,
  ];

  const readable = (output: string) => {
    for (const line of expected) expect(output).toMatch(line);
    expect(output).toMatch(/The site was not built: 9 mistakes to correct\./);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toMatch(/entry\.server|Error:|500|failed to load config|PARSE_ERROR/);
    // Read in a log file too: no colour codes.
    expect(output).not.toContain("\u001b[");
  };

  it("npm run build", () => {
    const r = npm(dir, ["run", "build"]);
    expect(r.status).toBe(1);
    readable(r.output);
  });

  it("npm start (it builds first)", () => {
    const r = npm(dir, ["start"]);
    expect(r.status).toBe(1);
    readable(r.output);
  });

  it("npm run dev (the preview)", () => {
    const r = npm(dir, ["run", "dev", "--", "--port", "0"]);
    expect(r.status).toBe(1);
    readable(r.output);
  });

  it("a syntax mistake in site.ts, with the services' own mistakes and a word out of quotes", () => {
    const broken = copy();
    editFile(broken, "app/config/site.ts", 'name: "Teton Digital",', 'name: "Teton Digital"');
    editFile(
      broken,
      "app/content/services.ts",
      'features: [\n          "Multi-market',
      'featurs: [\n          "Multi-market',
    );
    editFile(broken, "app/content/services.ts", 'title: "Rental Options"', "title: Rentals");
    const r = npm(broken, ["run", "build"]);
    expect(r.status).toBe(1);
    expect(r.output).toMatch(
      /^ {2}app\/config\/site\.ts, line 17, column 3: found "legalName"; expected a comma \(,\) or the \} that ends the group opened on line 15 \(a comma at the end of line 16\?\)\. Write/m,
    );
    expect(r.output).toMatch(
      /^ {2}app\/content\/services\.ts, line \d+, column \d+: found Rentals outside quotes; expected text in quotes, like: title: "Rentals",$/m,
    );
    expect(r.output).toMatch(/The site was not built: 2 mistakes to correct\./);
    editFile(broken, "app/content/services.ts", "title: Rentals", 'title: "Rental Options"');
    const again = npm(broken, ["run", "build"]);
    expect(again.output).toMatch(
      /^ {2}app\/content\/services\.ts, line \d+, AI Software Development → offerings → entry 3: no such field: featurs \(check the spelling\)$/m,
    );
    expect(again.output).toMatch(/The site was not built: 3 mistakes to correct\./);
    for (const out of [r.output, again.output]) {
      expect(out).not.toMatch(/^\s+at |failed to load config|PARSE_ERROR|Error:/m);
      expect(out).not.toContain("\u001b[");
    }
  });

  it("a photo that cannot be read (a cut-off download saved as .jpg) stops the build in one line", () => {
    const broken = copy();
    const photo = join(broken, "content/blog/images/ai-infrastructure-us-goldmine.jpg");
    writeFileSync(photo, readFileSync(photo).subarray(0, 2_000));
    const r = npm(broken, ["run", "build"]);
    expect(r.status).toBe(1);
    expect(r.output).toMatch(
      /The site was not built: content\/blog\/images\/ai-infrastructure-us-goldmine\.jpg cannot be read as a photo \(.+\)\. Export it again as a JPEG or PNG/,
    );
    expect(r.output).not.toMatch(/^\s+at /m);
  });

  it("a build for the public address refuses the placeholders, naming each; a local build does not", () => {
    const clean = copy();
    const r = npm(clean, ["run", "build"], { SITE_URL: "https://www.tetondigital.com" });
    expect(r.status).toBe(1);
    expect(r.output).toContain(
      "app/config/site.ts, email: still the placeholder hello@example.com; put the company's own before publishing to https://www.tetondigital.com",
    );
    expect(r.output).toContain(
      "app/config/site.ts, securityContact: still the placeholder security@example.com;",
    );
    expect(r.output).toContain("app/config/site.ts, phone: still the placeholder (307) 555-0142;");
  });
});
