import { secretKeys } from "../../server/contact/intake/address-hash.ts";
import { KeyRing } from "../../server/contact/keys.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";

/**
 * The keys of an in-process pipeline (the server makes its own at start, server/main.ts): a ring of
 * its own for each pipeline, which reads its keys from that pipeline's database when it starts.
 */
export const testKeys = () =>
  secretKeys(new KeyRing(), { SITE_URL: "http://127.0.0.1", INQUIRY_LINK_DAYS: 30 });

/** Keys already read from a database of their own (an in-memory SQLite one), for code that signs without a pipeline. */
export async function attachedTestKeys() {
  const keys = testKeys();
  const db = openSqlite(":memory:");
  await db.migrate();
  await keys.ring.attach(db);
  return keys;
}
