import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Bytes each prerendered page costs a visitor, gzip level 9 (what the server sends with
 * Accept-Encoding: gzip; brotli is smaller still): the HTML itself, the JavaScript it loads
 * (scripts, module preloads and the modules they import) and its CSS.
 * Usage: npm run build && npm run size
 */

const root = new URL("../build/client/", import.meta.url).pathname;
if (!existsSync(root)) {
  console.error("No build: run `npm run build` first.");
  process.exit(1);
}
const gz = (buf) => gzipSync(buf, { level: 9 }).length;

function* pages(dir, prefix = "/") {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "assets") continue;
    if (statSync(path).isDirectory()) yield* pages(path, `${prefix}${name}/`);
    else if (name === "index.html") yield [prefix === "/" ? "/" : prefix.slice(0, -1), path];
  }
}

function jsClosure(html) {
  const seen = new Set();
  const queue = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  for (const m of html.matchAll(/import\s*\(?\s*"(\/assets\/[^"]+\.js)"/g)) queue.push(m[1]);
  while (queue.length) {
    const url = queue.pop();
    if (seen.has(url)) continue;
    seen.add(url);
    const code = readFileSync(join(root, url));
    for (const m of code
      .toString()
      .matchAll(/from\s*"\.\/([^"]+\.js)"|import\("\.\/([^"]+\.js)"\)/g)) {
      queue.push(`/assets/${m[1] ?? m[2]}`);
    }
  }
  return [...seen];
}

const rows = [];
for (const [route, file] of pages(root)) {
  const html = readFileSync(file, "utf8");
  const js = jsClosure(html);
  const inline = [...html.matchAll(/<script(?![^>]*src=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => m[1])
    .join("");
  const css = [...html.matchAll(/href="(\/assets\/[^"]+\.css)"/g)].map((m) => m[1]);
  rows.push({
    route,
    "html (gzip)": gz(Buffer.from(html)),
    "js files": js.length,
    "js (gzip)":
      js.reduce((n, u) => n + gz(readFileSync(join(root, u))), 0) +
      (inline ? gz(Buffer.from(inline)) : 0),
    "css (gzip)": css.reduce((n, u) => n + gz(readFileSync(join(root, u))), 0),
  });
}
rows.sort((a, b) => a.route.localeCompare(b.route));
console.table(rows);
