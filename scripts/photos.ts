import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import type { Plugin } from "vite";
import { checkPost } from "../app/content/post-parser.ts";
import { cacheDir, markUsed } from "./build-cache.ts";

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
const cacheRoot = cacheDir("photos");
const VERSION = "4";

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

/**
 * The shapes a post's top shows whole: from 3:2 to 2:1. A photo of another shape (a phone's portrait,
 * a square, a panorama) is cropped to 1200:630, the shape of the blog's cards and of social cards.
 */
const SHAPES = { min: 3 / 2, max: 2 };
const CROP = 1200 / 630;

/** Where a photo is cropped: its subject as sharp finds it, or the editor's `imageFocus` ("50% 30%"). */
export type Crop = { width: number; height: number; focus?: string };

/** The part of a `width`×`height` photo kept, or null when it is shown whole. */
export function cropOf(width: number, height: number, focus?: string): Crop | null {
  const shape = width / height;
  if (shape >= SHAPES.min && shape <= SHAPES.max) return null;
  return shape > CROP
    ? { width: Math.round(height * CROP), height, focus }
    : { width, height: Math.round(width / CROP), focus };
}

/** The photo cropped around `focus` ("x% y%", clamped to the photo's edges). */
function extractAt(image: Sharp, width: number, height: number, crop: Crop): Sharp {
  const [x = 50, y = 50] = (crop.focus ?? "").split(" ").map((p) => Number.parseFloat(p));
  const edge = (at: number, whole: number, part: number) =>
    Math.min(Math.max(Math.round((at / 100) * whole - part / 2), 0), whole - part);
  return image.extract({
    left: edge(x, width, crop.width),
    top: edge(y, height, crop.height),
    width: crop.width,
    height: crop.height,
  });
}

/** Make (or find in the cache) every variant of one photo; the paths on disk, by width and format. */
export async function variants(file: string, focus?: string) {
  const input = readFileSync(file);
  const meta = await sharp(input).metadata();
  const ownWidth = meta.autoOrient?.width ?? meta.width;
  const ownHeight = meta.autoOrient?.height ?? meta.height;
  const crop = cropOf(ownWidth, ownHeight, focus);
  const width = crop?.width ?? ownWidth;
  const height = crop?.height ?? ownHeight;
  const original: Format =
    meta.format === "png"
      ? "png"
      : meta.format === "webp"
        ? "webp"
        : meta.format === "heif"
          ? "avif"
          : "jpeg";
  // The photo's content and what is done to it: the same photo cropped elsewhere is another entry.
  const key = createHash("sha256")
    .update(VERSION)
    .update(input)
    .update(JSON.stringify(crop))
    .digest("hex")
    .slice(0, 16);
  const dir = join(cacheRoot, key);
  mkdirSync(dir, { recursive: true });
  markUsed(dir);
  const stem = basename(file, extname(file));
  const widths = WIDTHS.filter((w) => w < width);
  if (widths.length < WIDTHS.length) widths.push(width);
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
  // The photo decoded, oriented, cropped and scaled down once, to the largest width made, and only
  // if a variant is missing: every variant is made from these pixels (decoding a 4000×3000 photo
  // costs more than encoding a variant of it).
  let pixels: Promise<{ data: Buffer; info: OutputInfo }> | undefined;
  const largest = Math.max(...widths, fallbackWidth);
  const master = async () => {
    pixels ??= (() => {
      const oriented = sharp(input).autoOrient();
      // Cropped and scaled in one pipeline: an extract (the focus) comes before the resize.
      const image = !crop
        ? oriented.resize(largest)
        : crop.focus
          ? extractAt(oriented, ownWidth, ownHeight, crop).resize(largest)
          : oriented.resize(largest, Math.round((largest * crop.height) / crop.width), {
              fit: "cover",
              position: sharp.strategy.attention,
            });
      return image.raw().toBuffer({ resolveWithObject: true });
    })();
    const { data, info } = await pixels;
    return sharp(data, {
      raw: { width: info.width, height: info.height, channels: info.channels },
    });
  };
  let made = 0;
  const make = async (name: string, build: (image: Sharp) => Sharp) => {
    const out = join(dir, name);
    if (!existsSync(out)) {
      // Written whole or not at all: a build stopped halfway leaves no truncated variant in the cache.
      await build(await master()).toFile(`${out}.tmp`);
      renameSync(`${out}.tmp`, out);
      made += 1;
    }
    return out;
  };
  const files: Record<Format, Array<[number, string]>> = { avif: [], webp: [], jpeg: [], png: [] };
  // Made side by side: libvips shares the cores between them.
  const jobs: Array<Promise<unknown>> = [];
  for (const [format, sizes] of plan) {
    for (const w of sizes) {
      if (files[format].some(([made]) => made === w)) continue;
      const ext = format === "jpeg" ? "jpg" : format;
      const entry: [number, string] = [w, ""];
      files[format].push(entry);
      jobs.push(
        make(`${stem}-${w}.${ext}`, (image) => encode(image.resize(w), format)).then((out) => {
          entry[1] = out;
        }),
      );
    }
  }
  const og = make(`${stem}-og.jpg`, (image) =>
    encode(image.resize(1200, 630, { fit: "cover" }), "jpeg"),
  );
  await Promise.all([...jobs, og]);
  const fallback = files[fallbackFormat].find(([w]) => w === fallbackWidth)?.[1] as string;
  return {
    width,
    height,
    own: { width: ownWidth, height: ownHeight },
    crop,
    files,
    fallback,
    og: await og,
    bytes: input.length,
    made,
  };
}

