import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { cropOf, variants } from "../../scripts/photos.ts";

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

describe("a photo of another shape than a post's top", { timeout: 180_000 }, () => {
  // A phone's portrait: a flat grey wall, and its subject, a red disc, low in the frame. Its bytes
  // are this run's own (a comment), so no variant an earlier run cached is what is read here.
  const portrait = join(dir, "portrait.jpg");
  execFileSync("convert", [
    ...["-size", "1200x1600", "xc:gray60", "-set", "comment", randomUUID()],
    ...["-fill", "rgb(220,40,30)"],
    ...["-draw", "circle 600,1350 600,1200", "-quality", "90", portrait],
  ]);
  const redness = async (file: string) => {
    const [r, g] = (await sharp(file).stats()).channels.map((c) => c.mean);
    return (r ?? 0) - (g ?? 0);
  };

  it("is cropped to 1200:630 around its subject", async () => {
    const v = await variants(portrait);
    expect([v.width, v.height, v.own.width, v.own.height]).toEqual([1200, 630, 1200, 1600]);
    for (const [w, path] of v.files.webp) {
      const meta = await sharp(path).metadata();
      expect([meta.width, meta.height]).toEqual([w, Math.round((w * 630) / 1200)]);
    }
    // The disc is in what was kept.
    expect(await redness(v.fallback)).toBeGreaterThan(10);
  });

  it("is cropped around the focus its post sets", async () => {
    const top = await variants(portrait, "50% 0%");
    expect([top.width, top.height]).toEqual([1200, 630]);
    // The top of the wall, without the disc; the bottom, with it.
    expect(await redness(top.fallback)).toBeLessThan(1);
    expect(await redness((await variants(portrait, "50% 100%")).fallback)).toBeGreaterThan(10);
  });

  it("is shown whole from 3:2 to 2:1", () => {
    expect(cropOf(1600, 900)).toBeNull();
    expect(cropOf(1500, 1000)).toBeNull();
    expect(cropOf(1600, 800)).toBeNull();
    expect(cropOf(1400, 1000)).toEqual({ width: 1400, height: 735, focus: undefined });
    expect(cropOf(3000, 1000)).toEqual({ width: 1905, height: 1000, focus: undefined });
  });
});
