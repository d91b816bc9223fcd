import { existsSync, readFileSync } from "node:fs";

/** BENCHMARKS.md's spam section, from bench/spam.json (written by `npm run bench:spam`; bench:site keeps it). */
export function spamSection(): string {
  if (!existsSync("bench/spam.json")) return "";
  const s = JSON.parse(readFileSync("bench/spam.json", "utf8")) as {
    date: string;
    rows: Array<Record<string, string | number>>;
    content?: {
      threshold: number;
      crossValidation: Record<string, number>;
      paced: Record<string, number>;
      learningCurve: Array<{ marks: number; held: number; of: number }>;
      scoringMicroseconds: number;
    };
  };
  const rows = s.rows
    .map((r) => `| ${r.class} | ${r.kind} | ${r.sent} | ${r.answered} | ${r["reached inbox"]} | ${r["inbox %"]} |`)
    .join("\n");
  const c = s.content;
  const content = c
    ? `
Content filter (threshold ${c.threshold}, docs/decisions/0012-content-filter.md), on messages it was not trained on:

| measure | spam held | genuine delivered |
|---|---|---|
| 5-fold cross-validation of the seed corpus | ${c.crossValidation.spamHeld} of ${c.crossValidation.spam} (${c.crossValidation.spamHeldPct}%, bar ≥ 80%) | ${c.crossValidation.genuineDelivered} of ${c.crossValidation.genuine} (${c.crossValidation.genuineDeliveredPct}%, bar ≥ 99%) |
| the held-out fifth, typed in Chromium at a person's pace | ${c.paced.spamHeld} of ${c.paced.spam} | ${c.paced.genuineDelivered} of ${c.paced.genuine} |

Learning curve on a kind of spam the corpus lacks (podcast guest booking), held by its words after
operator marks (\`inquiries spam ID\`): ${c.learningCurve.map((p) => `${p.marks} marks ${p.held}/${p.of}`).join(", ")}.
Scoring costs ${c.scoringMicroseconds} µs a message.
`
    : "";
  return `
## Spam (\`npm run bench:spam\`, ${s.date})

| class | kind | sent | answered | reached inbox | inbox % |
|---|---|---|---|---|---|
${rows}
${content}`;
}
