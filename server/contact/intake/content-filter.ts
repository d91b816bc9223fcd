import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serviceOptions } from "../../../app/config/service-options.ts";
import { site } from "../../../app/config/site.ts";
import type { Sql } from "../storage/database.ts";
import * as training from "../storage/training.ts";

/**
 * The content layer of the spam defence (docs/decisions/0012-content-filter.md, 0022): naive Bayes
 * over a message's words, two-word phrases and shape, combined with who sells to whom (the stance)
 * by a logistic regression fitted on what the words said of corpus groups (files) they had not seen:
 * it learns how far the words of a kind it never saw can be trusted, less than naive Bayes claims.
 * Trained on the seed corpus in ./corpus/ and the company's marks, which the database keeps for
 * every instance. It only scores: the pipeline holds at HOLD_SCORE and marks at SUSPECT_SCORE
 * (ADR 0016; both chosen by `npm run bench:spam` on kinds of spam the model never saw, ADR 0023).
 */

export const HOLD_SCORE = 0.998;
export const SUSPECT_SCORE = 0.45;

export type Label = "spam" | "genuine";
export type Example = { label: Label; company: string; message: string; group?: string };
type Input = { company: string; message: string };

const SMOOTHING = 0.5;
const STOPWORDS = new Set(
  "a an and are as at be but by for from has have i if in into is it its me my of on or our so that the their them then there these this to was we were will with you your".split(
    " ",
  ),
);
const ACRONYM = /^(?:AI|IT|CRM|ERP|AWS|SEO|PPC|CEO|CTO|VPN|LLC)$/;
// A message's shape, and how it reads in a held message's reason.
const SHAPES: Array<[string, string, (text: string) => boolean]> = [
  ["_price", "a price", (t) => /(?:[$€£]\s?\d|\d[\d,.]*\s?(?:usd|dollars)\b)/i.test(t)],
  [
    "_rate",
    "a rate per hour or month",
    (t) =>
      /(?:\/\s?(?:hr|hour|month|mo)\b|per (?:hour|month|lead|post|link|word|appointment|meeting)\b|an hour\b)/i.test(t),
  ],
  ["_percent", "a percentage", (t) => /\d\s?%/.test(t)],
  ["_link", "a link", (t) => /\b(?:https?:\/\/|www\.)\S+/i.test(t)],
  [
    "_optout",
    "an opt-out line",
    (t) => /\b(?:unsubscribe|opt[- ]?out|reply (?:stop|no|remove)|"remove"|stop to)\b/i.test(t),
  ],
  ["_caps", "capitals", (t) => (t.match(/\b[A-Z]{3,}\b/g) ?? []).filter((w) => !ACRONYM.test(w)).length >= 2],
  ["_exclaim", "exclamation marks", (t) => /!{2,}/.test(t)],
];
const SHAPE_READS = new Map(SHAPES.map(([token, reads]) => [token, reads]));

// Every message may greet the company or name what it sells: evidence of nothing, alone or in a phrase.
const OWN_WORDS = new Set(
  [site.name, site.legalName, ...serviceOptions]
    .join(" ")
    .toLowerCase()
    .match(/[a-z][a-z0-9]*/g) ?? [],
);

