import { publishedSlugs, readPublishedPosts } from "../../app/content/post-files.ts";
import { isCurrent, navItems, pageOf, pagePaths } from "../../app/pages.ts";

/**
 * Every public page of app/pages.ts (each published post for /blog/:slug), with what a visitor must
 * find on it: its heading (a post's is its title) and the navigation item marked current.
 */
const headings: Record<string, string | RegExp> = {
  "/": /IT infrastructure and AI solutions/,
  "/services": "Our Services",
  "/blog": "Insights & Articles",
  "/contact": "Contact Us",
  "/imprint": "Imprint",
  "/privacy": "Privacy Policy",
};

const posts = readPublishedPosts();

function route(path: string) {
  const h1 = posts.find((p) => `/blog/${p.slug}` === path)?.title ?? headings[path];
  if (!h1)
    throw new Error(
      `tests/e2e/routes.ts: which heading must ${path} show? (a new page in app/pages.ts)`,
    );
  const nav = navItems.find((n) => isCurrent(n.href, path))?.label;
  return { path, h1, nav: nav ?? null, interactive: pageOf(path)?.interactive === true };
}

export const allRoutes = pagePaths(publishedSlugs(), (p) => p.public).map(route);
/** The pages with nothing interactive (no JavaScript). */
export const contentRoutes = allRoutes.filter((r) => !r.interactive);
export const contactRoute = route("/contact");
