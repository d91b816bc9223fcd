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
  return readKinds(dir);
}

/** `spam-<kind>.tsv` and `genuine-<kind>.tsv` of a folder, each a kind, its messages grouped by it. */
function readKinds(folder: string): Kind[] {
  return readdirSync(folder)
    .filter((f) => /^(?:spam|genuine)-[a-z-]+\.tsv$/.test(f))
    .sort()
    .map((f) => {
      const label: Label = f.startsWith("spam") ? "spam" : "genuine";
      const name = f.replace(/\.tsv$/, "");
      const examples = parseTsv(readFileSync(join(folder, f), "utf8")).map((e) => ({ label, ...e, group: name }));
      return { name, label, examples };
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

/**
 * The evaluation set (bench/spam-eval/): written by someone who never saw the corpus, the held-out
 * set or the filter, and never tuned on. Lines are `name<TAB>email<TAB>company<TAB>message`; the
 * filter reads the company and the message. Only its aggregate figures are reported.
 */
export function evalKinds(): Kind[] {
  const folder = new URL("../bench/spam-eval/", import.meta.url).pathname;
  return readKinds(folder).map((k) => ({
    ...k,
    examples: k.examples.map((e) => {
      // parseTsv split off the first column (the name): the message is the last column.
      const cols = `${e.company}\t${e.message}`.split("\t");
      return { ...e, company: cols.length >= 4 ? (cols[2] ?? "").trim() : "", message: (cols.at(-1) ?? "").trim() };
    }),
  }));
}

/**
 * The seed's spam grouped into kinds by a keyword, for the benchmark only (the product never sees
 * these groups): first match wins, the rest are "other". With the held-out kinds this gives
 * leave-one-kind-out on the corpus itself: each kind scored by a model that never saw it.
 */
const CORPUS_KINDS: Array<[string, RegExp]> = [
  ["shows", /podcast|episode|interview|webinar|summit|conference|expo|trade show|booth|exhibit|speak/i],
  [
    "awards-listings",
    /award|recogni|nominat|winner|top \d+|ranked among|feature(?:d)? (?:in|on)|directory|listing|magazine|publication|buyer'?s guide/i,
  ],
  ["funding", /fund|loan|capital|financ|credit|cash advance|factoring|grant|invest|acqui|valuation/i],
  ["search", /seo|google|rank|search|keyword|backlink|guest post|domain authority|organic|traffic|serp/i],
  [
    "staffing",
    /developer|engineer|offshore|nearshore|outsourc|staff|talent|recruit|hire|augmentation|dedicated team|virtual assistant/i,
  ],
  [
    "leads",
    /lead|appointment|meeting|prospect|outreach|cold email|linkedin|pipeline|sales team|b2b|decision.makers|contacts|database|list of|email list/i,
  ],
  [
    "design",
    /redesign|website design|web design|logo|brand|video|animation|app development|mobile app|wordpress|shopify|ui\/ux/i,
  ],
  ["reviews-social", /review|social media|instagram|facebook|followers|reputation|tiktok|youtube|ads|advertis|ppc/i],
  ["tools", /software|tool|platform|saas|trial|demo|crm|automation|chatbot|integration|plugin/i],
  ["notices", /domain|expire|renew|invoice|notice|account|payment|verify|security alert|suspend/i],
  ["partnerships", /partner|collaborat|joint|referral|white.label|resell|affiliate|commission|revenue share/i],
];
export function corpusKindOf(message: string): string {
  return CORPUS_KINDS.find(([, re]) => re.test(message))?.[0] ?? "other";
}

/**
 * Leave-one-kind-out on the seed corpus: each keyword kind of its spam scored by a model of the rest
 * (and the held-out set), its genuine inquiries in five folds the same way.
 */
export function corpusLeaveOneKindOut(
  seed: Example[],
  heldOut: Kind[],
): { kinds: Kind[]; scores: Map<string, number[]> } {
  const spam = seed.filter((e) => e.label === "spam");
  const genuine = seed.filter((e) => e.label === "genuine");
  const kinds: Kind[] = [
    ...[...new Set(spam.map((e) => corpusKindOf(e.message)))].sort().map((name) => ({
      name: `corpus-spam-${name}`,
      label: "spam" as const,
      examples: spam.filter((e) => corpusKindOf(e.message) === name),
    })),
    ...[0, 1, 2, 3, 4].map((f) => ({
      name: `corpus-genuine-fold-${f + 1}`,
      label: "genuine" as const,
      examples: genuine.filter((_, i) => i % 5 === f),
    })),
  ];
  const others = heldOut.flatMap((k) => k.examples);
  const scores = new Map<string, number[]>();
  for (const k of kinds) {
    const left = new Set(k.examples);
    const model = new ContentModel([...seed.filter((e) => !left.has(e)), ...others]);
    scores.set(
      k.name,
      k.examples.map((e) => model.score(e)),
    );
  }
  return { kinds, scores };
}

/**
 * How far the genuine messages closest to the hold are from it: the highest genuine scores, and the
 * distance in log-odds (natural log), so 0.9 against 0.98 is 1.70 and 0.99 against 0.999 is 2.30.
 */
export function margin(kinds: Kind[], scores: Map<string, number[]>, hold: number) {
  const logit = (p: number) => Math.log(Math.min(p, 1 - 1e-12) / Math.max(1 - p, 1e-12));
  const genuine = kinds
    .filter((k) => k.label === "genuine")
    .flatMap((k) => scores.get(k.name) ?? [])
    .sort((a, b) => b - a)
    .slice(0, 3);
  const round = (x: number, d: number) => Number(x.toFixed(d));
  return { closest: genuine.map((s) => round(s, 4)), logOdds: round(logit(hold) - logit(genuine[0] ?? 0), 2) };
}
