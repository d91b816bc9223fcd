import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { publishedSlugs } from "#app/content/post-files.ts";
import {
  type Post,
  PostError,
  parsePost,
  publishedPosts,
  renderMarkdown,
} from "#app/content/post-parser.ts";
import { todayAtOffice } from "#app/content/publish-date.ts";
import { MIN_WIDTH } from "../../scripts/photos.ts";

const dir = join(process.cwd(), "content/blog");
const files = readdirSync(dir).filter((f) => f.endsWith(".md"));
const posts = files.map((f) => parsePost(`content/blog/${f}`, readFileSync(join(dir, f), "utf8")));

const body = "A paragraph that is long enough to count as an article body. ".repeat(5);
const frontmatter = {
  slug: "a-good-post",
  title: "A perfectly good title",
  author: "Jane Doe",
  category: "Testing",
  readTime: "5 min read",
  image: "./images/a-good-post.svg",
  imageAlt: "A description of the image",
  excerpt: "An excerpt that is long enough to pass the minimum length rule.",
  icon: "Globe",
  date: "2025-01-02",
};
const source = (fm: Record<string, unknown>, text = body) =>
  `---\n${Object.entries(fm)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join("\n")}\n---\n${text}`;

function errorOf(fn: () => unknown): PostError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PostError) return e;
    throw e;
  }
  throw new Error("expected a PostError");
}

describe("post frontmatter", () => {
  it("parses a valid post", () => {
    const post = parsePost("content/blog/a-good-post.md", source(frontmatter));
    expect(post).toMatchObject({ ...frontmatter, file: "content/blog/a-good-post.md" });
    expect(post.html).toContain("<p>A paragraph");
  });

  it.each([
    ["title", { title: undefined }],
    ["icon", { icon: "Rocket" }],
    ["readTime", { readTime: "five minutes" }],
    ["date", { date: "March 3" }],
    ["image", { image: "https://images.example.com/photo.jpg" }],
    ["slug", { slug: "another-name" }],
    ["imageFocus", { imageFocus: "50% 130%" }],
    ["colour", { colour: "blue" }],
  ])("names the file and the field %s", (field, change) => {
    const fm: Record<string, unknown> = { ...frontmatter, ...change };
    for (const k of Object.keys(fm)) if (fm[k] === undefined) delete fm[k];
    const err = errorOf(() => parsePost("content/blog/a-good-post.md", source(fm)));
    expect(err.file).toBe("content/blog/a-good-post.md");
    expect(err.field).toBe(field);
    // The file, the line the field is on (the frontmatter starts on line 2), the field, an example.
    const line = Object.keys(fm).indexOf(field) + 2;
    const at = field === "title" ? "" : `, line ${line}`;
    expect(err.message).toMatch(
      new RegExp(
        `^content/blog/a-good-post\\.md${at}, ${field}: .*(like:|fields are|slug: a-good-post|use image: \\./images/photo\\.jpg)`,
      ),
    );
  });

  it("reads the photo's focus, in percent across then down", () => {
    const post = parsePost(
      "content/blog/a-good-post.md",
      source({ ...frontmatter, imageFocus: "50% 30%" }),
    );
    expect(post.imageFocus).toBe("50% 30%");
    const err = errorOf(() =>
      parsePost("content/blog/a-good-post.md", source({ ...frontmatter, imageFocus: "top" })),
    );
    expect(err.message).toMatch(
      /, imageFocus: found "top"; expected where the picture's subject is, in percent across then down, like: imageFocus: 50% 30%/,
    );
  });

  it("names every mistake of the file at once, each on its line, with what was found", () => {
    const fm = {
      ...frontmatter,
      date: "2026-13-01",
      icon: "Rocket",
      image: "./images/Team Photo.PNG",
    };
    const err = errorOf(() => parsePost("content/blog/a-good-post.md", source(fm)));
    expect(err.message.split("\n")).toEqual([
      expect.stringMatching(
        /^content\/blog\/a-good-post\.md, line 7, image: found "\.\/images\/Team Photo\.PNG": the name has capital letters and a space: use image: \.\/images\/team-photo\.png \(and rename the file to team-photo\.png\)$/,
      ),
      expect.stringMatching(
        /^content\/blog\/a-good-post\.md, line 10, icon: found "Rocket"; expected one of TrendingUp, Building, Globe/,
      ),
      expect.stringMatching(
        /^content\/blog\/a-good-post\.md, line 11, date: found "2026-13-01", but there is no month 13 \(months go from 01 to 12\); expected the publishing date written year-month-day, like: date: 2026-03-14/,
      ),
    ]);
  });

  it("says which day a date lacks and which rule a picture's name breaks", () => {
    const said = (change: Record<string, unknown>) =>
      errorOf(() => parsePost("content/blog/a-good-post.md", source({ ...frontmatter, ...change })))
        .message;
    expect(said({ date: "2026-11-31" })).toContain(
      'date: found "2026-11-31", but November 2026 has 30 days; expected',
    );
    expect(said({ date: "2027-02-29" })).toContain("February 2027 has 28 days");
    expect(said({ image: "./images/img_4032.jpg" })).toContain(
      'image: found "./images/img_4032.jpg": the name has an underscore: use image: ./images/img-4032.jpg (and rename the file to img-4032.jpg)',
    );
    expect(said({ image: "./images/photo.heic" })).toContain(
      "a .heic file cannot be shown on the site; export the picture as JPEG, PNG, WebP, AVIF or SVG",
    );
  });

  it("rejects a file without frontmatter, invalid YAML or no body, saying where", () => {
    expect(errorOf(() => parsePost("x.md", "# Just a heading")).message).toMatch(
      /^x\.md, line 1: the file must start/,
    );
    expect(
      errorOf(() => parsePost("x.md", "---\nslug: x\ntitle: [unclosed\n---\nbody")).message,
    ).toMatch(/^x\.md, line 3: this line is not a field/);
    expect(
      errorOf(() => parsePost("content/blog/a-good-post.md", source(frontmatter, "Too short.")))
        .message,
    ).toMatch(
      /, line 13: the article after the closing --- is missing or shorter than 200 characters/,
    );
  });

  it("leaves out drafts and future posts, newest first, and refuses duplicate slugs", () => {
    const make = (slug: string, date: string, draft?: boolean) =>
      ({ ...frontmatter, slug, date, draft }) as Post;
    const list = [
      make("old", "2024-01-01"),
      make("new", "2025-01-01"),
      make("draft", "2024-06-01", true),
      make("future", "2099-01-01"),
    ];
    expect(publishedPosts(list, "2025-06-01").map((p) => p.slug)).toEqual(["new", "old"]);
    expect(publishedPosts(list, "2025-06-01", { drafts: true }).map((p) => p.slug)).toEqual([
      "new",
      "draft",
      "old",
    ]);
    expect(() =>
      publishedPosts([make("same", "2024-01-01"), make("same", "2024-02-02")], "2025-06-01"),
    ).toThrow(/"same" is also the slug of/);
  });
});

