import { existsSync, readFileSync } from "node:fs";

/** BENCHMARKS.md's spam section, from bench/spam.json (written by `npm run bench:spam`; bench:site keeps it). */
export function spamSection(): string {
  if (!existsSync("bench/spam.json")) return "";
  const s = JSON.parse(readFileSync("bench/spam.json", "utf8")) as {
    date: string;
    rows: Array<Record<string, string | number>>;
    content?: {
      bounds: { suspect: number; hold: number };
      kinds?: Kinds;
      crossValidation: Record<string, number>;
      paced: Record<string, number>;
      learningCurve: Array<{ marks: number; held: number; of: number }>;
      scoringMicroseconds: number;
      evaluation?: Evaluation;
    };
  };
  const rows = s.rows
    .map(
      (r) =>
        `| ${r.class} | ${r.kind} | ${r.sent} | ${r.answered} | ${r["reached inbox"]} | ${r["of those marked"] ?? "—"} | ${r["inbox %"]} |`,
    )
    .join("\n");
  const c = s.content;
  const content = c
    ? `
Content filter (held at ${c.bounds.hold}, marked as possible spam from ${c.bounds.suspect}: docs/decisions/0012-content-filter.md, 0016, 0022-filter-for-unseen-kinds.md, 0023-corpus-in-kinds.md, 0028-one-model-for-the-words.md), on messages it was not trained on:

| measure | spam held or marked | of it held | genuine delivered |
|---|---|---|---|
| 5-fold cross-validation of the seed corpus | ${c.crossValidation.spamCaught} of ${c.crossValidation.spam} (${c.crossValidation.spamCaughtPct}%, bar ≥ 95%) | ${c.crossValidation.spamHeld} (${c.crossValidation.spamHeldPct}%) | ${c.crossValidation.genuineDelivered} of ${c.crossValidation.genuine} (${c.crossValidation.genuineDeliveredPct}%, bar ≥ 99%) |
| the held-out fifth, typed in Chromium at a person's pace | ${c.paced.spamCaught ?? "—"} of ${c.paced.spam} | ${c.paced.spamHeld} | ${c.paced.genuineDelivered} of ${c.paced.genuine} |

Learning curve on a kind of spam the corpus lacks (podcast guest booking), marked or held by its
words after marks (\`inquiries spam ID\`, what the Spam link does), on the server:
${c.learningCurve.map((p) => `${p.marks} marks ${p.held}/${p.of}`).join(", ")}. Scoring costs ${c.scoringMicroseconds} µs a message.
${evaluationSection(c.evaluation, c.bounds)}${kindsSection(c.kinds, c.bounds)}`
    : "";
  return `
## Spam (\`npm run bench:spam\`, ${s.date})

| class | kind | sent | answered | reached inbox | of those marked possible spam | inbox % |
|---|---|---|---|---|---|---|
${rows}
${content}`;
}

type Tally = { total: number; clean: number; suspect: number; held: number };
type Margin = { closest: number[]; logOdds: number };
type Evaluation = Summary & { kinds: number; margin: Margin };
type Kinds = {
  kinds: Array<{ kind: string; messages: number }>;
  leaveOneKindOut: Summary;
  margin: Margin;
  tokenlessFromAllowedOrigin: Summary;
  sweep: Array<Record<string, number>>;
  trust?: { chosen: number; sweep: Array<{ trust: number; logLoss: number }> };
  learning: Array<{ kind: string; before: number; after: number; of: number }>;
  newKindWindows: {
    windows: number;
    ok: number;
    caughtBefore: number;
    caughtAfter: number;
    tested: number;
  };
};
type Summary = {
  spam: Tally;
  genuine: Tally;
  spamUnmarkedPct: number;
  genuineHeldPct: number;
  genuineMarkedPct: number;
  perKind: Array<{ kind: string } & Tally>;
};

