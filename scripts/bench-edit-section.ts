import { existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * BENCHMARKS.md's section on the editor's loop, from bench/edit.json (`npm run bench:edit`) and
 * bench/edit-before.json (the same script on the code before the build cache and the crop):
 * written by bench:edit, and again by bench:site with the rest of the file.
 */

type Edit = {
  date: string;
  cores: number;
  steps: Array<{ step: string; seconds: number; load?: number; notes: string[] }>;
};

const HEADING = "## The editor's loop (`npm run bench:edit`)";

export function editSection(): string {
  if (!existsSync("bench/edit.json")) return "";
  const now = JSON.parse(readFileSync("bench/edit.json", "utf8")) as Edit;
  const before = existsSync("bench/edit-before.json")
    ? (JSON.parse(readFileSync("bench/edit-before.json", "utf8")) as Edit)
    : null;
  const rows = now.steps.map((s, k) => {
    const b = before?.steps[k];
    const said = (x?: { seconds: number; load?: number }) =>
      x ? `${x.seconds}${x.load === undefined ? "" : ` (load ${x.load})`}` : "—";
    return `| ${s.step} | ${said(b)} | ${said(s)} | ${s.notes.join("; ")} |`;
  });
  return `
${HEADING}

\`npm run build\` on a copy of the project whose caches start empty, as an editor runs it, step after
step on this ${now.cores}-core machine shared with other work (the load average beside each figure: a
build waits for the cores with everything else). Before: ${before?.date ?? "—"}; now: ${now.date}.

| step | before s | now s | what the build said now |
|---|---|---|---|
${rows.join("\n")}

Before: each variant decoded the whole photo again, one after the other, and the 4:3 photo was kept
whole (now it is cropped to 1200:630: fewer pixels to encode). One run of each, taken one after the
other: a few seconds either way are the machine's. What is left of a build with nothing new: React
Router's client and server builds and the prerender (about 8 s); of a new photo, encoding its four
AVIF widths (most of its 10 s).
`;
}

/** BENCHMARKS.md with this section in place of the one it had (or at its end). */
export function writeEditSection(file = "BENCHMARKS.md") {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(`\n${HEADING}`);
  const end = start < 0 ? -1 : text.indexOf("\n## ", start + 1);
  const kept = start < 0 ? text : text.slice(0, start) + (end < 0 ? "" : text.slice(end));
  writeFileSync(file, `${kept.trimEnd()}\n${editSection()}`);
}
