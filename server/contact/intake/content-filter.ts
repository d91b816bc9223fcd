import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { serviceOptions } from "../../../app/config/service-options.ts";
import { site } from "../../../app/config/site.ts";
import type { Sql } from "../storage/database.ts";
import * as training from "../storage/training.ts";

/**
 * The content layer of the spam defence (ADR 0012, 0022, 0028): naive Bayes over a message's words,
 * two-word phrases, shape, and who sells to whom (the stance), trained on ./corpus/ and the company's
 * marks. Naive Bayes claims more than words of a kind it never saw can tell: its log2 odds count
 * WORDS_TRUST times. It only scores; WORDS_TRUST and the pipeline's SPAM_HOLD_SCORE and SPAM_SUSPECT_SCORE
 * (TUNING) are chosen by `npm run bench:spam` on kinds the model never saw (ADR 0023).
 */

export const WORDS_TRUST = 0.25;

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
      /(?:\/\s?(?:hr|hour|month|mo)\b|per (?:hour|month|lead|post|link|word|appointment|meeting)\b|an hour\b)/i.test(
        t,
      ),
  ],
  ["_percent", "a percentage", (t) => /\d\s?%/.test(t)],
  ["_link", "a link", (t) => /\b(?:https?:\/\/|www\.)\S+/i.test(t)],
  [
    "_optout",
    "an opt-out line",
    (t) => /\b(?:unsubscribe|opt[- ]?out|reply (?:stop|no|remove)|"remove"|stop to)\b/i.test(t),
  ],
  [
    "_caps",
    "capitals",
    (t) => (t.match(/\b[A-Z]{3,}\b/g) ?? []).filter((w) => !ACRONYM.test(w)).length >= 2,
  ],
  ["_exclaim", "exclamation marks", (t) => /!{2,}/.test(t)],
];
// Every message may greet the company or name what it sells: evidence of nothing, alone or in a phrase.
const OWN_WORDS = new Set(
  [site.name, site.legalName, ...serviceOptions]
    .join(" ")
    .toLowerCase()
    .match(/[a-z][a-z0-9]*/g) ?? [],
);

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
const READS: Record<string, string> = {
  ...Object.fromEntries(SHAPES.map(([token, reads]) => [token, reads])),
  "stance:offer": "offers what the sender does",
  "stance:ourTrade": "speaks of the sender's clients or services",
  "stance:yourBusiness": "speaks of the company's business",
  "stance:asksForTime": "asks for the company's time",
  "stance:youHeavy": "more about the company than the sender",
};

function stance(message: string): string[] {
  const t = message.toLowerCase().replace(/’/g, "'");
  const count = (re: RegExp) => (t.match(re) ?? []).length;
  const youHeavy = count(/\b(?:you|your|yours)\b/g) > count(/\b(?:we|our|us|i|my|me)\b/g);
  const on = Object.entries(STANCE).filter(([, re]) => re.test(t));
  return [...on.map(([name]) => `stance:${name}`), ...(youHeavy ? ["stance:youHeavy"] : [])];
}

