import type { Config } from "@react-router/dev/config";
import { publishedSlugs } from "./app/content/slugs";

export default {
  ssr: true,
  routeDiscovery: { mode: "initial" },
  async prerender() {
    const slugs = await publishedSlugs();
    return ["/", "/services", "/blog", "/contact", "/imprint", ...slugs.map((s) => `/blog/${s}`)];
  },
} satisfies Config;
