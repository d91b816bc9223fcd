import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The copies an operator makes in DATA_DIR (backups/, exports/, and what a restore leaves beside the
 * database), erased once older than the privacy notice's `backupDays`, at each housekeeping turn;
 * copies elsewhere are the operator's to delete on the same schedule (docs/operations.md).
 */

const COPY_FOLDERS = ["backups", "exports"];
const RESTORE_LEFTOVER = /^inquiries\.sqlite.*\.(replaced-.+|restoring)$/;

export function eraseOldCopies(dataDir: string, days: number): string[] {
  const before = Date.now() - days * 86_400_000;
  const list = (folder: string) => (existsSync(join(dataDir, folder)) ? readdirSync(join(dataDir, folder)) : []);
  const candidates = [
    ...list("").filter((f) => RESTORE_LEFTOVER.test(f)),
    ...COPY_FOLDERS.flatMap((folder) => list(folder).map((f) => join(folder, f))),
  ];
  const erased: string[] = [];
  for (const name of candidates) {
    const path = join(dataDir, name);
    try {
      if (statSync(path).mtimeMs >= before) continue;
      rmSync(path, { recursive: true, force: true });
      erased.push(name);
    } catch {
      // Gone meanwhile, or not ours to delete: the next turn tries again.
    }
  }
  return erased;
}