export function tokens(input: Input): string[] {
  const text = input.message;
  const out = [
    ...SHAPES.filter(([, , test]) => test(text)).map(([token]) => token),
    ...stance(text),
  ];
  const withoutLinks = text.toLowerCase().replace(/\b(?:https?:\/\/|www\.)\S+/g, " ");
  const words = withoutLinks.match(/[a-z][a-z0-9'’-]*/g) ?? [];
  for (const [i, w] of words.entries()) {
    if (OWN_WORDS.has(w)) continue;
    if (!STOPWORDS.has(w) && w.length > 1) out.push(w);
    const next = words[i + 1];
    if (next && !OWN_WORDS.has(next)) out.push(`${w} ${next}`);
  }
  for (const w of input.company.toLowerCase().match(/[a-z][a-z0-9-]*/g) ?? [])
    out.push(`company:${w}`);
  return out;
}

// A few marks of a new kind must move the model.
const MARK_WEIGHT = 8;

const unique = (input: Input) => [...new Set(tokens(input))];

// Naive Bayes over presence: in how many messages each token occurs, per label.
export class ContentModel {
  private readonly counts = { spam: new Map<string, number>(), genuine: new Map<string, number>() };
  private readonly totals = { spam: 0, genuine: 0 };
  private readonly docs = { spam: 0, genuine: 0 };
  private readonly vocabulary: number;

  constructor(examples: readonly Example[], marks: readonly Example[] = []) {
    const weighted = [
      ...examples.map((e) => [e, 1] as const),
      ...marks.map((e) => [e, MARK_WEIGHT] as const),
    ];
    for (const [e, weight] of weighted) {
      const toks = unique(e);
      for (const t of toks)
        this.counts[e.label].set(t, (this.counts[e.label].get(t) ?? 0) + weight);
      this.totals[e.label] += toks.length * weight;
      this.docs[e.label] += weight;
    }
    this.vocabulary = new Set([...this.counts.spam.keys(), ...this.counts.genuine.keys()]).size;
  }

  weight(t: string): number {
    const { counts, totals } = this;
    const v = this.vocabulary * SMOOTHING;
    return (
      Math.log2(((counts.spam.get(t) ?? 0) + SMOOTHING) / (totals.spam + v)) -
      Math.log2(((counts.genuine.get(t) ?? 0) + SMOOTHING) / (totals.genuine + v))
    );
  }

  log2Odds(input: Input): number {
    const { counts, docs } = this;
    let odds = Math.log2((docs.spam + SMOOTHING) / (docs.genuine + SMOOTHING));
    for (const t of unique(input))
      if (counts.spam.has(t) || counts.genuine.has(t)) odds += this.weight(t);
    return odds;
  }

  /** `log2Odds`: a signal outside the text. */
  score(input: Input, log2Odds = 0): number {
    return 1 / (1 + 2 ** -(WORDS_TRUST * this.log2Odds(input) + log2Odds));
  }

  evidence(input: Input): string[] {
    const weighed = unique(input)
      .filter((t) => this.counts.spam.has(t))
      .map((t) => [t, this.weight(t)] as const)
      .filter(([, w]) => w > 0)
      .sort((a, b) => b[1] - a[1]);
    const words = weighed.filter(([t]) => !t.startsWith("stance:")).slice(0, 3);
    const stances = weighed.filter(([t, w]) => t.startsWith("stance:") && w >= 1);
    return [...words, ...stances]
      .slice(0, 4)
      .map(([t]) => READS[t] ?? `"${t.replace(/^company:/, "company ")}"`);
  }
}

export function reasonOf(score: number, evidence: string[]): string {
  return `reads like marketing (${score.toFixed(3)})${evidence.length ? `: ${evidence.join(", ")}` : ""}`;
}

const corpusDir = new URL("./corpus/", import.meta.url).pathname;

export function seedCorpus(dir = corpusDir): Example[] {
  const files = readdirSync(dir).filter((f) => /^(?:spam|genuine).*\.tsv$/.test(f));
  const examples = files.sort().flatMap((f) => {
    const label: Label = f.startsWith("spam") ? "spam" : "genuine";
    return parseTsv(readFileSync(join(dir, f), "utf8")).map((e) => ({ label, ...e, group: f }));
  });
  const lacking = (["spam", "genuine"] as const).find(
    (label) => !examples.some((e) => e.label === label),
  );
  if (lacking)
    throw new Error(
      `spam corpus: ${dir} has no ${lacking} messages (${lacking}*.tsv, one per line)`,
    );
  return examples;
}

export function parseTsv(text: string): Array<{ company: string; message: string }> {
  return text
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => {
      const tab = l.indexOf("\t");
      return { company: l.slice(0, Math.max(tab, 0)).trim(), message: l.slice(tab + 1).trim() };
    });
}

// How often an instance asks whether the marks changed: a mark reaches every instance within this.
export const RELEARN_CHECK_MS = 2_000;

/**
 * The seed plus the marks, learned again (in milliseconds: marks are few) when they change. Built at
 * the first message it scores: a server with SPAM_FILTER=off never builds it.
 */
export type ContentFilter = ReturnType<typeof contentFilter>;

export function contentFilter(db: Sql, corpusDir?: string) {
  let seed: readonly Example[] | undefined;
  let model: ContentModel | undefined;
  // The seed's model has learned no marks: a start without any learns nothing again.
  let revision = training.NO_MARKS;
  let checkedAt = 0;
  return {
    async model(now = Date.now()): Promise<ContentModel> {
      seed ??= seedCorpus(corpusDir);
      model ??= new ContentModel(seed);
      if (now - checkedAt < RELEARN_CHECK_MS) return model;
      checkedAt = now;
      const latest = await training.revision(db);
      if (latest !== revision) {
        model = new ContentModel(seed, await training.examples(db));
        revision = latest;
      }
      return model;
    },
  };
}