export function tokens(input: Input): string[] {
  const text = input.message;
  const out = SHAPES.filter(([, , test]) => test(text)).map(([token]) => token);
  const words =
    text
      .toLowerCase()
      .replace(/\b(?:https?:\/\/|www\.)\S+/g, " ")
      .match(/[a-z][a-z0-9'’-]*/g) ?? [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (OWN_WORDS.has(w)) continue;
    if (!STOPWORDS.has(w) && w.length > 1) out.push(w);
    const next = words[i + 1];
    if (next && !OWN_WORDS.has(next)) out.push(`${w} ${next}`);
  }
  for (const w of input.company.toLowerCase().match(/[a-z][a-z0-9-]*/g) ?? []) out.push(`company:${w}`);
  return out;
}

// Who sells to whom, in words no kind of spam owns.
const STANCE = {
  offer:
    /\b(?:we|i)(?:'ll|'d| will| can| could| would| also)? (?:help|offer|provide|deliver|supply|specialize|specialise|work with|partner with|connect|generate|bring|put|place|increase|boost|grow|get you|handle|represent)\b/,
  ourTrade:
    /\bour (?:clients|customers|members|partners|agency|platform|solution|solutions|service|services|network|team of|database|readers|audience|listeners|experts|specialists|developers|engineers|rates|pricing|packages?)\b/,
  yourBusiness:
    /\byour (?:business|company|firm|website|site|brand|clients|customers|team|agency|rankings?|revenue|sales|growth|pipeline|online|profile|listing|reviews|competitors|content|marketing|leads)\b/,
  asksForTime:
    /\b(?:would you be|are you|if you're|if you are) (?:open|interested)\b|\b(?:worth a|quick|short|brief) (?:call|chat|conversation)\b|\b(?:can|may|shall|should) i (?:send|share|show|book)\b|\b\d{1,2}[- ]min(?:ute)?s?\b|\binterested\?/,
  request:
    /\b(?:can|could|would|will|do) you (?:help|quote|send us|provide|do|offer|handle|take|look|recommend|set|fix|support|give|tell|advise|come|install|migrate|move|build)\b|\b(?:we|i) (?:need|want|would like|'d like|are looking for|'m looking for|'re looking for|am looking for)\b/,
  ourThings:
    /\b(?:our|my) (?:office|offices|server|servers|network|staff|employees|people|computers|laptops|system|systems|data|practice|clinic|shop|store|setup|files|email|website|site|software|budget|company|firm|business|team|it)\b/,
} as const;
const STANCE_NAMES = Object.keys(STANCE) as Array<keyof typeof STANCE>;
const STANCE_READS: Record<string, string> = {
  offer: "offers what the sender does",
  ourTrade: "speaks of the sender's clients or services",
  yourBusiness: "speaks of the company's business",
  asksForTime: "asks for the company's time",
  youHeavy: "more about the company than the sender",
};

export function stance(message: string): number[] {
  const t = message.toLowerCase().replace(/’/g, "'");
  const count = (re: RegExp) => (t.match(re) ?? []).length;
  const you = count(/\b(?:you|your|yours)\b/g);
  const me = count(/\b(?:we|our|us|i|my|me)\b/g);
  return [...STANCE_NAMES.map((k) => (STANCE[k].test(t) ? 1 : 0)), you > me ? 1 : 0];
}
export const FEATURE_NAMES = ["wordsAgainst", "wordsFor", ...STANCE_NAMES, "youHeavy"];

// A few marks of a new kind must move the model.
const MARK_WEIGHT = 8;

// Naive Bayes over presence: in how many messages each token occurs, per label.
class Counts {
  readonly spam = new Map<string, number>();
  readonly genuine = new Map<string, number>();
  readonly totals = { spam: 0, genuine: 0 };
  readonly docs = { spam: 0, genuine: 0 };

  add(label: Label, toks: readonly string[], weight: number): void {
    const map = this[label];
    for (const t of toks) map.set(t, (map.get(t) ?? 0) + weight);
    this.totals[label] += toks.length * weight;
    this.docs[label] += weight;
  }

  // `minus`: a group's own counts, left out.
  log2Odds(toks: readonly string[], vocabulary: number, minus?: Counts): number {
    const v = vocabulary * SMOOTHING;
    const get = (label: Label, t: string) => (this[label].get(t) ?? 0) - (minus?.[label].get(t) ?? 0);
    const ts = this.totals.spam - (minus?.totals.spam ?? 0);
    const tg = this.totals.genuine - (minus?.totals.genuine ?? 0);
    const ds = this.docs.spam - (minus?.docs.spam ?? 0);
    const dg = this.docs.genuine - (minus?.docs.genuine ?? 0);
    let odds = Math.log2((ds + SMOOTHING) / (dg + SMOOTHING));
    for (const t of toks) {
      const s = get("spam", t);
      const g = get("genuine", t);
      if (s <= 0 && g <= 0) continue;
      odds += Math.log2((s + SMOOTHING) / (ts + v)) - Math.log2((g + SMOOTHING) / (tg + v));
    }
    return odds;
  }
}

const unique = (input: Input) => [...new Set(tokens(input))];
const WORDS_SCALE = 10;
const L2 = 0.01;

type Combination = { weights: number[]; bias: number };

function logisticRegression(rows: Array<{ x: number[]; y: number }>): Combination {
  const d = FEATURE_NAMES.length;
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let it = 0; it < 1500; it++) {
    const g = new Array<number>(d).fill(0);
    let gb = 0;
    for (const { x, y } of rows) {
      let z = b;
      for (let j = 0; j < d; j++) z += (w[j] as number) * (x[j] as number);
      const r = 1 / (1 + Math.exp(-z)) - y;
      for (let j = 0; j < d; j++) g[j] = (g[j] as number) + r * (x[j] as number);
      gb += r;
    }
    for (let j = 0; j < d; j++)
      w[j] = (w[j] as number) - 0.5 * ((g[j] as number) / rows.length + L2 * (w[j] as number));
    b -= (0.5 * gb) / rows.length;
  }
  return { weights: w, bias: b };
}

export class ContentModel {
  private readonly counts = new Counts();
  private readonly vocabulary: number;
  readonly combination: Combination;

  constructor(examples: readonly Example[], marks: readonly Example[] = [], combination?: Combination) {
    for (const e of examples) this.counts.add(e.label, unique(e), 1);
    for (const e of marks) this.counts.add(e.label, unique(e), MARK_WEIGHT);
    this.vocabulary = new Set([...this.counts.spam.keys(), ...this.counts.genuine.keys()]).size;
    this.combination = combination ?? this.fitCombination(examples);
  }

  // A label with fewer than three groups is cut in five folds: leaving out a whole label teaches nothing.
  private fitCombination(examples: readonly Example[]): Combination {
    const groupsOf = (label: Label) => new Set(examples.filter((e) => e.label === label).map((e) => e.group)).size;
    const byGroup = { spam: groupsOf("spam") >= 3, genuine: groupsOf("genuine") >= 3 };
    const members = new Map<string, number[]>();
    for (const [i, e] of examples.entries()) {
      const key = byGroup[e.label] && e.group ? e.group : `${e.label}:${i % 5}`;
      members.set(key, [...(members.get(key) ?? []), i]);
    }
    // One group's tokens at a time: all at once would leave a start's memory far larger than the model.
    const rows: Array<{ x: number[]; y: number }> = new Array(examples.length);
    for (const group of members.values()) {
      const toks = group.map((i) => unique(examples[i] as Example));
      const left = new Counts();
      group.forEach((i, j) => {
        left.add((examples[i] as Example).label, toks[j] as string[], 1);
      });
      group.forEach((i, j) => {
        const e = examples[i] as Example;
        const outOfGroup = this.counts.log2Odds(toks[j] as string[], this.vocabulary, left);
        rows[i] = { x: this.features(e, outOfGroup), y: e.label === "spam" ? 1 : 0 };
      });
    }
    return logisticRegression(rows);
  }

  private features(input: Input, wordsLog2Odds: number): number[] {
    return [
      Math.min(0, wordsLog2Odds) / WORDS_SCALE,
      Math.max(0, wordsLog2Odds) / WORDS_SCALE,
      ...stance(input.message),
    ];
  }

  /** `log2Odds`: a signal outside the text. */
  score(input: Input, log2Odds = 0): number {
    const x = this.features(input, this.counts.log2Odds(unique(input), this.vocabulary));
    let z = this.combination.bias + log2Odds * Math.LN2;
    x.forEach((v, j) => {
      z += (this.combination.weights[j] as number) * v;
    });
    return 1 / (1 + Math.exp(-z));
  }

  evidence(input: Input): string[] {
    const v = this.vocabulary * SMOOTHING;
    const c = this.counts;
    const weight = (t: string) =>
      Math.log2(((c.spam.get(t) ?? 0) + SMOOTHING) / (c.totals.spam + v)) -
      Math.log2(((c.genuine.get(t) ?? 0) + SMOOTHING) / (c.totals.genuine + v));
    const stances = stance(input.message)
      .map((on, j) => [FEATURE_NAMES[j + 2] as string, on * (this.combination.weights[j + 2] as number)] as const)
      .filter(([, w]) => w > 0.2)
      .map(([name]) => STANCE_READS[name])
      .filter((s): s is string => Boolean(s));
    const words = unique(input)
      .filter((t) => (c.spam.get(t) ?? 0) > 0)
      .map((t) => [t, weight(t)] as const)
      .filter(([, w]) => w > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([t]) => SHAPE_READS.get(t) ?? `"${t.replace(/^company:/, "company ")}"`);
    return [...words, ...stances].slice(0, 4);
  }
}

export function reasonOf(score: number, evidence: string[]): string {
  return `reads like marketing (${score.toFixed(3)})${evidence.length ? `: ${evidence.join(", ")}` : ""}`;
}

const corpusDir = new URL("./corpus/", import.meta.url).pathname;

/** `spam*.tsv` and `genuine*.tsv` in `dir`: lines of `company<TAB>message`, `#` for comments. */
export function seedCorpus(dir = corpusDir): Example[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /^(?:spam|genuine).*\.tsv$/.test(f));
  } catch (err) {
    throw new Error(`spam corpus: cannot read ${dir} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const examples = files.sort().flatMap((f) => {
    const label: Label = f.startsWith("spam") ? "spam" : "genuine";
    return parseTsv(readFileSync(join(dir, f), "utf8")).map((e) => ({ label, ...e, group: f }));
  });
  for (const label of ["spam", "genuine"] as const) {
    if (!examples.some((e) => e.label === label)) {
      throw new Error(`spam corpus: ${dir} has no ${label} messages (${label}*.tsv, one per line)`);
    }
  }
  return examples;
}

export function parseTsv(text: string): Array<{ company: string; message: string }> {
  return text
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => {
      const tab = l.indexOf("\t");
      return tab < 0
        ? { company: "", message: l.trim() }
        : { company: l.slice(0, tab).trim(), message: l.slice(tab + 1).trim() };
    });
}

// Fitted at build (scripts/postbuild.js), so a start spends no time or memory on it; another
// corpus (a test's, one changed since the build) is fitted at start.
const FIT_FILE = new URL("../../../build/server/content-fit.json", import.meta.url);
const corpusHash = (seed: readonly Example[]) => createHash("sha256").update(JSON.stringify(seed)).digest("hex");

export function writeFit(seed: readonly Example[] = seedCorpus(), file = FIT_FILE): void {
  const fit = { corpus: corpusHash(seed), combination: new ContentModel(seed).combination };
  writeFileSync(file, `${JSON.stringify(fit)}\n`);
}

function builtFit(seed: readonly Example[]): Combination | undefined {
  try {
    const fit = JSON.parse(readFileSync(FIT_FILE, "utf8")) as { corpus: string; combination: Combination };
    return fit.corpus === corpusHash(seed) ? fit.combination : undefined;
  } catch {
    return undefined;
  }
}

export const RELEARN_CHECK_MS = 2_000;

/**
 * The seed plus the marks, learned again (in milliseconds: marks are few) when they change. Built at
 * the first message it scores: a server with SPAM_FILTER=off never builds it.
 */
export type ContentFilter = ReturnType<typeof contentFilter>;

export function contentFilter(db: Sql, corpusDir?: string) {
  let model: ContentModel | null = null;
  let seed: readonly Example[] = [];
  let revision = training.NO_MARKS;
  let checkedAt = 0;
  return {
    async refresh(now = Date.now()): Promise<void> {
      if (!model) {
        seed = seedCorpus(corpusDir);
        model = new ContentModel(seed, [], builtFit(seed));
      }
      if (now - checkedAt < RELEARN_CHECK_MS) return;
      checkedAt = now;
      const latest = await training.revision(db);
      if (latest === revision) return;
      // Fitted once on the seed: marks move the words, not how far words are trusted.
      model = new ContentModel(seed, await training.examples(db), model.combination);
      revision = latest;
    },
    // refresh() comes first, always (pipeline.ts).
    score: (input: Input, log2Odds = 0) => (model as ContentModel).score(input, log2Odds),
    evidence: (input: Input) => (model as ContentModel).evidence(input),
  };
}
