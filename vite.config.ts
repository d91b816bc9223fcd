import { fileURLToPath } from "node:url";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";
import { loadEnv } from "./server/env.ts";

const env = loadEnv();

/**
 * SPA_BASELINE=1: the same routes as a client-rendered single-page app (React Router's SPA mode),
 * only for the comparison in BENCHMARKS.md. Route loaders run in the browser as clientLoaders, the
 * posts are bundled for the browser, and every page loads the whole app.
 */
const spaBaseline = process.env.SPA_BASELINE === "1";

const loadersInTheBrowser: Plugin = {
  name: "spa-baseline-client-loaders",
  enforce: "pre",
  transform(code, id) {
    if (!id.includes("/app/routes/")) return null;
    return code
      .replace(/export function loader\(/g, "export function clientLoader(")
      .replace(/export async function action\(/g, "async function _serverAction(");
  },
};

export default defineConfig({
  resolve: {
    alias: [
      ...(spaBaseline
        ? [
            {
              find: /^~\/content\/posts\.server$/,
              replacement: fileURLToPath(new URL("./app/content/posts.ts", import.meta.url)),
            },
          ]
        : []),
      { find: "~", replacement: fileURLToPath(new URL("./app", import.meta.url)) },
    ],
  },
  define: {
    __SPA_BASELINE__: JSON.stringify(spaBaseline),
    // The build-time variables, from the one validated environment (server/env.ts).
    __SITE_URL__: JSON.stringify(env.SITE_URL),
    __CONTACT_ENDPOINT__: JSON.stringify(env.CONTACT_ENDPOINT),
    __CONTACT_PUBLIC_KEY__: JSON.stringify(env.CONTACT_PUBLIC_KEY ?? ""),
  },
  build: {
    // Every asset is a file with a hashed name: cacheable forever, and no data: URLs to allow in the CSP.
    assetsInlineLimit: 0,
  },
  plugins: [...(spaBaseline ? [loadersInTheBrowser] : []), tailwindcss(), reactRouter()],
});
