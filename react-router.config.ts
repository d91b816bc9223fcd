import type { Config } from "@react-router/dev/config";
import { publishedSlugs } from "./app/content/post-files";
import { files, pagePaths } from "./app/pages";

export default {
  ssr: true,
  routeDiscovery: { mode: "initial" },
  // Every page (each published post for /blog/:slug) and every file of app/pages.ts; /contact/sent
  // is the server's (it carries the visitor's own booking link, server/booking/).
  prerender() {
    return [
      ...pagePaths(publishedSlugs(), (p) => p.name !== "contactSent"),
      ...files.map((f) => f.path),
    ];
  },
} satisfies Config;
