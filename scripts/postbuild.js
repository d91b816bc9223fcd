import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { createRequestHandler } from "react-router";

/**
 * After `react-router build`: write the not-found page as build/client/404.html (static hosts and
 * CDNs answer unknown paths with it), then precompress every text file of build/client with brotli (quality 11)
 * and gzip (level 9), so neither the Node server nor a CDN compresses a page per request.
 */

const root = new URL("../build/client/", import.meta.url).pathname;
const build = await import(new URL("../build/server/index.js", import.meta.url).href);
const notFound = await createRequestHandler(build, "production")(new Request("http://localhost/__not-found__"));
if (notFound.status !== 404) throw new Error(`postbuild: expected a 404 page, got ${notFound.status}`);
writeFileSync(join(root, "404.html"), await notFound.text());

const compressible = new Set([".html", ".css", ".js", ".svg", ".json", ".xml", ".txt", ".data", ".webmanifest"]);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

let count = 0;
let raw = 0;
let br = 0;
for (const path of walk(root)) {
  if (!compressible.has(extname(path))) continue;
  const body = readFileSync(path);
  if (body.length < 512) continue;
  const b = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
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
