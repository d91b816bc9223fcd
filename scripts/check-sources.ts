import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/**
 * What the compilers do not catch, checked by `npm run lint`:
 * - every import of a project file names it as Node resolves it (with its extension; app/ through
 *   `#app/…`, package.json `imports`), so a file Node loads never fails only at start;
 * - no value import cycle in server/ (type imports aside: they vanish at run time);
 * - every repository path written in backticks in README.md and docs/ exists.
 * Prints one line per problem and exits 1 if there is any.
 */

const root = new URL("../", import.meta.url).pathname;
const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
})
  .toString()
  .split("\n")
  .filter((f) => f && existsSync(join(root, f)));
const problems: string[] = [];

type Import = { spec: string; typeOnly: boolean };
/** Every import and re-export of a module, and whether it brings values or only types. */
function importsOf(text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(
    /^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/gms,
  )) {
    const names = m[2] ?? "";
    const braces = /^\{([\s\S]*)\}$/.exec(names.trim())?.[1];
    const allTypes = braces
      ?.split(",")
      .map((n) => n.trim())
      .filter(Boolean)
      .every((n) => n.startsWith("type "));
    found.push({ spec: m[3] ?? "", typeOnly: Boolean(m[1]) || allTypes === true });
  }
  for (const m of text.matchAll(/^import\s*["']([^"']+)["']/gm))
    found.push({ spec: m[1] ?? "", typeOnly: false });
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g))
    found.push({ spec: m[1] ?? "", typeOnly: false });
  return found;
}

/** The project file an import names, or null when it is a package's (or not a file Node loads). */
function target(from: string, spec: string): string | null {
  const path = spec.split("?")[0] ?? "";
  if (path.startsWith("#app/")) return join("app", path.slice("#app/".length));
  if (path.startsWith("./") || path.startsWith("../"))
    return relative(root, join(root, dirname(from), path));
  if (path.startsWith("~/")) return path;
  return null;
}

// What Node loads (the server, the CLI, the build scripts, and the app's modules they import).
const code = tracked.filter(
  (f) => /^(app|server|scripts)\/.*\.(ts|tsx|js)$/.test(f) || f === "server.js",
);
const graph = new Map<string, string[]>();
for (const file of code) {
  const text = readFileSync(join(root, file), "utf8");
  const edges: string[] = [];
  for (const { spec, typeOnly } of importsOf(text)) {
    if (spec.includes("+types/") || /\.(css|svg|png|woff2?)(\?|$)/.test(spec)) continue;
    const to = target(file, spec);
    if (to === null) continue;
    if (to.startsWith("~/") || !existsSync(join(root, to))) {
      problems.push(
        `${file}: import "${spec}" does not name a file as Node resolves it (write the extension; app/ files as #app/…)`,
      );
      continue;
    }
    if (!typeOnly) edges.push(to);
  }
  graph.set(file, edges);
}

// Value import cycles in server/: a depth-first search that reports each cycle once.
const state = new Map<string, "open" | "done">();
const stack: string[] = [];
function visit(file: string) {
  state.set(file, "open");
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (!next.startsWith("server/")) continue;
    if (state.get(next) === "open")
      problems.push(`import cycle: ${[...stack.slice(stack.indexOf(next)), next].join(" → ")}`);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, "done");
}
for (const file of graph.keys()) if (file.startsWith("server/") && !state.has(file)) visit(file);

// Paths in backticks in the documents: a top-level folder or file of the repository, and what follows.
const tops = new Set(tracked.map((f) => f.split("/")[0] ?? ""));
const generated = ["build/", "data/", "node_modules/", ".react-router/"];
const documents = tracked.filter(
  (f) => f === "README.md" || (f.startsWith("docs/") && f.endsWith(".md")),
);
for (const doc of documents) {
  const text = readFileSync(join(root, doc), "utf8");
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    // A placeholder (`<slug>`, `{sqlite,postgres}`, `NNN`) stands for any name.
    const path = (m[1] ?? "")
      .replace(/[#:].*$/, "")
      .replace(/[.,)]+$/, "")
      .replace(/\/$/, "")
      .replace(/<[^>]*>|\{[^}]*\}|NNN/g, "*");
    const top = path.split("/")[0] ?? "";
    if (!path.includes("/") && !tracked.includes(path)) continue;
    if (!tops.has(top) || generated.some((g) => path.startsWith(g))) continue;
    const pattern = new RegExp(
      `^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/|$)`,
    );
    if (!tracked.some((f) => pattern.test(f)))
      problems.push(`${doc}: \`${m[1]}\` names no file or folder of the repository`);
  }
}

for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(
  `check-sources: ${code.length} modules, no unresolved import, no cycle in server/; ${documents.length} documents' paths exist`,
);
