import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../server/time.ts";
import { copyOfProject } from "../support/project-copy.ts";

/**
 * A phone's portrait photo as a post's hero, built as an editor builds (`npm run build` on a copy of
 * the project whose caches are its own): cropped to the hero's shape around its subject, with a note;
 * the next build reuses every photo and social card, and says so; a focus the editor sets moves the
 * crop; what no build used for 30 days leaves the cache.
 */

let dir: string;

function build() {
  const { SITE_URL: _, NODE_ENV: __, ...env } = process.env;
  const r = spawnSync("npm", ["run", "build"], {
    cwd: dir,
    env,
    encoding: "utf8",
    timeout: 400_000,
    killSignal: "SIGKILL",
  });
  const output = `${r.stdout}${r.stderr}`;
  expect(r.status, output).toBe(0);
  return output;
}

const post = (focus = "") => `---
slug: our-team-on-site
title: "Our Team On Site in Casper This Spring"
author: Jennifer Walsh
category: Company News
readTime: 3 min read
image: ./images/our-team-on-site.jpg
imageAlt: "A red balloon low against a grey wall at the client's office"
${focus}excerpt: "We spent a week with a client in Casper moving their servers into a new room, and we took a photo."
icon: Building
date: 2025-01-15
---
${"We spent a week in Casper with a client, moving their servers into a new room without a minute of downtime. ".repeat(3)}
`;

/** The hero of the post as prerendered: its <img> and the fallback file it names, read from the build. */
async function hero() {
  const html = readFileSync(join(dir, "build/client/blog/our-team-on-site/index.html"), "utf8");
  const img = /<picture>.*?(<img [^>]*>)/s.exec(html)?.[1] ?? "";
  const src = /src="([^"]+)"/.exec(img)?.[1] ?? "";
  const file = join(dir, "build/client", src);
  const [r = 0, g = 0] = (await sharp(file).stats()).channels.map((c) => c.mean);
  return { img, meta: await sharp(file).metadata(), redness: r - g };
}

const NOTE =
  /^Photo: content\/blog\/images\/our-team-on-site\.jpg is 1200×1600 px, another shape than a post's top \(3:2 to 2:1\): cropped to 1200×630 around its subject; to choose what stays, add to its post .*like: imageFocus: 50% 30%$/m;

describe("a portrait photo as a post's hero", { timeout: 900_000 }, () => {
  let first: string;
  const stale = () => join(dir, "node_modules/.cache/photos/0000000000000000");

  beforeAll(() => {
    dir = copyOfProject("hero-", { ownCaches: true });
    // A phone's portrait: a grey wall, its subject (a red disc) low in the frame.
    execFileSync("convert", [
      ...["-size", "1200x1600", "xc:gray60", "-fill", "rgb(220,40,30)"],
      ...["-draw", "circle 600,1350 600,1200", "-quality", "90"],
      join(dir, "content/blog/images/our-team-on-site.jpg"),
    ]);
    writeFileSync(join(dir, "content/blog/our-team-on-site.md"), post());
    // An entry of a photo no build has used for 40 days.
    mkdirSync(stale(), { recursive: true });
    const old = new Date(Date.now() - 40 * DAY_MS);
    utimesSync(stale(), old, old);
    first = build();
  }, 900_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is cropped to the hero's shape around its subject, and the build says so in one line", async () => {
    expect(first.match(NOTE)).toHaveLength(1);
    const { img, meta, redness } = await hero();
    expect(img).toContain('width="1200"');
    expect(img).toContain('height="630"');
    expect([meta.width, meta.height]).toEqual([1200, 630]);
    expect(redness).toBeGreaterThan(10);
    expect(first).toMatch(
      /^Photos: 0 of 2 reused from the cache, 2 made \(\d+ variants in [\d.]+ s\)$/m,
    );
  });

  it("leaves the cache what no build used for 30 days", () => {
    expect(first).toMatch(
      /^postbuild: 1 entry no build used for 30 days deleted from the build cache$/m,
    );
    expect(existsSync(stale())).toBe(false);
  });

  it("builds again with nothing changed reusing every photo and social image, and keeps them", () => {
    // Every entry made more than 30 days ago: those this build uses stay.
    const old = new Date(Date.now() - 40 * DAY_MS);
    const entries = ["photos", "social"].flatMap((cache) =>
      readdirSync(join(dir, "node_modules/.cache", cache)).map((e) =>
        join(dir, "node_modules/.cache", cache, e),
      ),
    );
    for (const entry of entries) utimesSync(entry, old, old);
    const again = build();
    expect(again).not.toMatch(/deleted from the build cache/);
    for (const entry of entries) expect(existsSync(entry), entry).toBe(true);
    expect(again).toMatch(/^Photos: 2 of 2 reused from the cache$/m);
    const social = /social images \((\d+) of (\d+) reused from the cache\)/.exec(again);
    expect(social?.[1]).toBe(social?.[2]);
    // The note is said at every build while the photo is as it is.
    expect(again.match(NOTE)).toHaveLength(1);
  });

  it("is cropped around the focus its post sets", async () => {
    writeFileSync(join(dir, "content/blog/our-team-on-site.md"), post("imageFocus: 50% 0%\n"));
    const output = build();
    expect(output).toMatch(
      /^Photo: content\/blog\/images\/our-team-on-site\.jpg is 1200×1600 px, .*cropped to 1200×630 around its post's imageFocus \(50% 0%\)$/m,
    );
    expect(output).toMatch(/^Photos: 1 of 2 reused from the cache, 1 made/m);
    const { meta, redness } = await hero();
    expect([meta.width, meta.height]).toEqual([1200, 630]);
    expect(redness).toBeLessThan(1);
  });
});
