import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { readPublishedPosts } from "../../app/content/post-files.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * The site for machines (issue "Every click instant…", part 2): /llms.txt and the Markdown versions
 * it links to, served by the production server from the build, with the site's security headers.
 */

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

const get = (path: string) => fetch(`${server.url}${path}`);
const posts = readPublishedPosts();

describe("llms.txt and the Markdown versions", () => {
  it("lists the company, the service lines, every article and the contact route, each linking to Markdown that answers", async () => {
    const res = await get("/llms.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await res.text();
    expect(text.startsWith(`# ${site.name}\n\n> ${site.description}\n`)).toBe(true);
    for (const heading of ["## Services", "## Articles", "## Contact"])
      expect(text).toContain(heading);
    const links = [...text.matchAll(/\]\((https?:\/\/[^)]+)\)/g)].map(
      (m) => new URL(m[1] ?? "").pathname,
    );
    for (const p of posts) expect(links).toContain(`/blog/${p.slug}.md`);
    expect(links).toEqual(
      expect.arrayContaining(["/services.md", "/contact.md", "/imprint.md", "/privacy.md"]),
    );
    for (const path of new Set(links)) {
      const md = await get(path);
      expect(md.status, path).toBe(200);
      expect(md.headers.get("content-type"), path).toBe("text/markdown; charset=utf-8");
      expect(md.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(md.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      expect((await md.text()).length, path).toBeGreaterThan(200);
    }
  });

  it("gives each article's Markdown its title, author, date and the body the company wrote", async () => {
    for (const post of posts) {
      const text = await (await get(`/blog/${post.slug}.md`)).text();
      expect(text.startsWith(`# ${post.title}\n`)).toBe(true);
      expect(text).toContain(post.author);
      expect(text).toContain(post.date);
      expect(text).toContain(post.body);
    }
  });

  it("turns the services page and the imprint into Markdown from the built pages", async () => {
    const services = await (await get("/services.md")).text();
    expect(services).toMatch(/^# /m);
    expect(services).toContain("AI Consulting");
    expect(services).not.toMatch(/<svg|<script|<form/);
    const contact = await (await get("/contact.md")).text();
    expect(contact).toContain(site.phone.display);
    expect(contact).toContain(site.email);
  });

  it("links each article page to its Markdown, and keeps Markdown out of the sitemap", async () => {
    const [post] = posts;
    const html = await (await get(`/blog/${post?.slug}`)).text();
    expect(html).toContain(
      `<link rel="alternate" type="text/markdown" href="/blog/${post?.slug}.md"/>`,
    );
    expect(await (await get("/sitemap.xml")).text()).not.toContain(".md<");
  });
});

describe("speculation rules", () => {
  it("every page names the rules file, which is served as speculation rules and leaves out what must not load early", async () => {
    for (const path of ["/", "/services", "/blog", "/contact", "/imprint"]) {
      const res = await get(path);
      expect(res.headers.get("speculation-rules"), path).toBe('"/speculation-rules.json"');
      // Pages keep their own policy: no script where there is none.
      if (path !== "/contact")
        expect(res.headers.get("content-security-policy"), path).toContain("script-src 'none'");
    }
    const rules = await get("/speculation-rules.json");
    expect(rules.headers.get("content-type")).toBe("application/speculationrules+json");
    const body = await rules.json();
    const excluded = JSON.stringify(body.prerender[0].where);
    expect(excluded).toContain("/contact/sent");
    expect(excluded).toContain("/*.*");
    expect(body.prerender[0].eagerness).toBe("moderate");
  });
});
