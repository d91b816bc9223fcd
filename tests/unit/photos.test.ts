import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { variants } from "../../scripts/photos.ts";

/** What the build makes of a photo in each format an editor may save (a real raster, made here). */

const dir = mkdtempSync(join(tmpdir(), "photos-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const photo = join(dir, "photo.png");
// Softened as a photograph is: raw plasma is noise at every pixel, which AVIF encodes far more slowly.
execFileSync("convert", [
  "-seed",
  "3",
  "-size",
  "1300x700",
  "plasma:fractal",
  "-blur",
  "0x2",
  photo,
]);

// Encoding AVIF takes seconds a variant, several times that when every core is busy.
describe("a photo's variants", { timeout: 180_000 }, () => {
  it.each([
    ["png", "png"],
    ["jpeg", "jpeg"],
    ["webp", "webp"],
    ["avif", "webp"],
  ] as const)(
    "from %s: AVIF and WebP at each width up to its own, and a %s fallback",
    async (format, fallback) => {
      const file = join(dir, `photo-${format}.${format === "jpeg" ? "jpg" : format}`);
      await sharp(photo).toFormat(format).toFile(file);
      const v = await variants(file);
      expect([v.width, v.height]).toEqual([1300, 700]);
      for (const f of ["avif", "webp"] as const) {
        expect(v.files[f].map(([w]) => w).filter((w) => w !== 1200)).toEqual([
          480, 720, 1080, 1300,
        ]);
        for (const [w, path] of v.files[f]) {
          const meta = await sharp(path).metadata();
          expect([meta.format, meta.width]).toEqual([f === "avif" ? "heif" : "webp", w]);
        }
      }
      const back = await sharp(v.fallback).metadata();
      expect([back.format, back.width]).toEqual([fallback, 1200]);
      const og = await sharp(v.og).metadata();
      expect([og.format, og.width, og.height]).toEqual(["jpeg", 1200, 630]);
    },
  );
});
