import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;

/** What an editor's copy of the project holds: the sources a build reads, not its output. */
const SOURCES = [
  "app",
  "content",
  "scripts",
  "server",
  "public",
  "db",
  "package.json",
  "react-router.config.ts",
  "vite.config.ts",
  "vite.server.config.ts",
  "tsconfig.json",
  "server.js",
];

/**
 * A copy of the project (this one, or the checkout `from`) as an editor has it, with this one's
 * packages. `ownCaches`: its node_modules links each package but not the caches
 * (node_modules/.cache), so what a build makes and keeps there is the copy's own and starts empty;
 * else node_modules is this one's, caches and all (a test that needs no cold build is faster so).
 */
export function copyOfProject(
  prefix: string,
  { from = root, ownCaches = false }: { from?: string; ownCaches?: boolean } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const name of SOURCES) cpSync(join(from, name), join(dir, name), { recursive: true });
  if (!ownCaches) {
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    return dir;
  }
  mkdirSync(join(dir, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry === ".cache") continue;
    symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
  }
  return dir;
}

/** An editor's change to a file of a copy: `from` must be there (else the test is out of date). */
export function editFile(dir: string, file: string, from: string, to: string) {
  const path = join(dir, file);
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  writeFileSync(path, text.replace(from, to));
}
