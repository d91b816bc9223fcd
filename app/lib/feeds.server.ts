import { site } from "#app/config/site.ts";
import type { PostView } from "#app/content/blog.server.ts";
import { escapeHtml } from "#app/lib/escape.ts";
import { link, pagePaths } from "#app/pages.ts";

/** Text files for crawlers and readers, built from the site config and the published posts. */

const cdata = (s: string) => `<![CDATA[${s.replace(/]]>/g, "]]]]><![CDATA[>")}]]>`;
const rfc822 = (date: string) => new Date(`${date}T12:00:00Z`).toUTCString();

// The public pages of pages.ts; posts are listed below, each with its date (no slugs here).
const LANDING_PATHS = pagePaths([], (p) => p.public);

export function sitemap(posts: PostView[]): string {
  const newest = posts[0]?.date;
  const entries = [
    ...LANDING_PATHS.map((path) => ({
      loc: `${site.url}${path}`,
      lastmod: path === link.home || path === link.blog ? newest : undefined,
    })),
    ...posts.map((p) => ({ loc: `${site.url}/blog/${p.slug}`, lastmod: p.date })),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries
  .map(
    (e) =>
      `  <url><loc>${escapeHtml(e.loc)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`,
  )
  .join("\n")}
</urlset>
`;
}

export function robots(): string {
  return `User-agent: *
Allow: /

Sitemap: ${site.url}/sitemap.xml
`;
}

export function rss(posts: PostView[]): string {
  const items = posts
    .map(
      (p) => `    <item>
      <title>${escapeHtml(p.title)}</title>
      <link>${site.url}/blog/${p.slug}</link>
      <guid isPermaLink="true">${site.url}/blog/${p.slug}</guid>
      <pubDate>${rfc822(p.date)}</pubDate>
      <dc:creator>${escapeHtml(p.author)}</dc:creator>
      <category>${escapeHtml(p.category)}</category>
      <description>${escapeHtml(p.excerpt)}</description>
      <content:encoded>${cdata(p.html)}</content:encoded>
    </item>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>${escapeHtml(`${site.name} Blog`)}</title>
    <link>${site.url}/blog</link>
    <atom:link href="${site.url}/blog/rss.xml" rel="self" type="application/rss+xml"/>
    <description>${escapeHtml(`${site.blog.about}.`)}</description>
    <language>en-us</language>
    <copyright>${escapeHtml(`© ${site.copyrightYear} ${site.legalName}`)}</copyright>
    ${posts[0] ? `<lastBuildDate>${rfc822(posts[0].date)}</lastBuildDate>` : ""}
${items}
  </channel>
</rss>
`;
}

/** RFC 9116. Expires one year after the build, as the RFC recommends (less than a year ahead). */
export function securityTxt(now = new Date()): string {
  const expires = new Date(now.getTime() + 364 * 86_400_000);
  return `Contact: mailto:${site.securityContact}
Expires: ${expires.toISOString().replace(/\.\d{3}Z$/, "Z")}
Preferred-Languages: en
Canonical: ${site.url}/.well-known/security.txt
`;
}

export function webManifest(): string {
  return `${JSON.stringify(
    {
      name: site.name,
      short_name: site.name,
      description: site.description,
      start_url: "/",
      scope: "/",
      display: "minimal-ui",
      lang: "en-US",
      background_color: "#ffffff",
      theme_color: site.themeColor.light,
      icons: [
        { src: "/favicon.svg", type: "image/svg+xml", sizes: "any" },
        { src: "/icon-192.png", type: "image/png", sizes: "192x192" },
        { src: "/icon-512.png", type: "image/png", sizes: "512x512" },
        { src: "/icon-512.png", type: "image/png", sizes: "512x512", purpose: "maskable" },
      ],
    },
    null,
    2,
  )}\n`;
}
