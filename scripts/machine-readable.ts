import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import TurndownService from "turndown";
import { site } from "../app/config/site.ts";
import type { Post } from "../app/content/post-parser.ts";
import { serviceLines } from "../app/content/services.ts";
import { pagePaths } from "../app/pages.ts";

/**
 * The site for machines as well as people (llmstxt.org): a Markdown version of each page marked
 * `markdown` in app/pages.ts, at its path + ".md", and /llms.txt listing them. An article's is the
 * body the company wrote; the others are the prerendered page's <main>, turned into Markdown, so
 * nothing is typed twice. Run by scripts/postbuild.js, before precompression.
 */

const turndown = new TurndownService({
  headingStyle: "atx",
  bulletListMarker: "-",
  codeBlockStyle: "fenced",
});
// Icons, the form's controls and scripts say nothing in text.
turndown.remove((node) =>
  ["SVG", "svg", "SCRIPT", "STYLE", "FORM", "NOSCRIPT", "TEMPLATE", "DIALOG"].includes(
    node.nodeName,
  ),
);

/** The <main> of a prerendered page, as Markdown, with links made absolute. */
function pageMarkdown(html: string, siteUrl: string): string {
  const main = /<main\b[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
  return `${turndown.turndown(main).replace(/\]\(\//g, `](${siteUrl}/`)}\n`;
}

export function articleMarkdown(post: Post): string {
  return `# ${post.title}\n\n*By ${post.author}, ${post.date} · ${post.category} · ${post.readTime}*\n\n${post.body}\n`;
}

function llmsTxt(posts: Post[], siteUrl: string): string {
  const md = (path: string) => `${siteUrl}${path}.md`;
  return `# ${site.name}

> ${site.description}

${site.blurb} Reach us at ${site.phone.display} (${site.phone.hours}) or ${site.email}; the office is at ${site.address.street}, ${site.address.city}, ${site.address.region} ${site.address.postalCode}.

## Services

${serviceLines.map((s) => `- [${s.title}](${md("/services")}): ${s.summary}`).join("\n")}

## Articles

${posts.map((p) => `- [${p.title}](${md(`/blog/${p.slug}`)}): ${p.excerpt}`).join("\n")}

## Contact

- [Contact ${site.name}](${md("/contact")}): phone, email, address and office hours; the form at ${siteUrl}/contact

## Optional

- [Privacy Policy](${md("/privacy")}): what the site collects, who helps handle it, how long it is kept, how to see or delete it
- [Imprint](${md("/imprint")}): who runs this site
`;
}

/** Write every Markdown version and /llms.txt into `root` (build/client); returns how many files. */
export function writeMachineReadable(root: string, posts: Post[], siteUrl: string): number {
  const bySlug = new Map(posts.map((p) => [`/blog/${p.slug}`, p]));
  const paths = pagePaths(
    posts.map((p) => p.slug),
    (p) => p.markdown === true,
  );
  for (const path of paths) {
    const post = bySlug.get(path);
    const text = post
      ? articleMarkdown(post)
      : pageMarkdown(readFileSync(join(root, path, "index.html"), "utf8"), siteUrl);
    writeFileSync(join(root, `${path}.md`), text);
  }
  writeFileSync(join(root, "llms.txt"), llmsTxt(posts, siteUrl));
  return paths.length + 1;
}
