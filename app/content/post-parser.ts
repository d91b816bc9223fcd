import { Marked, type Tokens } from "marked";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { noSuchDate } from "#app/config/site.schema.ts";
import { postIcons } from "#app/content/icons.ts";
// With their extensions: Node loads this file directly (post-files.ts).
import { escapeHtml } from "#app/lib/escape.ts";

/**
 * One blog post: frontmatter validated with zod, body rendered from Markdown to HTML at build time.
 * Pure functions (no file system, no Vite), shared by the route loaders, the prerender list and the tests.
 */

const frontmatterSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  title: z.string().min(10).max(120),
  author: z.string().min(3),
  category: z.string().min(2).max(40),
  readTime: z.string().regex(/^\d{1,2} min read$/),
  image: z.string().regex(/^\.\/images\/[a-z0-9-]+\.(svg|jpg|jpeg|png|webp|avif)$/),
  imageAlt: z.string().min(10),
  imageFocus: z
    .string()
    .regex(/^(100|[1-9]?\d)% (100|[1-9]?\d)%$/)
    .optional(),
  excerpt: z.string().min(40).max(300),
  icon: z.enum(postIcons),
  date: z.iso.date(),
  draft: z.boolean().optional(),
});

/** What each field must be, said for the people who write posts: shown with any mistake in it. */
export const FIELD_HELP: Record<keyof z.infer<typeof frontmatterSchema>, string> = {
  slug: "lowercase words joined by hyphens, the same as the file name, like: slug: rent-or-buy-it-infrastructure",
  title:
    'a title of 10 to 120 characters, like: title: "Rent or Buy? Paying for IT Infrastructure"',
  author: 'the writer\'s name, like: author: "Sarah Chen"',
  category: 'a category of 2 to 40 characters, like: category: "AI & Machine Learning"',
  readTime: 'minutes to read, like: readTime: "8 min read"',
  image:
    "a picture saved in content/blog/images (JPEG, PNG, WebP, AVIF or SVG; lowercase name, hyphens, no spaces), like: image: ./images/team-at-work.jpg",
  imageAlt:
    'a sentence of 10 characters or more saying what the picture shows, like: imageAlt: "Two engineers at a server rack"',
  imageFocus:
    "where the picture's subject is, in percent across then down, like: imageFocus: 50% 30% (the middle, near the top); a picture of another shape than the page's top is cropped around it",
  excerpt: "a summary of 40 to 300 characters, shown on the blog page and in search results",
  icon: `one of ${postIcons.join(", ")}, like: icon: ${postIcons[0]}`,
  date: "the publishing date written year-month-day, like: date: 2026-03-14 (a later date publishes it on that day)",
  draft: "true or false, like: draft: true (a draft shows only in the preview, npm run dev)",
};

export type Frontmatter = z.infer<typeof frontmatterSchema>;
/** A post: its frontmatter, its Markdown body as the company wrote it, and that body as HTML. */
export type Post = Frontmatter & { body: string; html: string; file: string };

/** One mistake in a post, where it is. */
export type PostProblem = { file: string; line?: number; field: string; message: string };

export const formatProblem = (p: PostProblem) =>
  `${p.file}${p.line ? `, line ${p.line}` : ""}${p.field ? `, ${p.field}` : ""}: ${p.message}`;

