import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serviceOptions } from "../../../app/config/service-options.ts";
import { site } from "../../../app/config/site.ts";
import type { Sql } from "../storage/database.ts";
import * as training from "../storage/training.ts";

/**
 * The content layer of the spam defence (docs/decisions/0012-content-filter.md, 0022): naive Bayes
 * over a message's words, two-word phrases and shape (prices, rates, links, opt-out lines, capitals),
 * combined with who sells to whom (the stance: offering, the company's business, asking for its time;
 * against a request and the sender's own things) by a logistic regression fitted on what the words
 * said of corpus groups they had not seen. Trained on the seed corpus in ./corpus/ and on the
 * company's marks (the links in a lead, `npm run inquiries -- spam <id>` / `release <id>`), which
 * the database keeps for every instance. It only scores: the pipeline holds a message at or above
 * HOLD_SCORE and marks one at or above SUSPECT_SCORE as possible spam (ADR 0016; both chosen by
 * `npm run bench:spam` on kinds of spam the model never saw, ADR 0023).
 */

/** A message scoring at or above this is held (stored, delivered nowhere, listed in the morning digest). */
export const HOLD_SCORE = 0.998;
/** A lead scoring at or above this (and below HOLD_SCORE) is delivered marked as possible spam. */
export const SUSPECT_SCORE = 0.45;

export type Label = "spam" | "genuine";
/** A message and its label; `group`: where it came from (a corpus file), so that the reader of the words is judged on groups it did not see. */
export type Example = { label: Label; company: string; message: string; group?: string };
/** What the filter reads of a submission: the message and the company field (the pipeline passes the whole form). */
export type Input = { company: string; message: string };

const SMOOTHING = 0.5;
const STOPWORDS = new Set(
  "a an and are as at be but by for from has have i if in into is it its me my of on or our so that the their them then there these this to was we were will with you your".split(
    " ",
  ),
);
/** How a shape token reads in a held message's reason. */
const SHAPES: Record<string, string> = {
  _price: "a price",
  _rate: "a rate per hour or month",
  _percent: "a percentage",
  _link: "a link",
  _optout: "an opt-out line",
  _caps: "capitals",
  _exclaim: "exclamation marks",
};

/**
 * The company's own name and the words of its services: every message may greet the company or name
 * what it sells, so they are evidence of nothing, alone or in a phrase ("Hello Teton Digital team").
 */
const OWN_WORDS = new Set(
  [site.name, site.legalName, ...serviceOptions]
    .join(" ")
    .toLowerCase()
    .match(/[a-z][a-z0-9]*/g) ?? [],
);

