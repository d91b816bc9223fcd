import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;

/**
 * A copy of the project (this one, or the checkout `from`) as an editor has it, whose node_modules links each package of this one's
 * but not its caches (node_modules/.cache): what a build makes and keeps there stays the copy's own,
 * and starts empty.
 */
export function copyWithOwnCaches(prefix: string, from = root): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const name of [
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
  ]) {
    cpSync(join(from, name), join(dir, name), { recursive: true });
  }
  mkdirSync(join(dir, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry === ".cache") continue;
    symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
  }
  return dir;
}
