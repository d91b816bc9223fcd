import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { photos } from "./scripts/photos.ts";
import { loadBuildEnv } from "./server/config.ts";

const env = loadBuildEnv(process.env);

export default defineConfig({
  define: {
    // The build-time variables, from the one validated environment (server/env.ts).
    __SITE_URL__: JSON.stringify(env.SITE_URL),
    __CONTACT_ENDPOINT__: JSON.stringify(env.CONTACT_ENDPOINT),
    __CONTACT_PUBLIC_KEY__: JSON.stringify(env.CONTACT_PUBLIC_KEY ?? ""),
  },
  build: {
    // Every asset is a file with a hashed name: cacheable forever, and no data: URLs to allow in the CSP.
    assetsInlineLimit: 0,
  },
  // The server build carries the few icons the pages use, not lucide-react's whole entry (~1,600
  // icons) loaded at every start, and the part of zod it uses, not its 60 locales (~3 MB idle).
  ssr: { noExternal: ["lucide-react", "zod"] },
  // Photos become variants. What editors edit was checked before Vite started (scripts/content-check.ts).
  plugins: [photos(), tailwindcss(), reactRouter()],
});
