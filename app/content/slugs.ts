import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePost, publishedPosts } from "./post";

/** Read by react-router.config.ts to know which article pages to prerender. */
export async function publishedSlugs(dir = join(process.cwd(), "content/blog")): Promise<string[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  const posts = files.map((f) => parsePost(`content/blog/${f}`, readFileSync(join(dir, f), "utf8")));
  return publishedPosts(posts).map((p) => p.slug);
}