/** The tokens the words model reads: the message's shape, its words, its two-word phrases, and the sender company's words. */
export function tokens(input: Input): string[] {
  const text = input.message;
  const out: string[] = [];
  if (/(?:[$€£]\s?\d|\d[\d,.]*\s?(?:usd|dollars)\b)/i.test(text)) out.push("_price");
  if (
    /(?:\/\s?(?:hr|hour|month|mo)\b|per (?:hour|month|lead|post|link|word|appointment|meeting)\b|an hour\b)/i.test(text)
  )
    out.push("_rate");
  if (/\d\s?%/.test(text)) out.push("_percent");
  if (/\b(?:https?:\/\/|www\.)\S+/i.test(text)) out.push("_link");
  if (/\b(?:unsubscribe|opt[- ]?out|reply (?:stop|no|remove)|"remove"|stop to)\b/i.test(text)) out.push("_optout");
  if (
    (text.match(/\b[A-Z]{3,}\b/g) ?? []).filter((w) => !/^(?:AI|IT|CRM|ERP|AWS|SEO|PPC|CEO|CTO|VPN|LLC)$/.test(w))
      .length >= 2
  )
    out.push("_caps");
  if (/!{2,}/.test(text)) out.push("_exclaim");
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

/**
 * Who sells to whom, in words no kind of spam owns: the sender offering what they or their clients
 * do, the company's business as the subject, a closing that asks for the company's time — against
 * the sender's own things and a request that the company act on them. Each is a 0/1 feature of
 * the combination (`STANCE` order), weighed by what it was worth on messages the words had not seen.
 */
export const STANCE = {
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
/** How a stance reads in a held message's reason. */
const STANCE_READS: Record<string, string> = {
  offer: "offers what the sender does",
  ourTrade: "speaks of the sender's clients or services",
  yourBusiness: "speaks of the company's business",
  asksForTime: "asks for the company's time",
  youHeavy: "more about the company than the sender",
};

/** The stance features of a message, 0/1, in `STANCE` order, then: more "you" than "we/I". */
export function stance(message: string): number[] {
  const t = message.toLowerCase().replace(/’/g, "'");
  const count = (re: RegExp) => (t.match(re) ?? []).length;
  const you = count(/\b(?:you|your|yours)\b/g);
  const me = count(/\b(?:we|our|us|i|my|me)\b/g);
  return [...STANCE_NAMES.map((k) => (STANCE[k].test(t) ? 1 : 0)), you > me ? 1 : 0];
}
/** The combination's inputs, in order: the words' log2 odds (against, for; divided by WORDS_SCALE), then the stance. */
export const FEATURE_NAMES = ["wordsAgainst", "wordsFor", ...STANCE_NAMES, "youHeavy"];

/** How many examples one of the company's marks counts as: a few marks of a new kind must move the model. */
export const MARK_WEIGHT = 8;

/** Token counts per label (in how many messages each token occurs): naive Bayes over presence. */
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

  /** Log2 odds of spam for a message's (unique) tokens; `minus`: counts to leave out (a message or group not to be seen). */
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
/** The words model's log2 odds enter the combination divided by this (a scale near the others'). */
const WORDS_SCALE = 10;
const L2 = 0.01;

/**
 * The combination: logistic regression over the words model's log2 odds and the stance features,
 * fitted on what the words model said of each corpus group *without* that group (out of group), so
 * it learns how far the words of a kind it never saw can be trusted — less than naive Bayes claims.
 */
export type Combination = { weights: number[]; bias: number };

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

/** A trained model: built once from examples, then scores messages (microseconds each). */
export class ContentModel {
  private readonly counts = new Counts();
  private readonly vocabulary: number;
  readonly combination: Combination;

  /**
   * `marks`: the company's marks, each counted MARK_WEIGHT times; `combination`: one fitted before
   * (the filter fits it once on the seed and keeps it while marks come and go).
   */
  constructor(examples: readonly Example[], marks: readonly Example[] = [], combination?: Combination) {
    for (const e of examples) this.counts.add(e.label, unique(e), 1);
    for (const e of marks) this.counts.add(e.label, unique(e), MARK_WEIGHT);
    this.vocabulary = new Set([...this.counts.spam.keys(), ...this.counts.genuine.keys()]).size;
    this.combination = combination ?? this.fitCombination(examples);
  }

  /**
   * Out of group: each example's words scored by the counts of every other group (counts subtract,
   * so this costs one pass). A label with fewer than three groups (a corpus of one file each, or
   * none named) is cut in five folds instead: leaving out a whole label would teach nothing.
   */
  private fitCombination(examples: readonly Example[]): Combination {
    const groupsOf = (label: Label) => new Set(examples.filter((e) => e.label === label).map((e) => e.group)).size;
    const byGroup = { spam: groupsOf("spam") >= 3, genuine: groupsOf("genuine") >= 3 };
    const members = new Map<string, number[]>();
    for (const [i, e] of examples.entries()) {
      const key = byGroup[e.label] && e.group ? e.group : `${e.label}:${i % 5}`;
      members.set(key, [...(members.get(key) ?? []), i]);
    }
    // One group's tokens and counts at a time: all of them at once would leave a start's memory far
    // larger than the model it keeps.
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

  /** The words model's log2 odds of spam. */
  wordsLog2Odds(input: Input): number {
    return this.counts.log2Odds(unique(input), this.vocabulary);
  }

  /** The probability that the message is marketing spam, 0–1; `log2Odds` more are added for a signal outside the text. */
  score(input: Input, log2Odds = 0): number {
    const x = this.features(input, this.wordsLog2Odds(input));
    let z = this.combination.bias + log2Odds * Math.LN2;
    x.forEach((v, j) => {
      z += (this.combination.weights[j] as number) * v;
    });
    return 1 / (1 + Math.exp(-z));
  }

  /** Why it scored high: the stances that weighed toward spam, then the tokens with the highest spam-to-genuine ratio. */
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
      .map(([t]) => SHAPES[t] ?? `"${t.replace(/^company:/, "company ")}"`);
    return [...words, ...stances].slice(0, 4);
  }
}

/** The reason a held message carries: `reads like marketing (0.999): "first page", "pricing"`. */
export function reasonOf(score: number, evidence: string[]): string {
  return `reads like marketing (${score.toFixed(3)})${evidence.length ? `: ${evidence.join(", ")}` : ""}`;
}

const corpusDir = new URL("./corpus/", import.meta.url).pathname;

/**
 * The seed corpus: `spam*.tsv` and `genuine*.tsv` in `dir` (`company<TAB>message`, `#` comments);
 * by default the one shipped in ./corpus/ (bench:spam and tests pass their own through TUNING).
 */
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

/** Lines of `company<TAB>message`; `#` lines are comments. */
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

/**
 * The combination is fitted once per corpus, at build (scripts/postbuild.js): a start reads it
 * instead of spending a few hundred milliseconds and megabytes on it. A fit made from another
 * corpus (a test's, or a corpus changed since the build) is not used: that start fits its own.
 */
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

/** How often an instance asks the database whether the marks changed: a mark reaches every instance within this. */
export const RELEARN_CHECK_MS = 2_000;

/**
 * The filter as the pipeline uses it: the seed corpus plus the marks in the database, learned again
 * when the marks change. Marks are few, so learning everything again takes milliseconds. Nothing is
 * read or built until the first message it scores: a server with SPAM_FILTER=off never builds it.
 */
export class ContentFilter {
  private model: ContentModel | null = null;
  /** Built from the seed alone, the model has learned no marks: a start without marks learns nothing again. */
  private revision = training.NO_MARKS;
  private checkedAt = 0;
  private seed: readonly Example[] = [];

  /** The database whose marks (storage/training.ts) it learns from; `corpusDir`: a seed corpus other than the shipped one. */
  private readonly db: Sql;
  private readonly corpusDir: string | undefined;

  /** The database whose marks (storage/training.ts) it learns from; `corpusDir`: a seed corpus other than the shipped one. */
  constructor(db: Sql, corpusDir?: string) {
    this.db = db;
    this.corpusDir = corpusDir;
  }

  /** Learn again if the marks changed since the last look (at most every RELEARN_CHECK_MS). */
  async refresh(now = Date.now()): Promise<void> {
    if (!this.model) {
      this.seed = seedCorpus(this.corpusDir);
      this.model = new ContentModel(this.seed, [], builtFit(this.seed));
    }
    if (now - this.checkedAt < RELEARN_CHECK_MS) return;
    this.checkedAt = now;
    const revision = await training.revision(this.db);
    if (revision === this.revision) return;
    // Fitted once on the seed: marks move the words, not how far words are trusted.
    this.model = new ContentModel(this.seed, await training.examples(this.db), this.model.combination);
    this.revision = revision;
  }

  private get fitted(): ContentModel {
    if (!this.model) throw new Error("ContentFilter: refresh() before scoring");
    return this.model;
  }

  score(input: Input, log2Odds = 0): number {
    return this.fitted.score(input, log2Odds);
  }

  evidence(input: Input): string[] {
    return this.fitted.evidence(input);
  }
}
