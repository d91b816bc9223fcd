import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** `npm start` on a fresh clone, or after an edit: build first when the build is missing or older than the sources. */

const root = new URL("..", import.meta.url).pathname;
const marker = join(root, "build/server/index.js");
const sources = [
  "app",
  "content",
  "public",
  "server",
  "react-router.config.ts",
  "vite.config.ts",
  "vite.server.config.ts",
  "package.json",
  ".env",
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((n) => newest(join(path, n))));
}

const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
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