const MIME: Record<Format, string> = {
  avif: "image/avif",
  webp: "image/webp",
  jpeg: "image/jpeg",
  png: "image/png",
};

/** The `imageFocus` of the post that shows `file` (content/blog/images/…), if it has one. */
function focusOf(file: string): string | undefined {
  const blog = dirname(dirname(file));
  for (const name of readdirSync(blog).filter((f) => f.endsWith(".md"))) {
    // The content check has stopped the build on any mistake in a post before a photo is read.
    const checked = checkPost(name, readFileSync(join(blog, name), "utf8"));
    if ("post" in checked && join(blog, checked.post.image) === file)
      return checked.post.imageFocus;
  }
  return undefined;
}

/** What a build did with each photo: how many variants it made, in how long (none: all in the cache). */
const tally = new Map<string, { made: number; ms: number }>();

/** The module a `?picture` import becomes: each variant imported with `?url`. */
async function pictureModule(file: string, warn: (message: string) => void): Promise<string> {
  if (extname(file) === ".svg") {
    const meta = await sharp(file).metadata();
    return `import src from ${JSON.stringify(`${file}?url`)};
export default { src, width: ${meta.width}, height: ${meta.height}, sources: [] };`;
  }
  const t0 = performance.now();
  const v = await variants(file, focusOf(file));
  const name = relative(process.cwd(), file);
  const was = tally.get(file) ?? { made: 0, ms: 0 };
  tally.set(file, { made: was.made + v.made, ms: was.ms + (v.made ? performance.now() - t0 : 0) });
  const advice = sizeAdvice(name, v.own.width, v.own.height, v.bytes);
  if (advice) warn(advice);
  if (v.crop) {
    const around = v.crop.focus
      ? `around its post's imageFocus (${v.crop.focus})`
      : "around its subject; to choose what stays, add to its post the subject's place in percent across then down, like: imageFocus: 50% 30%";
    warn(
      `${name} is ${v.own.width}×${v.own.height} px, another shape than a post's top (3:2 to 2:1): cropped to ${v.width}×${v.height} ${around}`,
    );
  }
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
  let building = false;
  const reported = new Set<string>();
  return {
    name: "photos",
    enforce: "pre",
    configResolved(config) {
      building = config.command === "build";
    },
    // One line per build on what the cache spared; the server build, which finds every photo the
    // client build made, says nothing more.
    closeBundle() {
      const photos = [...tally].filter(([file]) => !reported.has(file));
      if (!building || photos.length === 0) return;
      for (const [file] of photos) reported.add(file);
      const made = photos.filter(([, t]) => t.made > 0);
      const variants = made.reduce((sum, [, t]) => sum + t.made, 0);
      // Photos are made side by side: the longest is the time the build waited for them.
      const seconds = Math.max(0, ...made.map(([, t]) => t.ms)) / 1000;
      console.log(
        `Photos: ${photos.length - made.length} of ${photos.length} reused from the cache${made.length > 0 ? `, ${made.length} made (${variants} variants in ${seconds.toFixed(1)} s)` : ""}`,
      );
    },
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
