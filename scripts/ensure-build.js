import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildProblem } from "../server.js";

/**
 * `npm start` on a fresh clone, or after an edit: build first when the server's build is missing,
 * incomplete (a file of its lists missing or not as built: server.js refuses it), or older than the
 * sources, the locked dependencies included (the server's bundle carries them, ADR 0030).
 */

const root = new URL("..", import.meta.url).pathname;
// Each part's list, written once the part is whole.
const markers = ["build/server/files.json", "build/server-main/files.json"].map((m) => join(root, m));
const sources = [
  "app",
  "content",
  "public",
  "server",
  "react-router.config.ts",
  "vite.config.ts",
  "vite.server.config.ts",
  "package.json",
  "package-lock.json",
  ".env",
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((n) => newest(join(path, n))));
}

const built = Math.min(...markers.map((m) => (existsSync(m) ? statSync(m).mtimeMs : 0)));
const changed = Math.max(...sources.map((s) => newest(join(root, s))));
const problem = buildProblem();
if (problem || changed > built) {
  console.log(
    problem ? `No complete build (${problem}): building…` : "Sources changed since the last build: building…",
  );
  try {
    execSync("npm run build", { cwd: root, stdio: "inherit" });
  } catch (err) {
    // The build said what went wrong (scripts/content-check.ts); no stack trace after it.
    process.exit(err.status ?? 1);
  }
}
