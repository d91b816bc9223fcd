import { existsSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { DAY_MS } from "../server/time.ts";

/**
 * What `npm run build` keeps between builds (photo variants, social cards), under
 * node_modules/.cache/NAME: kept by the content it was made from, marked each time a build uses it,
 * and deleted once no build has used it for KEEP_DAYS, so the cache holds what the site still shows.
 */

export const KEEP_DAYS = 30;

export const cacheDir = (name: string) =>
  new URL(`../node_modules/.cache/${name}/`, import.meta.url).pathname;

/** An entry (a file or a folder) used by this build. */
export function markUsed(path: string, now = new Date()) {
  utimesSync(path, now, now);
}

/** Delete the entries of `dir` no build has used for KEEP_DAYS; how many. */
export function prune(dir: string, now = Date.now()): number {
  let pruned = 0;
  for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
    const path = join(dir, entry);
    if (now - statSync(path).mtimeMs > KEEP_DAYS * DAY_MS) {
      rmSync(path, { recursive: true, force: true });
      pruned += 1;
    }
  }
  return pruned;
}
