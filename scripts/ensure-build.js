import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * `npm start` on a fresh clone, or after an edit: build first when either server build is missing or
 * older than the sources, the locked dependencies included (the server's bundle carries them, ADR 0030).
 */

const root = new URL("..", import.meta.url).pathname;
const markers = ["build/server/index.js", "build/server-main/main.js"].map((m) => join(root, m));
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
if (changed > built) {
  console.log(built ? "Sources changed since the last build: building…" : "No build yet: building…");
  try {
    execSync("npm run build", { cwd: root, stdio: "inherit" });
  } catch (err) {
    // The build said what went wrong (scripts/content-check.ts); no stack trace after it.
    process.exit(err.status ?? 1);
  }
}