describe("markdown subset", () => {
  const html = renderMarkdown(
    [
      "# One",
      "## Two",
      "### Three",
      "- bullet",
      "",
      "1. first",
      "2. second",
      "",
      "> quoted",
      "",
      "Some **bold** and `code`.",
    ].join("\n"),
  );

  it("renders every element of the spec, headings one level down", () => {
    expect(html).toContain("<h2>One</h2>");
    expect(html).toContain("<h3>Two</h3>");
    expect(html).toContain("<h4>Three</h4>");
    expect(html).toMatch(/<ul>\s*<li>bullet<\/li>\s*<\/ul>/);
    expect(html).toMatch(/<ol>\s*<li>first<\/li>\s*<li>second<\/li>\s*<\/ol>/);
    expect(html).toMatch(/<blockquote>\s*<p>quoted<\/p>\s*<\/blockquote>/);
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<code>code</code>");
  });

  it("escapes raw HTML instead of injecting it", () => {
    const out = renderMarkdown(
      '<script>alert("x")</script>\n\nText with <img src=x onerror=alert(1)> inline.',
    );
    expect(out).not.toMatch(/<script|<img/);
    expect(out).toContain("&lt;script&gt;");
    expect(out).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("never links to javascript: URLs and never loads body images", () => {
    const out = renderMarkdown(
      "[click](javascript:alert(1)) and ![pic](https://elsewhere.example/x.png)",
    );
    expect(out).not.toMatch(/<a |<img/);
    expect(renderMarkdown("[home](/contact)")).toContain('<a href="/contact">home</a>');
  });
});

describe("the blog's content", () => {
  it("has four published posts with the spec's slugs and categories", async () => {
    expect(posts).toHaveLength(4);
    const byslug = Object.fromEntries(posts.map((p) => [p.slug, p.category]));
    expect(byslug).toMatchObject({
      "ai-infrastructure-us-goldmine": "AI Infrastructure",
      "startup-ai-scaling-success": "Case Study",
      "eu-guidelines-it-infrastructure": "Compliance",
    });
    expect(publishedSlugs().sort()).toEqual(posts.map((p) => p.slug).sort());
    expect(publishedPosts(posts, todayAtOffice())[0]?.slug).toBe("ai-infrastructure-us-goldmine");
  });

  it.each(posts.map((p) => [p.slug, p] as const))(
    "%s is substantial and uses every Markdown element",
    (_s, post) => {
      const words = post.html
        .replace(/<[^>]+>/g, " ")
        .split(/\s+/)
        .filter(Boolean).length;
      expect(words).toBeGreaterThanOrEqual(700);
      for (const tag of [
        "<h2>",
        "<h3>",
        "<h4>",
        "<ul>",
        "<ol>",
        "<blockquote>",
        "<strong>",
        "<code>",
      ]) {
        expect(post.html).toContain(tag);
      }
    },
  );

  it("ships a 1200×630 drawing, or a photo at least 1200 px wide, as every post's hero", async () => {
    for (const post of posts) {
      if (post.image.endsWith(".svg")) {
        const svg = readFileSync(join(dir, post.image), "utf8");
        expect(svg).toMatch(/^<svg[^>]*width="1200"[^>]*height="630"/);
        expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
      } else {
        const { width } = await sharp(join(dir, post.image)).metadata();
        expect(width).toBeGreaterThanOrEqual(MIN_WIDTH);
      }
    }
    expect(posts.some((p) => !p.image.endsWith(".svg"))).toBe(true);
  });
});
