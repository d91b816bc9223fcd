import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import { socialImagePath } from "../app/lib/social-image.ts";
import { cacheDir, markUsed } from "./build-cache.ts";

/**
 * Build-time images: PNG favicons from public/favicon.svg, and one 1200×630 social image per page,
 * drawn from the page's own <title> and description with the site's look. Each image is cached
 * under node_modules/.cache/social by a hash of its inputs, so an unchanged page is not redrawn
 * (scripts/build-cache.ts).
 */

const require = createRequire(import.meta.url);
const fontDir = join(require.resolve("@fontsource/inter/package.json"), "..", "files");
const fonts = [
  {
    name: "Inter",
    data: readFileSync(join(fontDir, "inter-latin-400-normal.woff")),
    weight: 400 as const,
    style: "normal" as const,
  },
  {
    name: "Inter",
    data: readFileSync(join(fontDir, "inter-latin-700-normal.woff")),
    weight: 700 as const,
    style: "normal" as const,
  },
];
const socialCache = cacheDir("social");
const TEMPLATE_VERSION = "1";

type Node = { type: string; props: Record<string, unknown> & { children?: unknown } };
const h = (type: string, style: Record<string, unknown>, ...children: unknown[]): Node => ({
  type,
  props: { style, children: children.length === 1 ? children[0] : children },
});

function card(title: string, description: string, siteName: string, host: string): Node {
  return h(
    "div",
    {
      width: 1200,
      height: 630,
      display: "flex",
      flexDirection: "column",
      justifyContent: "space-between",
      padding: 72,
      backgroundImage: "linear-gradient(135deg, #1e40af 0%, #0f172a 100%)",
      color: "white",
      fontFamily: "Inter",
    },
    h(
      "div",
      { display: "flex", alignItems: "center", gap: 20 },
      h(
        "div",
        {
          display: "flex",
          width: 64,
          height: 64,
          borderRadius: 16,
          backgroundColor: "white",
          alignItems: "center",
          justifyContent: "center",
        },
        h("div", {
          display: "flex",
          width: 0,
          height: 0,
          borderLeft: "20px solid transparent",
          borderRight: "20px solid transparent",
          borderBottom: "32px solid #1d4ed8",
        }),
      ),
      h("div", { fontSize: 36, fontWeight: 700 }, siteName),
    ),
    h(
      "div",
      { display: "flex", flexDirection: "column", gap: 24 },
      h("div", { fontSize: title.length > 60 ? 56 : 68, fontWeight: 700, lineHeight: 1.1 }, title),
      h(
        "div",
        { fontSize: 30, color: "#bfdbfe", lineHeight: 1.35 },
        description.length > 150 ? `${description.slice(0, 147)}…` : description,
      ),
    ),
    h("div", { fontSize: 26, color: "#93c5fd" }, host),
  );
}

async function renderPng(node: Node, width: number, height: number): Promise<Buffer> {
  const svg = await satori(node as never, { width, height, fonts });
  return Buffer.from(new Resvg(svg, { fitTo: { mode: "width", value: width } }).render().asPng());
}

function cached(
  key: string,
  out: string,
  make: () => Promise<Buffer>,
): Promise<"cached" | "drawn"> {
  mkdirSync(socialCache, { recursive: true });
  const file = join(
    socialCache,
    `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.png`,
  );
  if (existsSync(file)) {
    markUsed(file);
    copyFileSync(file, out);
    return Promise.resolve("cached");
  }
  return make().then((png) => {
    writeFileSync(file, png);
    writeFileSync(out, png);
    return "drawn" as const;
  });
}

/** An ICO file holding one PNG image of `size`×`size` pixels. */
function icoFromPng(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size % 256, 6); // width (0 means 256)
  header.writeUInt8(size % 256, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14); // size of the image data
  header.writeUInt32LE(22, 18); // where it starts
  return Buffer.concat([header, png]);
}

export async function buildImages(
  root: string,
  pages: Array<{ path: string; title: string; description: string }>,
  site: { name: string; url: string },
) {
  // Favicons: the SVG at the sizes browsers and home screens ask for.
  const svg = readFileSync(join(root, "favicon.svg"));
  for (const [name, size] of [
    ["favicon-32.png", 32],
    ["apple-touch-icon.png", 180],
    ["icon-192.png", 192],
    ["icon-512.png", 512],
  ] as const) {
    writeFileSync(
      join(root, name),
      new Resvg(svg, { fitTo: { mode: "width", value: size } }).render().asPng(),
    );
  }
  // /favicon.ico, which browsers and tools ask for whatever the page says: the 32 px PNG in an ICO
  // container (an ICO may hold PNG data: one 6-byte header, one 16-byte directory entry).
  writeFileSync(
    join(root, "favicon.ico"),
    icoFromPng(readFileSync(join(root, "favicon-32.png")), 32),
  );
  return { pages: pages.length, drawn: await drawSocialImages(root, pages, site) };
}

/** One social card per page, into `root`/social/; how many had to be drawn (the rest came from the cache). */
export async function drawSocialImages(
  root: string,
  pages: Array<{ path: string; title: string; description: string }>,
  site: { name: string; url: string },
): Promise<number> {
  mkdirSync(join(root, "social"), { recursive: true });
  const host = new URL(site.url).host;
  let drawn = 0;
  for (const page of pages) {
    const key = JSON.stringify([TEMPLATE_VERSION, page.title, page.description, site.name, host]);
    const result = await cached(key, join(root, socialImagePath(page.path)), () =>
      renderPng(card(page.title, page.description, site.name, host), 1200, 630),
    );
    if (result === "drawn") drawn += 1;
  }
  return drawn;
}
