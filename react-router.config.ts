import type { Config } from "@react-router/dev/config";
import { publishedSlugs } from "./app/content/slugs";

const spaBaseline = process.env.SPA_BASELINE === "1";

export default (spaBaseline
  ? // The client-rendered baseline for BENCHMARKS.md (vite.config.ts): no server rendering, no prerender.
    { ssr: false, buildDirectory: "build-spa" }
  : {
      ssr: true,
      routeDiscovery: { mode: "initial" },
      async prerender() {
        const slugs = await publishedSlugs();
        return [
          "/",
          "/services",
          "/blog",
          "/contact",
          "/contact/sent",
          "/imprint",
          ...slugs.map((s) => `/blog/${s}`),
          "/blog/rss.xml",
          "/sitemap.xml",
          "/robots.txt",
          "/.well-known/security.txt",
          "/site.webmanifest",
        ];
      },
    }) satisfies Config;
