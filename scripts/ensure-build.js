import { execSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { buildProblem } from "../server.js";

/**
 * `npm start` on a fresh clone, or after an edit: build first when the server's build is missing,
 * incomplete (a file of its lists missing or not as built: server.js refuses it), older than the
 * sources, the locked dependencies included (the server's bundle carries them, ADR 0030), or made
 * with other values of the build-time variables (server/env.ts BUILD_TIME). Any other change to
 * `.env` (SMTP_URL, …) is read at run time: no build, so a restart never waits on one.
 */

const root = new URL("..", import.meta.url).pathname;
/** What the build read of the build-time variables, written by scripts/postbuild.js. */
export const BUILD_TIME_RECORD = "build/server/build-time.json";

/**
 * The build-time variables as `node --env-file-if-exists=.env` (the build's scripts) sees them: the
 * environment first, then `.env`; an empty value is not set (server/env.ts).
 */
export function buildTimeValues(names, env = process.env) {
  const file = join(root, ".env");
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {};
  return Object.fromEntries(names.map((n) => [n, (n in env ? env[n] : fromFile[n]) || null]));
}

if (import.meta.main) {
  // Each part's list, written once the part is whole.
  const markers = ["build/server/files.json", "build/server-main/files.json"].map((m) =>
    join(root, m),
  );
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
  ];

  const newest = (path) => {
    if (!existsSync(path)) return 0;
    const s = statSync(path);
    if (!s.isDirectory()) return s.mtimeMs;
    return Math.max(0, ...readdirSync(path).map((n) => newest(join(path, n))));
  };

  /** Why the build is not the one to serve, in a few words, or null. */
  const reason = () => {
    const problem = buildProblem();
    if (problem) return `No complete build (${problem})`;
    const built = Math.min(...markers.map((m) => (existsSync(m) ? statSync(m).mtimeMs : 0)));
    if (Math.max(...sources.map((s) => newest(join(root, s)))) > built)
      return "Sources changed since the last build";
    const record = join(root, BUILD_TIME_RECORD);
    if (!existsSync(record)) return `No record of the build-time variables (${BUILD_TIME_RECORD})`;
    const recorded = JSON.parse(readFileSync(record, "utf8"));
    const now = buildTimeValues(Object.keys(recorded));
    const changed = Object.keys(recorded).filter((n) => recorded[n] !== now[n]);
    return changed.length > 0 ? `${changed.join(", ")} changed since the last build` : null;
  };

  const why = reason();
  if (why) {
    console.log(`${why}: building…`);
    try {
      execSync("npm run build", { cwd: root, stdio: "inherit" });
    } catch (err) {
      // The build said what went wrong (scripts/content-check.ts); no stack trace after it.
      process.exit(err.status ?? 1);
    }
  }
}
