import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite, WAL_CHECKPOINT_PAGES } from "../../server/contact/db-sqlite.ts";
import type { Database } from "../../server/contact/storage.ts";

/**
 * SQLite's write-ahead log as the server keeps it (server/contact/db-sqlite.ts): checkpointed every
 * 10,000 pages rather than SQLite's 1,000, with the file bounded, and nothing of it lost when the
 * database is closed and opened again.
 */
describe("SQLite's log", () => {
  let dir = "";
  let db: Database | null = null;
  afterEach(async () => {
    await db?.close();
    db = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is checkpointed only after 10,000 pages, and keeps every commit across a reopen", async () => {
    dir = mkdtempSync(join(tmpdir(), "sqlite-log-"));
    const file = join(dir, "contact.sqlite");
    db = openSqlite(file);
    const [pages] = await db.query<{ wal_autocheckpoint: number }>("PRAGMA wal_autocheckpoint");
    expect(pages?.wal_autocheckpoint).toBe(WAL_CHECKPOINT_PAGES);
    const [limit] = await db.query<{ journal_size_limit: number }>("PRAGMA journal_size_limit");
    expect(limit?.journal_size_limit).toBe(64 * 1024 * 1024);

    // 1,500 commits of one page each: past SQLite's default checkpoint (after which the log starts
    // again from its beginning and its file stops growing at about 1,000 pages), short of ours.
    await db.query("CREATE TABLE filler (n INTEGER PRIMARY KEY, body BLOB NOT NULL)");
    for (let n = 0; n < 1_500; n++) {
      await db.transaction(async (tx) => tx.query("INSERT INTO filler (n, body) VALUES (?, randomblob(3000))", [n]));
    }
    const frame = 24 + 4096;
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_400 * frame);

    await db.close();
    db = openSqlite(file);
    const [count] = await db.query<{ n: number }>("SELECT count(*) AS n FROM filler");
    expect(count?.n).toBe(1_500);
  });
});
