import { Marked, type Tokens } from "marked";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { postIcons } from "#app/content/icons.ts";
// With their extensions: Node loads this file directly (post-files.ts).
import { escapeHtml } from "#app/lib/escape.ts";

/**
 * One blog post: frontmatter validated with zod, body rendered from Markdown to HTML at build time.
 * Pure functions (no file system, no Vite), shared by the route loaders, the prerender list and the tests.
 */

const frontmatterSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "lowercase words joined by hyphens"),
  title: z.string().min(10).max(120),
  author: z.string().min(3),
  category: z.string().min(2).max(40),
  readTime: z.string().regex(/^\d{1,2} min read$/, "like '8 min read'"),
  image: z.string().regex(/^\.\/images\/[a-z0-9-]+\.svg$/, "a file in content/blog/images, like ./images/name.svg"),
  imageAlt: z.string().min(10),
  excerpt: z.string().min(40).max(300),
  icon: z.enum(postIcons),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date like 2025-03-14"),
  draft: z.boolean().optional(),
});

export type Frontmatter = z.infer<typeof frontmatterSchema>;
/** A post: its frontmatter, its Markdown body as the company wrote it, and that body as HTML. */
export type Post = Frontmatter & { body: string; html: string; file: string };

export class PostError extends Error {
  readonly file: string;
  readonly field: string;
  constructor(file: string, field: string, detail: string) {
    super(`${file}: ${field === "" ? "" : `field "${field}": `}${detail}`);
    this.name = "PostError";
    this.file = file;
    this.field = field;
  }
}

/**
 * The spec's Markdown subset (#, ##, ###, lists, quotes, bold, inline code), rendered by marked.
 * Raw HTML in a post is shown as text, never injected. Headings move down one level: the page's
 * only <h1> is the article title.
 */
const markdown = new Marked({
  gfm: true,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.min(depth + 1, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      // Only web, mail and site-relative links; anything else (javascript:, data:) is shown as text.
      if (!/^(https?:|mailto:|\/(?!\/)|#)/i.test(href)) return text;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${t}>${text}</a>`;
    },
    image({ text }: Tokens.Image) {
      // Images in a body would load from anywhere; posts carry one hero image in frontmatter instead.
      return escapeHtml(text);
    },
  },
});

export function renderMarkdown(source: string): string {
  return markdown.parse(source, { async: false });
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

export function parsePost(file: string, raw: string): Post {
  const match = FRONTMATTER.exec(raw);
  if (!match) throw new PostError(file, "", "no frontmatter: the file must start with a --- block");
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? "");
  } catch (e) {
    throw new PostError(file, "", `frontmatter is not valid YAML: ${(e as Error).message}`);
  }
  const result = frontmatterSchema.safeParse(data ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join(".") || (issue?.code === "unrecognized_keys" ? issue.keys.join(", ") : "");
    throw new PostError(file, field, issue?.message ?? "invalid frontmatter");
  }
  const name = file.replace(/^.*\//, "").replace(/\.md$/, "");
  if (result.data.slug !== name) {
    throw new PostError(file, "slug", `must match the file name ("${name}")`);
  }
  const body = (match[2] ?? "").trim();
  if (body.length < 200) throw new PostError(file, "content", "the article body is missing or too short");
  return { ...result.data, body, html: renderMarkdown(body), file };
}

/** Published posts, newest first: drafts and posts dated in the future are left out. */
export function publishedPosts(posts: Post[], today: string = new Date().toISOString().slice(0, 10)): Post[] {
  const slugs = new Set<string>();
  for (const p of posts) {
    if (slugs.has(p.slug)) throw new PostError(p.file, "slug", `"${p.slug}" is used by another post`);
    slugs.add(p.slug);
  }
  return posts.filter((p) => !p.draft && p.date <= today).sort((a, b) => b.date.localeCompare(a.date));
}
