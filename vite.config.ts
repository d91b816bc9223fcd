import { fileURLToPath } from "node:url";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig({
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  define: {
    __SITE_URL__: JSON.stringify((process.env.SITE_URL || "https://www.example.com").replace(/\/+$/, "")),
  },
  build: {
    // Every asset is a file with a hashed name: cacheable forever, and no data: URLs to allow in the CSP.
    assetsInlineLimit: 0,
  },
  plugins: [tailwindcss(), reactRouter()],
});
