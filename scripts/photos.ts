import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, extname, join, relative } from "node:path";
import sharp, { type Sharp } from "sharp";
import type { Plugin } from "vite";

/**
 * Photos at build time (and in `npm run dev`): `import photo from "./hero.jpg?picture"` gives the
 * picture a page shows (app/components/ui/Picture.tsx): AVIF and WebP at several widths, the original
 * format as the fallback, its width and height, and a 1200×630 JPEG for social cards. The variants
 * (the original format once, at 1200 px) are made once per photo content by sharp under node_modules/.cache/photos/, then imported with
 * `?url`, so Vite names and hashes them as it does every asset. An SVG is passed through as it is.
 */

/**
 * The widths made, up to the photo's own: a phone's column at 1.75× (Lighthouse's phone: 665 px)
 * and 3× (1074 px), and the 39rem column on a 2× screen (1248 px).
 */
export const WIDTHS = [480, 720, 1080, 1440];
/** A picture slot (a post's hero) is 39rem wide at most: 1248 px on a 2× screen, and 1200 for its social card. */
export const MIN_WIDTH = 1200;
const MAX_WIDTH = 4000;
const MAX_BYTES = 5_000_000;

const RASTER = new Set([".jpg", ".jpeg", ".png", ".webp", ".avif"]);
const cacheRoot = new URL("../node_modules/.cache/photos/", import.meta.url).pathname;
const VERSION = "3";

/** A one-line note for a photo too small for its slot or larger than it needs, or null. */
export function sizeAdvice(
  file: string,
  width: number,
  height: number,
  bytes: number,
): string | null {
  const size = `${width}×${height} px`;
  if (width < MIN_WIDTH) {
    return `${file} is ${size}: too small to stay sharp (a post's picture shows up to 1248 px wide); export it at least ${MIN_WIDTH} px wide, 1600×840 is best`;
  }
  if (width > MAX_WIDTH || bytes > MAX_BYTES) {
    return `${file} is ${size} (${(bytes / 1e6).toFixed(1)} MB): far larger than any screen shows; export it 1600 px wide (about 300 KB as JPEG), the build then works faster`;
  }
  return null;
}

type Format = "avif" | "webp" | "jpeg" | "png";
const encode = (image: Sharp, format: Format) =>
  format === "avif"
    ? image.avif({ quality: 35, effort: 6 })
    : format === "webp"
      ? image.webp({ quality: 68 })
      : format === "jpeg"
        ? image.jpeg({ quality: 78, mozjpeg: true })
        : image.png({ compressionLevel: 9, palette: false });

/** Make (or find in the cache) every variant of one photo; the paths on disk, by width and format. */
export async function variants(file: string) {
  const input = readFileSync(file);
  const meta = await sharp(input).metadata();
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  const original: Format =
    meta.format === "png"
      ? "png"
      : meta.format === "webp"
        ? "webp"
        : meta.format === "heif"
          ? "avif"
          : "jpeg";
  const dir = join(
    cacheRoot,
    createHash("sha256").update(VERSION).update(input).digest("hex").slice(0, 16),
  );
  mkdirSync(dir, { recursive: true });
  const stem = basename(file, extname(file));
  const widths = WIDTHS.filter((w) => w < width);
  if (widths.length < WIDTHS.length) widths.push(width);
  const made = async (name: string, make: () => Sharp) => {
    const out = join(dir, name);
    if (!existsSync(out)) {
      // Written whole or not at all: a build stopped halfway leaves no truncated variant in the cache.
      await make().toFile(`${out}.tmp`);
      renameSync(`${out}.tmp`, out);
    }
    return out;
  };
  const files: Record<Format, Array<[number, string]>> = { avif: [], webp: [], jpeg: [], png: [] };
  // Every browser in use reads AVIF or WebP: the original format is made once, at the width a page
  // shows it at most, for the rest (and for any tool that reads only <img src>).
  const fallbackWidth = Math.min(1200, width);
  // An AVIF original falls back to WebP: what cannot read the one may read the other.
  const fallbackFormat: Format = original === "avif" ? "webp" : original;
  const plan: Array<[Format, number[]]> = [
    ["avif", widths],
    ["webp", widths],
    [fallbackFormat, [fallbackWidth]],
  ];
  for (const [format, sizes] of plan) {
    for (const w of sizes) {
      if (files[format].some(([made]) => made === w)) continue;
      const ext = format === "jpeg" ? "jpg" : format;
      const out = await made(`${stem}-${w}.${ext}`, () =>
        encode(sharp(input).autoOrient().resize(w), format),
      );
      files[format].push([w, out]);
    }
  }
  const og = await made(`${stem}-og.jpg`, () =>
    encode(sharp(input).autoOrient().resize(1200, 630, { fit: "cover" }), "jpeg"),
  );
  const fallback = files[fallbackFormat].find(([w]) => w === fallbackWidth)?.[1] as string;
  return { width, height, files, fallback, og, bytes: input.length };
}

const MIME: Record<Format, string> = {
  avif: "image/avif",
  webp: "image/webp",
  jpeg: "image/jpeg",
  png: "image/png",
};

/** The module a `?picture` import becomes: each variant imported with `?url`. */
async function pictureModule(file: string, warn: (message: string) => void): Promise<string> {
  if (extname(file) === ".svg") {
    const meta = await sharp(file).metadata();
    return `import src from ${JSON.stringify(`${file}?url`)};
export default { src, width: ${meta.width}, height: ${meta.height}, sources: [] };`;
  }
  const v = await variants(file);
  const advice = sizeAdvice(relative(process.cwd(), file), v.width, v.height, v.bytes);
  if (advice) warn(advice);
  const imports: string[] = [];
  const url = (path: string) => {
    imports.push(`import u${imports.length} from ${JSON.stringify(`${path}?url`)};`);
    return `u${imports.length - 1}`;
  };
  const srcset = (list: Array<[number, string]>) =>
    list.map(([w, p]) => `${url(p)} + " ${w}w"`).join(' + ", " + ');
  const sources = (["avif", "webp"] as const).map(
    (f) => `{ type: "${MIME[f]}", srcset: ${srcset(v.files[f])} }`,
  );
  const src = url(v.fallback);
  const body = `export default { src: ${src}, width: ${v.width}, height: ${v.height}, sources: [${sources.join(", ")}], og: ${url(v.og)} };`;
  return `${imports.join("\n")}\n${body}`;
}

const SUFFIX = "?picture";
const noted = new Set<string>();

export function photos(): Plugin {
  return {
    name: "photos",
    enforce: "pre",
    load: {
      filter: { id: /\?picture$/ },
      async handler(id) {
        const file = id.slice(0, -SUFFIX.length);
        const ext = extname(file).toLowerCase();
        if (ext !== ".svg" && !RASTER.has(ext)) return null;
        this.addWatchFile(file);
        // Both builds (client and server) load the module: each note is printed once.
        const warn = (message: string) => {
          if (noted.has(message)) return;
          noted.add(message);
          console.warn(`Photo: ${message}`);
        };
        try {
          return await pictureModule(file, warn);
        } catch (err) {
          // A file sharp cannot read (a HEIC saved as .jpg, a cut-off download, past its pixel limit):
          // one line that says what to do, then the build stops, as for any other mistake in the content.
          console.error(
            `\nThe site was not built: ${relative(process.cwd(), file)} cannot be read as a photo (${(err as Error).message.split("\n")[0]}). Export it again as a JPEG or PNG, 1600×840 is best, save it under the same name, and run the command again.\n`,
          );
          process.exit(1);
        }
      },
    },
  };
}