const targetsLine = (name: string, s: Summary) =>
  `| ${name} | ${s.spam.clean} of ${s.spam.total} (${s.spamUnmarkedPct}%) | ${s.genuine.held} of ${s.genuine.total} (${s.genuineHeldPct}%) | ${s.genuine.suspect} of ${s.genuine.total} (${s.genuineMarkedPct}%) |`;
const TARGETS_HEAD = `| model | spam reaching the inbox unmarked (target ≤ 5%) | genuine held (target 0%) | genuine marked possible spam (target ≤ 5%) |
|---|---|---|---|`;

/** The evaluation set (bench/spam-eval/, never tuned on): the targets, per kind, the margin. */
function evaluationSection(
  e: Evaluation | undefined,
  bounds: { suspect: number; hold: number },
): string {
  if (!e) return "";
  const kinds = e.perKind
    .map((k) => `| ${k.kind} | ${k.total} | ${k.clean} | ${k.suspect} | ${k.held} |`)
    .join("\n");
  return `
The evaluation set (\`bench/spam-eval/\`: ${e.kinds} kinds written by someone who never saw the corpus or
the filter; never tuned on), scored by the model as shipped (the shipped corpus). The sets before it, and how
each model did on them: \`bench/spam-eval-history.md\`.

${TARGETS_HEAD}
${targetsLine("as shipped", e)}

Margin: the genuine messages closest to the hold (${bounds.hold}) scored ${e.margin.closest.join(", ")}; the closest is
${e.margin.logOdds} below it in log-odds (natural log).

| kind | messages | clean | possible spam | held |
|---|---|---|---|---|
${kinds}
`;
}

/** The corpus in kinds, each scored by a model that never saw it: the targets, the band's sweep, the learning per kind. */
function kindsSection(h: Kinds | undefined, bounds: { suspect: number; hold: number }): string {
  if (!h) return "";
  const kinds = h.leaveOneKindOut.perKind
    .map((k) => `| ${k.kind} | ${k.total} | ${k.clean} | ${k.suspect} | ${k.held} |`)
    .join("\n");
  const sweep = h.sweep
    .map((r) => `| ${r.suspect} | ${r.spamUnmarkedPct}% | ${r.genuineMarkedPct}% |`)
    .join("\n");
  const learnt = h.learning.filter((l) => l.after >= 2).length;
  return `
The seed corpus in ${h.kinds.length} kinds (server/contact/intake/corpus/README.md), each scored by a model of
the rest (leave-one-kind-out), possible spam from ${bounds.suspect}, held from ${bounds.hold}:

${TARGETS_HEAD}
${targetsLine("leave-one-kind-out", h.leaveOneKindOut)}
${targetsLine("leave-one-kind-out, without a form token from an allowed origin", h.tokenlessFromAllowedOrigin)}

Margin: the genuine messages closest to the hold scored ${h.margin.closest.join(", ")}; the closest is ${h.margin.logOdds} below it in log-odds.

| kind | messages | clean | possible spam | held |
|---|---|---|---|---|
${kinds}

${
  h.trust
    ? `How far words are trusted (\`WORDS_TRUST\`, ${h.trust.chosen}): leave-one-kind-out's mean log loss ${h.trust.sweep.map((t) => `${t.logLoss} at ${t.trust}`).join(", ")}.

`
    : ""
}The band's lower bound (\`SPAM_SUSPECT_SCORE\`), swept (leave-one-kind-out):

| from | spam unmarked | genuine marked |
|---|---|---|
${sweep}

Learning (target: after 3 marks of a kind it had not seen, ≥ 2 of the next 3 caught): ${learnt} of
${h.learning.length} spam kinds (${h.learning.map((l) => `${l.kind.replace("spam-", "")} ${l.before}→${l.after}`).join(", ")}
of 3, before→after); podcast guest booking, taken out of the corpus first, ${h.newKindWindows.ok} of
${h.newKindWindows.windows} windows (caught ${h.newKindWindows.caughtBefore} → ${h.newKindWindows.caughtAfter} of ${h.newKindWindows.tested}).
`;
}
