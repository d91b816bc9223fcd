import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// With its extension: Node loads this file directly (the scripts and the end-to-end tests).
import { type Post, parsePost, publishedPosts } from "#app/content/post-parser.ts";
import { todayAtOffice } from "#app/content/publish-date.ts";

/**
 * The published posts, read from content/blog on disk: for the prerender list (react-router.config.ts),
 * the end-to-end tests and the benchmarks. The site itself gets them bundled (bundled-posts.ts).
 */
export function readPublishedPosts(
  dir = join(process.cwd(), "content/blog"),
  today = todayAtOffice(),
): Post[] {
  return publishedPosts(readPosts(dir), today);
}

/** Every post, drafts and later ones too. */
export function readPosts(dir = join(process.cwd(), "content/blog")): Post[] {
  const files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  return files.map((f) => parsePost(`content/blog/${f}`, readFileSync(join(dir, f), "utf8")));
}

export const publishedSlugs = (dir?: string): string[] =>
  readPublishedPosts(dir).map((p) => p.slug);
