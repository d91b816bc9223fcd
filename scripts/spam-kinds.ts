import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ContentModel,
  type Example,
  type Label,
  parseTsv,
} from "../server/contact/intake/content-filter.ts";

/**
 * The kinds of the seed corpus, and what the content filter makes of a kind it never saw, for
 * `npm run bench:spam` and the filter's tests: leave-one-kind-out (every kind scored by a model of
 * the rest), the learning of each spam kind from three marks, the kind kept out of the corpus for
 * the learning curve, and the evaluation set (bench/spam-eval/), which nothing trains on.
 */

export type Kind = { name: string; label: Label; examples: Example[] };

/**
 * The first seed's spam (spam-1…4.tsv, written before kinds had files) grouped into kinds by a
 * keyword, for the benchmark only (the product never sees these groups): first match wins, the rest
 * are "other".
 */
const CORPUS_KINDS: Array<[string, RegExp]> = [
  [
    "shows",
    /podcast|episode|interview|webinar|summit|conference|expo|trade show|booth|exhibit|speak/i,
  ],
  [
    "awards-listings",
    /award|recogni|nominat|winner|top \d+|ranked among|feature(?:d)? (?:in|on)|directory|listing|magazine|publication|buyer'?s guide/i,
  ],
  [
    "funding",
    /fund|loan|capital|financ|credit|cash advance|factoring|grant|invest|acqui|valuation/i,
  ],
  [
    "search",
    /seo|google|rank|search|keyword|backlink|guest post|domain authority|organic|traffic|serp/i,
  ],
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
  [
    "reviews-social",
    /review|social media|instagram|facebook|followers|reputation|tiktok|youtube|ads|advertis|ppc/i,
  ],
  ["tools", /software|tool|platform|saas|trial|demo|crm|automation|chatbot|integration|plugin/i],
  ["notices", /domain|expire|renew|invoice|notice|account|payment|verify|security alert|suspend/i],
  [
    "partnerships",
    /partner|collaborat|joint|referral|white.label|resell|affiliate|commission|revenue share/i,
  ],
];
function keywordKind(message: string): string {
  return CORPUS_KINDS.find(([, re]) => re.test(message))?.[0] ?? "other";
}

/**
 * The corpus in kinds: a file of one kind (`spam-<kind>.tsv`, `genuine-<kind>.tsv`, and its
 * `-2`, `-3` from later sets) is that kind; the first seed's numbered files are cut by keyword
 * (spam) and in five folds (genuine).
 */
