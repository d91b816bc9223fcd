import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { serviceOptions } from "../../../app/config/service-options.ts";
import { site } from "../../../app/config/site.ts";
import type { Sql } from "../storage/database.ts";
import * as training from "../storage/training.ts";

/**
 * The content layer of the spam defence (docs/decisions/0012-content-filter.md): a naive Bayes
 * classifier (wink-naive-bayes-text-classifier) over a message's words, two-word phrases and shape
 * (prices, rates, links, opt-out lines, capitals), trained on the seed corpus in ./corpus/ and on
 * the company's marks (the links in a lead, `npm run inquiries -- spam <id>` / `release <id>`), which
 * the database keeps for every instance. It only scores: the pipeline holds a message at or above
 * SPAM_HOLD_SCORE and marks one at or above SPAM_SUSPECT_SCORE as possible spam (ADR 0016).
 */

export type Label = "spam" | "genuine";
export type Example = { label: Label; company: string; message: string };

type WinkClassifier = {
  definePrepTasks(tasks: Array<(input: string) => string[]>): void;
  defineConfig(cfg: { considerOnlyPresence: boolean; smoothingFactor: number }): void;
  learn(input: string, label: string): boolean;
  consolidate(): boolean;
  computeOdds(input: string): Array<[string, number]>;
  exportJSON(): string;
};
const require = createRequire(import.meta.url);
const winkClassifier = require("wink-naive-bayes-text-classifier") as () => WinkClassifier;

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

/** The tokens a message is scored by: its shape, its words, its two-word phrases, and the sender company's words. */
export function tokens(input: { company: string; message: string }): string[] {
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

/** One input string per example: the classifier's prep task splits it again (company, then message). */
const SEP = "\u0000";
const joined = (e: { company: string; message: string }) => `${e.company}${SEP}${e.message}`;
const prep = (input: string) => {
  const [company = "", message = ""] = input.split(SEP);
  return tokens({ company, message });
};

/** How many examples one of the company's marks counts as: a few marks of a new kind must move the model. */
export const MARK_WEIGHT = 8;

/** A trained model: built once from examples, then scores messages (well under 1 ms each). */
export class ContentModel {
  private readonly nb: WinkClassifier;
  private readonly counts: { spam: Record<string, number>; genuine: Record<string, number> };
  private readonly totals: { spam: number; genuine: number };
  private readonly vocabulary: number;

  /** `marks`: the company's marks, each learned MARK_WEIGHT times. */
  constructor(examples: readonly Example[], marks: readonly Example[] = []) {
    this.nb = winkClassifier();
    this.nb.definePrepTasks([prep]);
    this.nb.defineConfig({ considerOnlyPresence: true, smoothingFactor: SMOOTHING });
    for (const e of examples) this.nb.learn(joined(e), e.label);
    for (const e of marks) for (let k = 0; k < MARK_WEIGHT; k++) this.nb.learn(joined(e), e.label);
    this.nb.consolidate();
    // The model's own counts, to say which of a message's tokens weighed most (the reason shown).
    const [, , count, words, voc] = JSON.parse(this.nb.exportJSON()) as [
      unknown,
      unknown,
      { spam: Record<string, number>; genuine: Record<string, number> },
      { spam: number; genuine: number },
      string[],
    ];
    this.counts = count;
    this.totals = words;
    this.vocabulary = voc.length;
  }

  /** The probability that the message is marketing spam, 0–1; `log2Odds` more are added for a signal outside the text. */
  score(input: { company: string; message: string }, log2Odds = 0): number {
    const odds = this.nb.computeOdds(joined(input));
    const spamLog2Odds = (odds.find(([label]) => label === "spam")?.[1] ?? 0) + log2Odds;
    return 1 / (1 + 2 ** -spamLog2Odds);
  }

  /** The message's three tokens with the highest spam-to-genuine likelihood ratio in this model: why it was held. */
  evidence(input: { company: string; message: string }): string[] {
    const v = this.vocabulary * SMOOTHING;
    const weight = (t: string) =>
      Math.log2(((this.counts.spam[t] ?? 0) + SMOOTHING) / (this.totals.spam + v)) -
      Math.log2(((this.counts.genuine[t] ?? 0) + SMOOTHING) / (this.totals.genuine + v));
    return [...new Set(tokens(input))]
      .filter((t) => (this.counts.spam[t] ?? 0) > 0)
      .map((t) => [t, weight(t)] as const)
      .filter(([, w]) => w > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([t]) => SHAPES[t] ?? `"${t.replace(/^company:/, "company ")}"`);
  }
}

/** The reason a held message carries: `reads like marketing (0.999): "first page", "pricing"`. */
export function reasonOf(score: number, evidence: string[]): string {
  return `reads like marketing (${score.toFixed(3)})${evidence.length ? `: ${evidence.join(", ")}` : ""}`;
}

const corpusDir = new URL("./corpus/", import.meta.url).pathname;

/**
 * The seed corpus: `spam*.tsv` and `genuine*.tsv` in `dir` (`company<TAB>message`, `#` comments);
 * by default the one shipped in ./corpus/. A folder that cannot be read, or that lacks either kind,
 * is an error naming SPAM_CORPUS_DIR (the only way to point elsewhere).
 */
export function seedCorpus(dir = corpusDir): Example[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /^(?:spam|genuine).*\.tsv$/.test(f));
  } catch (err) {
    throw new Error(`SPAM_CORPUS_DIR: cannot read ${dir} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const examples = files.sort().flatMap((f) => {
    const label: Label = f.startsWith("spam") ? "spam" : "genuine";
    return parseTsv(readFileSync(join(dir, f), "utf8")).map((e) => ({ label, ...e }));
  });
  for (const label of ["spam", "genuine"] as const) {
    if (!examples.some((e) => e.label === label)) {
      throw new Error(`SPAM_CORPUS_DIR: ${dir} has no ${label} messages (${label}*.tsv, one per line)`);
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

/** How often an instance asks the database whether the marks changed: a mark reaches every instance within this. */
export const RELEARN_CHECK_MS = 2_000;

/**
 * The filter as the pipeline uses it: the seed corpus plus the marks in the database, learned again
 * when the marks change. Marks are few, so learning everything again takes milliseconds.
 */
export class ContentFilter {
  private model: ContentModel;
  private revision = "";
  private checkedAt = 0;
  private readonly seed: readonly Example[];
  private readonly db: Sql;

  /** The seed corpus, and the database whose marks (storage/training.ts) it learns from. */
  constructor(seed: readonly Example[], db: Sql) {
    this.seed = seed;
    this.db = db;
    this.model = new ContentModel(seed);
  }

  /** Learn again if the marks changed since the last look (at most every RELEARN_CHECK_MS). */
  async refresh(now = Date.now()): Promise<void> {
    if (now - this.checkedAt < RELEARN_CHECK_MS) return;
    this.checkedAt = now;
    const revision = await training.revision(this.db);
    if (revision === this.revision) return;
    this.model = new ContentModel(this.seed, await training.examples(this.db));
    this.revision = revision;
  }

  score(input: { company: string; message: string }, log2Odds = 0): number {
    return this.model.score(input, log2Odds);
  }

  evidence(input: { company: string; message: string }): string[] {
    return this.model.evidence(input);
  }
}
