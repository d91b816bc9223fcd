import type { Config } from "@react-router/dev/config";
import { publishedSlugs } from "./app/content/slugs";

export default {
  ssr: true,
  routeDiscovery: { mode: "initial" },
  async prerender() {
    const slugs = await publishedSlugs();
    return [
      "/",
      "/services",
      "/blog",
      "/contact",
      "/imprint",
      ...slugs.map((s) => `/blog/${s}`),
      "/blog/rss.xml",
      "/sitemap.xml",
      "/robots.txt",
      "/.well-known/security.txt",
      "/site.webmanifest",
    ];
  },
} satisfies Config;
