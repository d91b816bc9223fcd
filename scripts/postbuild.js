import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { build as viteBuild } from "vite";
import { site } from "../app/config/site.ts";
import { readPosts, readPublishedPosts } from "../app/content/post-files.ts";
import { todayAtOffice } from "../app/content/publish-date.ts";
import { loadBuildEnv } from "../server/config.ts";
import { BUILD_TIME } from "../server/env.ts";
import {
  BASE_HEADERS,
  externalOrigin,
  HSTS,
  NON_HTML_POLICY,
  PAGE_HEADERS,
  policyForHtml,
} from "../server/security.ts";
import { HTML_CACHE, IMMUTABLE, typesByPath, walk } from "../server/static.ts";
import { cacheDir, KEEP_DAYS, prune } from "./build-cache.ts";
import { BUILD_TIME_RECORD, buildTimeValues } from "./ensure-build.js";
import { buildImages, drawSocialImages } from "./images.ts";
import { articleMarkdown, writeMachineReadable } from "./machine-readable.ts";

/**
 * After `react-router build`: write the not-found pages as build/client/404.html and
 * build/client/blog/404.html (static hosts and CDNs answer unknown paths with them), write build/client/_headers (the Node server's security
 * headers and caching, for static hosts that read that file), then precompress every text file of build/client with brotli (quality 11)
 * and gzip (level 9), so neither the Node server nor a CDN compresses a page per request.
 */

const root = new URL("../build/client/", import.meta.url).pathname;
const build = await import(new URL("../build/server/index.js", import.meta.url).href);
// The same for an article that does not exist ("Post Not Found"): build/client/blog/404.html. The
// Node server answers every unknown path with one of these two, from memory, with status 404.
const render = createRequestHandler(build, "production");
for (const [url, file] of [
  ["http://localhost/__not-found__", "404.html"],
  ["http://localhost/blog/__not-found__", "blog/404.html"],
]) {
  const notFound = await render(new Request(url));
  if (notFound.status !== 404)
    throw new Error(`postbuild: expected a 404 page for ${url}, got ${notFound.status}`);
  writeFileSync(join(root, file), await notFound.text());
}

// The build-time variables, parsed once here as vite.config.ts parses them (server/env.ts).
const env = loadBuildEnv(process.env);

// The contact form's progressive enhancement (app/contact/enhance.ts): bundled on its own, named by
// its content's hash, and added to every prerendered page that has the form.
const bundle = await viteBuild({
  configFile: false,
  logLevel: "warn",
  define: { __SITE_URL__: JSON.stringify(env.SITE_URL) },
  build: {
    write: false,
    minify: true,
    copyPublicDir: false,
    lib: { entry: new URL("../app/contact/enhance.ts", import.meta.url).pathname, formats: ["es"] },
  },
});
const code = (Array.isArray(bundle) ? bundle[0] : bundle).output[0].code;
const enhanceFile = `contact-${createHash("sha256").update(code).digest("hex").slice(0, 10)}.js`;
writeFileSync(join(root, "assets", enhanceFile), code);
let enhanced = 0;
for (const path of walk(root)) {
  if (!path.endsWith(".html")) continue;
  const html = readFileSync(path, "utf8");
  if (!html.includes("data-contact-form")) continue;
  writeFileSync(
    path,
    html.replace("</body>", `<script type="module" src="/assets/${enhanceFile}"></script></body>`),
  );
  enhanced += 1;
}
console.log(
  `postbuild: contact form module ${enhanceFile} (${code.length} bytes) added to ${enhanced} page(s)`,
);

// Favicons and one social image per page (og:image), from each page's own title and description.
const ogTitle = (html, name) =>
  html.match(new RegExp(`<meta property="${name}" content="([^"]*)"`))?.[1];
const decodeEntities = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const pages = [];
for (const path of walk(root)) {
  if (!path.endsWith("/index.html")) continue;
  const html = readFileSync(path, "utf8");
  const title = ogTitle(html, "og:title");
  const description = ogTitle(html, "og:description");
  // A page with a photo of its own (a post's hero: scripts/photos.ts) needs no drawn card.
  if (!title || !description || !ogTitle(html, "og:image")?.includes("/social/")) continue;
  const dir = path.slice(root.length - 1, -"index.html".length);
  pages.push({
    path: dir === "/" ? "/" : dir.slice(0, -1),
    title: decodeEntities(title),
    description: decodeEntities(description),
  });
}
const images = await buildImages(root, pages, { name: site.name, url: env.SITE_URL });
console.log(
  `postbuild: favicons, and ${images.pages} social images (${images.pages - images.drawn} of ${images.pages} reused from the cache)`,
);

// Markdown versions of the pages marked `markdown` in app/pages.ts, and /llms.txt listing them.
const machineReadable = writeMachineReadable(root, readPublishedPosts(), env.SITE_URL);
console.log(`postbuild: /llms.txt and ${machineReadable - 1} Markdown versions of pages`);