/** Every mistake in one post (all of them at once). */
export class PostError extends Error {
  readonly file: string;
  readonly field: string;
  readonly problems: PostProblem[];
  constructor(problems: PostProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "PostError";
    this.problems = problems;
    this.file = problems[0]?.file ?? "";
    this.field = problems[0]?.field ?? "";
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

const IMAGE_TYPES = ["svg", "jpg", "jpeg", "png", "webp", "avif"];

/**
 * Which rule a picture's name breaks, and the name that keeps them: "has an underscore; use
 * ./images/img-4032.jpg". Undefined when it keeps them all (or is not text: the schema says so).
 */
export function imageNameProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.replace(/^.*[\\/]/, "");
  const dot = name.lastIndexOf(".");
  const [stem, type] = dot > 0 ? [name.slice(0, dot), name.slice(dot + 1)] : [name, ""];
  if (!IMAGE_TYPES.includes(type.toLowerCase())) {
    return type
      ? `a .${type} file cannot be shown on the site; export the picture as JPEG, PNG, WebP, AVIF or SVG`
      : "the name has no type at its end (.jpg, .png, .webp, .avif or .svg)";
  }
  const broken = [
    [/[A-Z]/.test(name), "capital letters"],
    [/_/.test(stem), "an underscore"],
    [/\s/.test(stem), "a space"],
    [/[^A-Za-z0-9_\s-]/.test(stem), "a character other than letters, digits and hyphens"],
  ].flatMap(([yes, what]) => (yes ? [what as string] : []));
  const folder = !value.startsWith("./images/");
  if (broken.length === 0 && !folder) return undefined;
  const better = `${
    stem
      .toLowerCase()
      .replace(/[\s_]+/g, "-")
      .replace(/[^a-z0-9-]/g, "")
      .replace(/-+/g, "-")
      .replace(/^-|-$/g, "") || "picture"
  }.${type.toLowerCase()}`;
  const list =
    broken.length > 1 ? `${broken.slice(0, -1).join(", ")} and ${broken.at(-1)}` : broken[0];
  const said = list ? `the name has ${list}` : "";
  const where = folder ? "the picture must be in content/blog/images, written ./images/…" : "";
  const rename = better === name ? "" : ` (and rename the file to ${better})`;
  return `${[said, where].filter(Boolean).join("; ")}: use image: ./images/${better}${rename}`;
}

const shown = (value: unknown) =>
  typeof value === "string" ? `"${value}"` : JSON.stringify(value);

/** A post, or every mistake in it. */
export function checkPost(file: string, raw: string): { post: Post } | { problems: PostProblem[] } {
  const match = FRONTMATTER.exec(raw);
  if (!match) {
    return {
      problems: [
        {
          file,
          line: 1,
          field: "",
          message:
            "the file must start with a line of three hyphens (---), the fields, then another --- line",
        },
      ],
    };
  }
  const lines = new LineCounter();
  const doc = parseDocument(match[1] ?? "", { lineCounter: lines });
  // Line 1 of the file is the opening ---.
  const lineAt = (offset: number) => lines.linePos(offset).line + 1;
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((e) => ({
        file,
        line: lineAt(e.pos[0]),
        field: "",
        message: `this line is not a field written "name: value" (${e.code.toLowerCase().replace(/_/g, " ")}); a value with a colon goes in quotes, like: title: "Rent or Buy: Paying for IT"`,
      })),
    };
  }
  const data = (doc.toJS() ?? {}) as Record<string, unknown>;
  const lineOf = (field: string) => {
    const node = isMap(doc.contents)
      ? doc.contents.items.find((i) => isScalar(i.key) && i.key.value === field)
      : undefined;
    const range = isScalar(node?.key) ? node.key.range : undefined;
    return range ? lineAt(range[0]) : undefined;
  };
  const problems: PostProblem[] = [];
  const result = frontmatterSchema.safeParse(data);
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) {
          problems.push({
            file,
            line: lineOf(key),
            field: key,
            message: `a post has no field "${key}" (check its spelling); the fields are ${Object.keys(FIELD_HELP).join(", ")}`,
          });
        }
        continue;
      }
      const field = String(issue.path[0] ?? "");
      const help = FIELD_HELP[field as keyof typeof FIELD_HELP];
      const value = data[field];
      // Which rule it breaks, where that can be said exactly.
      const why =
        field === "date"
          ? noSuchDate(value)
          : field === "image"
            ? imageNameProblem(value)
            : undefined;
      problems.push({
        file,
        line: lineOf(field),
        field,
        message:
          value === undefined
            ? `missing; add ${help}`
            : field === "image" && why
              ? `found ${shown(value)}: ${why}`
              : `found ${shown(value)}${why ? `, but ${why}` : ""}; expected ${help}`,
      });
    }
  }
  const name = file.replace(/^.*\//, "").replace(/\.md$/, "");
  if (
    typeof data.slug === "string" &&
    data.slug !== name &&
    !problems.some((p) => p.field === "slug")
  ) {
    problems.push({
      file,
      line: lineOf("slug"),
      field: "slug",
      message: `found "${data.slug}"; the slug must be the file's name: slug: ${name} (or rename the file to ${data.slug}.md)`,
    });
  }
  const body = (match[2] ?? "").trim();
  if (body.length < 200) {
    problems.push({
      file,
      line: raw.slice(0, raw.length - (match[2] ?? "").length).split("\n").length,
      field: "",
      message: `the article after the closing --- is missing or shorter than 200 characters (${body.length} now)`,
    });
  }
  if (problems.length > 0 || !result.success) return { problems };
  return { post: { ...result.data, body, html: renderMarkdown(body), file } };
}

export function parsePost(file: string, raw: string): Post {
  const checked = checkPost(file, raw);
  if ("problems" in checked) throw new PostError(checked.problems);
  return checked.post;
}

/** Two posts with one slug, as problems. */
export function duplicateSlugs(posts: Array<Pick<Post, "slug" | "file">>): PostProblem[] {
  const seen = new Map<string, string>();
  const problems: PostProblem[] = [];
  for (const p of posts) {
    if (seen.has(p.slug)) {
      problems.push({
        file: p.file,
        field: "slug",
        message: `"${p.slug}" is also the slug of ${seen.get(p.slug)}; give each post its own (and its file the same name)`,
      });
    }
    seen.set(p.slug, p.file);
  }
  return problems;
}

/**
 * Published posts, newest first: drafts (unless asked for) and posts dated after `today` (the
 * office's date: publish-date.ts todayAtOffice) are left out.
 */
export function publishedPosts<P extends Pick<Post, "slug" | "file" | "date" | "draft">>(
  posts: P[],
  today: string,
  { drafts = false }: { drafts?: boolean } = {},
): P[] {
  const duplicates = duplicateSlugs(posts);
  if (duplicates.length > 0) throw new PostError(duplicates);
  return posts
    .filter((p) => (drafts || !p.draft) && p.date <= today)
    .sort((a, b) => b.date.localeCompare(a.date));
}
