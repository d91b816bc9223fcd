/**
 * Every page and file of the site, once. The routes (routes.ts), the prerender list
 * (react-router.config.ts), the sitemap (lib/feeds.server.ts), the main navigation, the end-to-end
 * tests and the site benchmark all read these tables: adding a page is a row here plus its module
 * in routes/. No imports, so Node, Vite, Playwright and the scripts can all load it.
 */

export type Page = {
  /** How code names the page when it links to it: `link.imprint`, never "/imprint" typed again. */
  readonly name: string;
  /** The URL path; ":slug" stands for each published post. */
  readonly path: string;
  /** The route module, relative to app/. */
  readonly module: string;
  /** Its label in the main navigation, if it has a place there. */
  readonly nav?: string;
  /** A page people land on: listed in the sitemap, tested and measured as a public page. */
  readonly public: boolean;
  /** Ships a script (the contact form's, added at build: ADR 0005): measured against the interactive budgets. */
  readonly interactive?: boolean;
  /** Has a Markdown version at its path + ".md", listed in /llms.txt (scripts/machine-readable.ts). */
  readonly markdown?: boolean;
};

export const pages = [
  { name: "home", path: "/", module: "routes/home.tsx", nav: "Home", public: true },
  {
    name: "services",
    path: "/services",
    module: "routes/services.tsx",
    nav: "Services",
    public: true,
    markdown: true,
  },
  { name: "blog", path: "/blog", module: "routes/blog.tsx", nav: "Blog", public: true },
  {
    name: "post",
    path: "/blog/:slug",
    module: "routes/blog-post.tsx",
    public: true,
    markdown: true,
  },
  {
    name: "contact",
    path: "/contact",
    module: "routes/contact.tsx",
    nav: "Contact",
    public: true,
    interactive: true,
    markdown: true,
  },
  { name: "contactSent", path: "/contact/sent", module: "routes/contact-sent.tsx", public: false },
  { name: "imprint", path: "/imprint", module: "routes/imprint.tsx", public: true, markdown: true },
  { name: "privacy", path: "/privacy", module: "routes/privacy.tsx", public: true, markdown: true },
] as const satisfies readonly Page[];

/** Files for crawlers and readers, prerendered from resource routes. */
export const files = [
  { name: "rss", path: "/blog/rss.xml", module: "routes/rss.ts" },
  { name: "sitemap", path: "/sitemap.xml", module: "routes/sitemap.ts" },
  { name: "robots", path: "/robots.txt", module: "routes/robots.ts" },
  { name: "securityTxt", path: "/.well-known/security.txt", module: "routes/security-txt.ts" },
  { name: "manifest", path: "/site.webmanifest", module: "routes/manifest.ts" },
  { name: "gpc", path: "/.well-known/gpc.json", module: "routes/gpc.ts" },
] as const;

type Linkable = Exclude<(typeof pages)[number], { name: "post" }> | (typeof files)[number];

/** Every page's and file's path by name, for links and metadata: `link.imprint` is "/imprint". */
export const link = Object.fromEntries([...pages, ...files].map((p) => [p.name, p.path])) as {
  readonly [P in Linkable as P["name"]]: P["path"];
};

/** A post's path: the "post" row's ":slug" filled in (tests/unit/pages.test.ts holds them together). */
export function postLink(slug: string): string {
  return `${link.blog}/${slug}`;
}

/** The main navigation, in the order of the table. */
export const navItems = pages.flatMap((p) => ("nav" in p ? [{ href: p.path, label: p.nav }] : []));

/** The highlighted nav item for a path: Blog stays current on its articles. */
export function isCurrent(href: string, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, "") || "/";
  return href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`);
}

/** The concrete paths of the pages that pass `filter`, ":slug" expanded to each published post. */
export function pagePaths(
  slugs: readonly string[],
  filter: (page: Page) => boolean = () => true,
): string[] {
  return (pages as readonly Page[])
    .filter(filter)
    .flatMap((p) =>
      p.path.includes(":slug") ? slugs.map((s) => p.path.replace(":slug", s)) : [p.path],
    );
}

/** The row a concrete path belongs to ("/blog/some-post" → "/blog/:slug"). */
export function pageOf(path: string): Page | undefined {
  return (pages as readonly Page[]).find((p) =>
    p.path.includes(":slug")
      ? new RegExp(`^${p.path.replace(":slug", "[^/]+")}$`).test(path)
      : p.path === path,
  );
}
