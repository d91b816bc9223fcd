import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { createTestDatabase } from "./postgres.ts";

/**
 * What a test on one engine gives the server and the CLI: a data folder, and on PostgreSQL a fresh
 * database on the test server, and what removes them.
 */
export async function engineEnv(
  engine: "sqlite" | "postgres",
  name: string,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (engine === "sqlite")
    return { env: { DATA_DIR: dataDir, DATABASE_URL: "" }, cleanup: async () => removeDir() };
  const db = await createTestDatabase(inject("pgAdminUrl"), name);
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: db.url },
    cleanup: async () => {
      await db.drop();
      removeDir();
    },
  };
}
