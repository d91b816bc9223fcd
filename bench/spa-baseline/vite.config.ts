import { defineConfig, mergeConfig, type Plugin } from "vite";
import { BOOK_MODULE } from "../../app/contact/booking.ts";
import { LEAD_MODULE, OVERVIEW_MODULE } from "../../app/contact/lead.ts";
import { files } from "../../app/pages.ts";
import production from "../../vite.config.ts";

/**
 * The production Vite configuration, with the route modules turned into what a client-rendered app
 * would have: loaders run in the browser (clientLoader), the posts are bundled for the browser
 * (bundled-posts.ts instead of the server-only blog.server.ts), and every page loads the whole app (the
 * root layout gets the <Scripts /> the production site leaves out). The files for crawlers (`files` in app/pages.ts) are
 * text made on the server, with nothing to render in a browser, and the page behind a lead's signed
 * links, the digest's overview page and the booking page, are the server's alone: empty routes here, never measured.
 * See react-router.config.ts beside this file.
 */
const fileRoutes = [...files.map((f) => f.module), LEAD_MODULE, OVERVIEW_MODULE, BOOK_MODULE].map(
  (m) => `/app/${m}`,
);

const clientRendered: Plugin = {
  name: "spa-baseline",
  enforce: "pre",
  transform(code, id) {
    if (fileRoutes.some((m) => id.split("?")[0]?.endsWith(m))) return "export {};\n";
    if (id.includes("/app/routes/")) {
      return code
        .replace(/export function loader\(/g, "export function clientLoader(")
        .replace(/export async function action\(/g, "async function _serverAction(")
        .replace(/(["'])#app\/content\/blog\.server\.ts\1/g, '"#app/content/bundled-posts.ts"');
    }
    if (id.endsWith("/app/root.tsx")) {
      const withScripts = code.replace("</body>", "<ScrollRestoration />\n<Scripts />\n</body>");
      if (withScripts === code)
        throw new Error("spa-baseline: no </body> in app/root.tsx to put <Scripts /> before");
      return `import { Scripts, ScrollRestoration } from "react-router";\n${withScripts}`;
    }
    return null;
  },
};

export default mergeConfig(production, defineConfig({ plugins: [clientRendered] }));
