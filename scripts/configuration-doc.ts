import { readFileSync, writeFileSync } from "node:fs";
import type { z } from "zod";
import { BUILD_TIME, schema } from "../server/env.ts";

/**
 * docs/configuration.md: its rows in server/env.ts's order, the "read at" and default columns made
 * from the schema; what a variable does (and a default the schema does not have) is written in the
 * document, where it is read, and kept:
 *   npm run docs:config            write it
 *   npm run docs:config -- --check fail (exit 1) if it, or .env.example, disagrees with the code
 * `npm run lint` runs the check, so CI fails on a stale document.
 */

const DOC = new URL("../docs/configuration.md", import.meta.url);
const EXAMPLE = new URL("../.env.example", import.meta.url);

let current = "";
try {
  current = readFileSync(DOC, "utf8");
} catch {
  // missing: every row undescribed
}
const written = new Map(
  [...current.matchAll(/^\| `([A-Z_]+)` \| [^|]* \| (.*?) \| (.*) \|$/gm)].map((m) => [
    m[1],
    { shown: m[2], does: m[3] },
  ]),
);

function render(): string {
  const rows = Object.entries(schema.shape).map(([name, field]) => {
    const parsed = (field as z.ZodType).safeParse(undefined);
    const value = parsed.success ? (parsed.data as unknown) : undefined;
    const shown =
      value === undefined || (Array.isArray(value) && value.length === 0)
        ? (written.get(name)?.shown ?? "—")
        : `\`${Array.isArray(value) ? value.join(", ") : String(value)}\``;
    const when = (BUILD_TIME as readonly string[]).includes(name) ? "build and run" : "run";
    return `| \`${name}\` | ${when} | ${shown} | ${written.get(name)?.does ?? ""} |`;
  });
  return `# Configuration

<!-- The "read at" and default columns are made from server/env.ts by \`npm run docs:config\`, which keeps what is written here; \`npm run lint\` fails when they are stale or a variable has no row. -->

Every variable is optional. \`npm run build\`, \`npm start\`, \`npm run dev\` and \`npm run inquiries\`
read a \`.env\` file if there is one (copy \`.env.example\`); a variable set in the environment wins.
**build and run** variables are baked into the prerendered pages (\`npm start\` rebuilds when one
of them changed, in \`.env\` or the environment; a change of a **run** variable needs only a restart) and read again by the server: give both the same value (the image keeps its build
arguments as the defaults of its environment); **run** variables are read when the server or the CLI starts. A bad value stops it at start with one
line naming the variable (\`Invalid environment: PORT: a port number 1-65535\`). Durations are in
milliseconds. The test and benchmark tools have their own (\`CHROMIUM_PATH\`, \`PG_BIN\`,
\`TEST_DATABASE_URL\`, \`BENCH_DATABASE_URL\`, \`NGINX_PATH\`, \`E2E_PORT\`).

| variable | read at | default | what it does |
|---|---|---|---|
${rows.join("\n")}
`;
}

/** Every variable of the code is in .env.example (set or commented), and nothing else is. */
function exampleProblems(): string[] {
  // compose.yaml's own (the database container's password), read from the same .env.
  const declared = new Set([...Object.keys(schema.shape), "POSTGRES_PASSWORD"]);
  const listed = new Set(
    [...readFileSync(EXAMPLE, "utf8").matchAll(/^#? ?([A-Z_]+)=/gm)].map((m) => m[1] ?? ""),
  );
  return [
    ...[...declared].filter((v) => !listed.has(v)).map((v) => `.env.example does not mention ${v}`),
    ...[...listed]
      .filter((v) => !declared.has(v))
      .map((v) => `.env.example names ${v}, which server/env.ts does not declare`),
  ];
}

const text = render();
if (process.argv.includes("--check")) {
  const problems = exampleProblems();
  for (const name of Object.keys(schema.shape).filter((v) => !written.get(v)?.does))
    problems.push(`docs/configuration.md does not say what ${name} does`);
  if (current !== text)
    problems.push("docs/configuration.md disagrees with server/env.ts: run `npm run docs:config`");
  for (const p of problems) console.error(p);
  process.exit(problems.length > 0 ? 1 : 0);
}
writeFileSync(DOC, text);
console.log(`Wrote docs/configuration.md (${Object.keys(schema.shape).length} variables).`);
