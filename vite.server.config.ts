import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { defineConfig } from "vite";

/**
 * The production server as one file (and chunks for what loads after the first page), ADR 0030:
 * a start loads it instead of some 400 modules, zod's 60 locales tree-shaken away. What the React
 * Router build also imports stays a package (one React Router, one React); app/config/site.ts stays
 * the source module the CLI and the tests read, so one object holds the company's facts.
 */

const outDir = resolve("build/server-main");
const fromOut = (path: string) => relative(outDir, path);
const site = resolve("app/config/site.ts");

export default defineConfig({
  publicDir: false,
  build: {
    ssr: "server/main.ts",
    outDir,
    emptyOutDir: true,
    target: "node24",
    minify: false,
    // An unexpected error's log line carries its stack on the TypeScript source (server.js turns
    // Node's source-map support on): file and line, not a line of the bundle. The maps leave the
    // sources out (the files are beside the build), which keeps them small to load at start.
    sourcemap: true,
    rolldownOptions: {
      external: [
        /^react(-dom)?(\/|$)/,
        /^@?react-router(\/|$)/,
        /^@react-router\//,
        "pg",
        "prom-client",
      ],
      output: {
        entryFileNames: "main.js",
        chunkFileNames: "[name]-[hash].js",
        sourcemapExcludeSources: true,
      },
    },
  },
  ssr: { noExternal: true, target: "node" },
  plugins: [
    {
      // Every file written and its size, once the last is written (server.js checks it before a start).
      name: "files-list",
      writeBundle(_, bundle) {
        const sizes = Object.values(bundle).map((o) => [
          o.fileName,
          Buffer.byteLength(o.type === "chunk" ? o.code : o.source),
        ]);
        writeFileSync(
          resolve(outDir, "files.json"),
          `${JSON.stringify(Object.fromEntries(sizes), null, 2)}\n`,
        );
      },
    },
    {
      name: "site-from-source",
      enforce: "pre",
      async resolveId(source, importer, options) {
        const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
        return resolved?.id === site ? { id: fromOut(site), external: true } : null;
      },
    },
    {
      // A module that finds its files beside itself (the migrations, the spam corpus) still finds them.
      name: "source-urls",
      transform(code, id) {
        if (
          !id.startsWith(process.cwd()) ||
          id.includes("/node_modules/") ||
          !code.includes("import.meta.url")
        )
          return;
        const source = JSON.stringify(fromOut(id));
        // The lines stay where they were (only columns move): the source map's lines hold as they are.
        return {
          code: code.replaceAll("import.meta.url", `new URL(${source}, import.meta.url).href`),
          map: null,
        };
      },
    },
  ],
});
