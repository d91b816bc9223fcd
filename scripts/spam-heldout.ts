import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ContentModel, type Example, type Label, parseTsv } from "../server/contact/intake/content-filter.ts";

/**
 * The held-out set (bench/spam-heldout/, never trained on by the product) and what the content
 * filter makes of it, for `npm run bench:spam`: leave-one-kind-out, so every figure is on a kind
 * the model did not see, and the learning of each spam kind from three marks.
 */

export type Kind = { name: string; label: Label; examples: Example[] };

const dir = new URL("../bench/spam-heldout/", import.meta.url).pathname;

export function heldOutKinds(): Kind[] {
  return readdirSync(dir)
    .filter((f) => /^(?:spam|genuine)-[a-z-]+\.tsv$/.test(f))
    .sort()
    .map((f) => {
      const label: Label = f.startsWith("spam") ? "spam" : "genuine";
      const examples = parseTsv(readFileSync(join(dir, f), "utf8")).map((e) => ({ label, ...e }));
      return { name: f.replace(/\.tsv$/, ""), label, examples };
    });
}

export type Bounds = { suspect: number; hold: number };
type Tally = { total: number; clean: number; suspect: number; held: number };
const tally = (scores: number[], b: Bounds): Tally => ({
  total: scores.length,
  clean: scores.filter((s) => s < b.suspect).length,
  suspect: scores.filter((s) => s >= b.suspect && s < b.hold).length,
  held: scores.filter((s) => s >= b.hold).length,
});

/**
 * Each kind's scores from a model trained on the seed corpus plus every other kind (or the seed
 * alone); `log2Odds` added as the pipeline adds a signal outside the text (a missing form token).
 */
export function scoresByKind(seed: Example[], kinds: Kind[], withOthers: boolean, log2Odds = 0): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const k of kinds) {
    const others = withOthers ? kinds.filter((o) => o !== k).flatMap((o) => o.examples) : [];
    const model = new ContentModel([...seed, ...others]);
    out.set(
      k.name,
      k.examples.map((e) => model.score(e, log2Odds)),
    );
  }
  return out;
}

export function summary(kinds: Kind[], scores: Map<string, number[]>, b: Bounds) {
  const of = (label: Label) =>
    tally(
      kinds.filter((k) => k.label === label).flatMap((k) => scores.get(k.name) ?? []),
      b,
    );
  const spam = of("spam");
  const genuine = of("genuine");
  const pct = (n: number, d: number) => Math.round((1000 * n) / Math.max(1, d)) / 10;
  return {
    spam,
    genuine,
    spamUnmarkedPct: pct(spam.clean, spam.total),
    genuineHeldPct: pct(genuine.held, genuine.total),
    genuineMarkedPct: pct(genuine.suspect, genuine.total),
    perKind: kinds.map((k) => ({ kind: k.name, ...tally(scores.get(k.name) ?? [], b) })),
  };
}

/**
 * For each spam kind, from a model that never saw it (the seed and the other kinds): three of its
 * messages marked as spam (as the links do), then the next three scored. Caught: marked or held.
 */
export function learning(seed: Example[], kinds: Kind[], b: Bounds) {
  return kinds
    .filter((k) => k.label === "spam")
    .map((k) => {
      const others = kinds.filter((o) => o !== k).flatMap((o) => o.examples);
      const marks = k.examples.slice(0, 3);
      const next = k.examples.slice(3, 6);
      const before = new ContentModel([...seed, ...others]);
      const after = new ContentModel([...seed, ...others], marks);
      const caught = (m: ContentModel) => next.filter((e) => m.score(e) >= b.suspect).length;
      return { kind: k.name, before: caught(before), after: caught(after), of: next.length };
    });
}

/**
 * The kind the seed corpus lacks (bench/spam-new-kind.tsv, podcast guest booking), with the seed
 * alone: in each window of six, three marked, then the next three scored. A window is ok when at
 * least two of its three are caught (marked or held).
 */
export function newKindWindows(seed: Example[], b: Bounds) {
  const file = new URL("../bench/spam-new-kind.tsv", import.meta.url);
  const all: Example[] = parseTsv(readFileSync(file, "utf8")).map((e) => ({ label: "spam", ...e }));
  const before = new ContentModel(seed);
  let [windows, ok, caughtBefore, caughtAfter, tested] = [0, 0, 0, 0, 0];
  for (let i = 0; i + 6 <= all.length; i += 6) {
    const after = new ContentModel(seed, all.slice(i, i + 3));
    const next = all.slice(i + 3, i + 6);
    const caught = (m: ContentModel) => next.filter((e) => m.score(e) >= b.suspect).length;
    windows += 1;
    tested += next.length;
    caughtBefore += caught(before);
    caughtAfter += caught(after);
    if (caught(after) >= 2) ok += 1;
  }
  return { windows, ok, caughtBefore, caughtAfter, tested };
}