// Posts dated later: the pages that list or show posts, made as they will be on each such date, into
// build/scheduled/<date>/. The server serves the newest state whose date has come at the office
// (server/static.ts), so a post goes live on its date with nobody rebuilding (ADR 0026).
const scheduledRoot = new URL("../build/scheduled/", import.meta.url).pathname;
rmSync(scheduledRoot, { recursive: true, force: true });
// Today's too: a build that crosses the office's midnight between the prerender and this step
// still shows the day's post (a state the server already holds is harmless).
const today = todayAtOffice();
const later = readPosts().filter((p) => !p.draft && p.date >= today);
const { publishDateContext } = build.entry.module;
for (const date of [...new Set(later.map((p) => p.date))].sort()) {
  const dir = join(scheduledRoot, date);
  const context = new RouterContextProvider();
  context.set(publishDateContext, date);
  const live = later.filter((p) => p.date <= date);
  const statePages = [];
  for (const path of [
    "/blog",
    "/blog/rss.xml",
    "/sitemap.xml",
    ...live.map((p) => `/blog/${p.slug}`),
  ]) {
    const response = await render(new Request(`http://localhost${path}`), context);
    if (response.status !== 200)
      throw new Error(`postbuild: ${path} as on ${date} answered ${response.status}`);
    const html = await response.text();
    const file = join(dir, extname(path) ? path : `${path}/index.html`);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, html);
    const title = ogTitle(html, "og:title");
    const description = ogTitle(html, "og:description");
    if (title && description && ogTitle(html, "og:image")?.includes("/social/")) {
      statePages.push({
        path,
        title: decodeEntities(title),
        description: decodeEntities(description),
      });
    }
  }
  for (const post of live) writeFileSync(join(dir, `blog/${post.slug}.md`), articleMarkdown(post));
  await drawSocialImages(dir, statePages, { name: site.name, url: env.SITE_URL });
  console.log(
    `postbuild: the blog as on ${date}, when ${live.map((p) => p.slug).join(", ")} go(es) live`,
  );
}

// _headers: one rule per page with its own CSP (hosts merge the headers of overlapping rules, and two
// CSPs would both be enforced, so the catch-all rule carries none); hashed assets cached forever.
const rules = [];
const common = { ...BASE_HEADERS, "Strict-Transport-Security": HSTS };
const block = (path, headers) =>
  `${path}\n${Object.entries(headers)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join("\n")}`;
rules.push(block("/*", common));
rules.push(
  block("/assets/*", {
    "Cache-Control": IMMUTABLE,
    "Content-Security-Policy": NON_HTML_POLICY,
  }),
);
for (const path of walk(root)) {
  if (!path.endsWith(".html")) continue;
  const rel = path.slice(root.length - 1);
  const csp = {
    "Content-Security-Policy": policyForHtml(
      readFileSync(path, "utf8"),
      externalOrigin(env.CONTACT_ENDPOINT),
    ),
    ...PAGE_HEADERS,
    "Cache-Control": HTML_CACHE,
  };
  if (rel.endsWith("/index.html")) {
    const dir = rel.slice(0, -"index.html".length);
    rules.push(block(dir, csp));
    if (dir !== "/") rules.push(block(dir.slice(0, -1), csp));
  } else {
    rules.push(block(rel, csp));
  }
}
for (const [path, type] of Object.entries(typesByPath))
  rules.push(block(path, { "Content-Type": type }));
writeFileSync(join(root, "_headers"), `${rules.join("\n\n")}\n`);

const compressible = new Set([
  ".html",
  ".css",
  ".js",
  ".svg",
  ".json",
  ".xml",
  ".txt",
  ".md",
  ".data",
  ".webmanifest",
]);

let count = 0;
let raw = 0;
let br = 0;
const scheduled = existsSync(scheduledRoot) ? [...walk(scheduledRoot)] : [];
for (const path of [...walk(root), ...scheduled]) {
  if (!compressible.has(extname(path))) continue;
  const body = readFileSync(path);
  if (body.length < 512) continue;
  const b = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  writeFileSync(`${path}.br`, b);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  count += 1;
  raw += body.length;
  br += b.length;
}
console.log(
  `postbuild: precompressed ${count} files (${(raw / 1024).toFixed(1)} KiB → ${(br / 1024).toFixed(1)} KiB brotli)`,
);

// The caches of photos and social images keep what a build used in the last KEEP_DAYS, no more:
// pruned once this build has used (and marked) every entry it needs.
const pruned = prune(cacheDir("photos")) + prune(cacheDir("social"));
if (pruned > 0)
  console.log(
    `postbuild: ${pruned} ${pruned === 1 ? "entry" : "entries"} no build used for ${KEEP_DAYS} days deleted from the build cache`,
  );
// What this build read of the build-time variables: `npm start` (scripts/ensure-build.js) builds
// again when they differ, and only then when .env changed.
const serverBuild = new URL("../build/server/", import.meta.url).pathname;
writeFileSync(
  new URL(`../${BUILD_TIME_RECORD}`, import.meta.url),
  `${JSON.stringify(buildTimeValues(BUILD_TIME), null, 2)}\n`,
);

// Last, once the build is whole: React Router's server build, every file and its size (server.js
// checks it before a start; vite.server.config.ts lists build/server-main's the same way).
const serverFiles = walk(serverBuild)
  .filter((path) => path !== join(serverBuild, "files.json"))
  .map((path) => [relative(serverBuild, path), statSync(path).size]);
writeFileSync(
  join(serverBuild, "files.json"),
  `${JSON.stringify(Object.fromEntries(serverFiles), null, 2)}\n`,
);