export function corpusKinds(seed: Example[]): Kind[] {
  const numbered = (e: Example) => /^(?:spam|genuine)-\d+\.tsv$/.test(e.group ?? "");
  const byName = new Map<string, Kind>();
  const add = (name: string, e: Example) => {
    const k = byName.get(name) ?? { name, label: e.label, examples: [] };
    k.examples.push(e);
    byName.set(name, k);
  };
  let fold = 0;
  for (const e of seed) {
    // A later set's file of a kind an earlier one had ends in -2, -3: one kind, left out together.
    if (!numbered(e)) add((e.group ?? e.label).replace(/\.tsv$/, "").replace(/-\d+$/, ""), e);
    else if (e.label === "spam") add(`spam-first-seed-${keywordKind(e.message)}`, e);
    else add(`genuine-first-seed-fold-${(fold++ % 5) + 1}`, e);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Each kind's scores from a model of the rest of the corpus (leave-one-kind-out); `log2Odds` added
 * as the pipeline adds a signal outside the text (a missing form token).
 */
export function leaveOneKindOut(
  seed: Example[],
  kinds: Kind[],
  log2Odds = 0,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const k of kinds) {
    const left = new Set(k.examples);
    const model = new ContentModel(seed.filter((e) => !left.has(e)));
    out.set(
      k.name,
      k.examples.map((e) => model.score(e, log2Odds)),
    );
  }
  return out;
}

/**
 * How far the words of a kind never seen can be trusted: leave-one-kind-out's log2 odds counted
 * `trust` times, as the server's score counts them WORDS_TRUST times, and the mean log loss of the
 * labels (natural log, lower is better) for each trust. WORDS_TRUST is a round value near the lowest.
 */
export function trustSweep(seed: Example[], kinds: Kind[], trusts: number[]) {
  const odds = kinds.flatMap((k) => {
    const left = new Set(k.examples);
    const model = new ContentModel(seed.filter((e) => !left.has(e)));
    return k.examples.map((e) => ({ spam: k.label === "spam", o: model.log2Odds(e) }));
  });
  return trusts.map((trust) => {
    const loss = odds.reduce((sum, { spam, o }) => {
      const p = 1 / (1 + 2 ** -(trust * o));
      return sum - Math.log(Math.min(1 - 1e-12, Math.max(1e-12, spam ? p : 1 - p)));
    }, 0);
    return { trust, logLoss: Number((loss / odds.length).toFixed(4)) };
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
 * For each spam kind, from a model that never saw it (the rest of the corpus): three of its
 * messages marked as spam (as the links do), then the next three scored. Caught: marked or held.
 */
export function learning(seed: Example[], kinds: Kind[], b: Bounds) {
  return kinds
    .filter((k) => k.label === "spam" && k.examples.length >= 6)
    .map((k) => {
      const left = new Set(k.examples);
      const rest = seed.filter((e) => !left.has(e));
      const marks = k.examples.slice(0, 3);
      const next = k.examples.slice(3, 6);
      const before = new ContentModel(rest);
      const after = new ContentModel(rest, marks);
      const caught = (m: ContentModel) => next.filter((e) => m.score(e) >= b.suspect).length;
      return { kind: k.name, before: caught(before), after: caught(after), of: next.length };
    });
}

/**
 * The learning curve's kind (bench/spam-new-kind.tsv, podcast guest booking): the corpus has it
 * (spam-podcasts.tsv, and lines elsewhere), so the curve starts from the corpus without that file and
 * without every message that speaks of podcasts.
 */
export const withoutNewKind = (seed: Example[]) =>
  seed.filter((e) => e.group !== "spam-podcasts.tsv" && !/podcast/i.test(e.message));

export function newKind(): Example[] {
  const file = new URL("../bench/spam-new-kind.tsv", import.meta.url);
  return parseTsv(readFileSync(file, "utf8")).map((e) => ({ label: "spam", ...e }));
}

/**
 * The learning curve's kind with the corpus that lacks it: in each window of six, three marked,
 * then the next three scored. A window is ok when at least two of its three are caught (marked or held).
 */
export function newKindWindows(seed: Example[], b: Bounds) {
  const all = newKind();
  const base = withoutNewKind(seed);
  const before = new ContentModel(base);
  let [windows, ok, caughtBefore, caughtAfter, tested] = [0, 0, 0, 0, 0];
  for (let i = 0; i + 6 <= all.length; i += 6) {
    const after = new ContentModel(base, all.slice(i, i + 3));
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
 * A corpus folder the server reads (TUNING.SPAM_CORPUS_DIR): each group of `examples` in a file of its own,
 * as in the shipped corpus.
 */
export function writeCorpus(examples: Example[]): string {
  const dir = mkdtempSync(join(tmpdir(), "spam-corpus-"));
  const files = new Map<string, string[]>();
  for (const e of examples) {
    const file = e.group ?? `${e.label}.tsv`;
    files.set(file, [...(files.get(file) ?? []), `${e.company}\t${e.message}`]);
  }
  for (const [file, lines] of files) writeFileSync(join(dir, file), `${lines.join("\n")}\n`);
  return dir;
}

/**
 * The evaluation set (bench/spam-eval/): written by someone who never saw the corpus or the filter,
 * and never trained on. Lines are `name<TAB>email<TAB>company<TAB>message`; the filter reads the
 * company and the message. Only its aggregate figures are reported.
 */
export function evalKinds(): Kind[] {
  const folder = new URL("../bench/spam-eval/", import.meta.url).pathname;
  return readdirSync(folder)
    .filter((f) => /^(?:spam|genuine)-[a-z-]+\.tsv$/.test(f))
    .sort()
    .map((f) => {
      const label: Label = f.startsWith("spam") ? "spam" : "genuine";
      const name = f.replace(/\.tsv$/, "");
      const examples = readFileSync(join(folder, f), "utf8")
        .split("\n")
        .filter((l) => l.trim() && !l.startsWith("#"))
        .map((l) => {
          const cols = l.split("\t");
          return {
            label,
            company: (cols.length >= 4 ? cols[2] : "")?.trim() ?? "",
            message: (cols.at(-1) ?? "").trim(),
            group: name,
          };
        });
      return { name, label, examples };
    });
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
  return {
    closest: genuine.map((s) => round(s, 4)),
    logOdds: round(logit(hold) - logit(genuine[0] ?? 0), 2),
  };
}
