import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { copyOfProject } from "../tests/support/project-copy.ts";
import { writeEditSection } from "./bench-edit-section.ts";

/**
 * The editor's loop: how long `npm run build` takes on a copy of the project, as an editor runs it:
 *   npm run bench:edit [-- --out bench/edit.json --project <another checkout, e.g. of the previous release>]
 * In turn: the first build (empty caches), nothing changed, one post changed, one new 4000×3000
 * photo with its post, nothing changed again. The copy's caches (node_modules/.cache) start empty
 * and stay its own (tests/support/project-copy.ts).
 * Each step records its seconds and the build's own lines on what it reused. Writes --out.
 */

const { values: opts } = parseArgs({
  options: {
    out: { type: "string", default: "bench/edit.json" },
    project: { type: "string" },
  },
});
const root = new URL("../", import.meta.url).pathname;

/** The build as an editor runs it (no SITE_URL, no NODE_ENV): its seconds and its lines on caches. */
function build(dir: string) {
  const { SITE_URL: _, NODE_ENV: __, ...env } = process.env;
  const t0 = performance.now();
  const r = spawnSync("npm", ["run", "build"], { cwd: dir, env, encoding: "utf8" });
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm run build failed:\n${output}`);
  const notes = output.split("\n").filter((l) => /^Photos:|social images/.test(l));
  // What else the machine was doing: the figures of a busy machine are read with it.
  return { seconds, load: Number(loadavg()[0]?.toFixed(1)), notes };
}

const body = `${"A change an editor makes to a sentence, to see how long the site takes to build again. ".repeat(4)}\n`;
const newPost = `---
slug: our-new-office
title: "Our New Office in Cheyenne Opens Its Doors"
author: Jennifer Walsh
category: Company News
readTime: 3 min read
image: ./images/our-new-office.jpg
imageAlt: "Photograph of warm light falling across the new office floor"
excerpt: "We have moved into a bigger office on Central Avenue, with a lab where clients can try what we build."
icon: Building
date: 2025-01-15
---
${body}`;

const dir = copyOfProject("bench-edit-", { from: opts.project, ownCaches: true });
try {
  const steps: Array<{ step: string; seconds: number; load: number; notes: string[] }> = [];
  const run = (step: string) => {
    const r = build(dir);
    steps.push({ step, ...r });
    console.log(
      `${step}: ${r.seconds} s (load ${r.load})${r.notes.map((n) => `\n  ${n}`).join("")}`,
    );
  };
  run("first build (empty caches)");
  run("nothing changed");
  appendFileSync(join(dir, "content/blog/rent-or-buy-it-infrastructure.md"), `\n${body}`);
  run("one post changed");
  // A phone-sized photo, softened as a photograph is (raw plasma is noise AVIF encodes far more slowly).
  execFileSync("convert", [
    "-seed",
    "11",
    "-size",
    "4000x3000",
    "plasma:fractal",
    "-blur",
    "0x2",
    "-quality",
    "90",
    join(dir, "content/blog/images/our-new-office.jpg"),
  ]);
  writeFileSync(join(dir, "content/blog/our-new-office.md"), newPost);
  run("one new 4000×3000 photo and its post");
  run("nothing changed, after the photo");
  const result = {
    date: new Date().toISOString().slice(0, 10),
    cores: availableParallelism(),
    steps,
  };
  mkdirSync(join(root, "bench"), { recursive: true });
  writeFileSync(join(root, opts.out as string), `${JSON.stringify(result, null, 2)}\n`);
  if (opts.out === "bench/edit.json") writeEditSection();
  console.log(
    `Written to ${opts.out}${opts.out === "bench/edit.json" ? " and BENCHMARKS.md" : ""}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
