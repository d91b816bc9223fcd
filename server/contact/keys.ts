import { randomBytes } from "node:crypto";
import { type Sql, StorageUnavailableError } from "./storage/database.ts";
import {
  ensureAddressKey,
  ensureFirstKey,
  type KeyPurpose,
  listKeys,
  monthOf,
} from "./storage/keys.ts";

/**
 * The ring holds the keys it last read and looks up one it does not know (another instance may have
 * rotated) at most once a second. Until the database is attached, form tokens are signed with a key
 * of this process (the pages are served while storage is away).
 */

type SigningKey = { id: string; secret: Buffer };

export class KeyRing {
  private known = new Map<string, Buffer>();
  private current = new Map<KeyPurpose, SigningKey>();
  private readonly processKey: SigningKey = {
    id: `p${randomBytes(4).toString("hex")}`,
    secret: randomBytes(32),
  };
  private db: Sql | null = null;
  private lastRead = 0;

  async attach(db: Sql, now = Date.now()) {
    for (const purpose of ["links", "form"] as const) await ensureFirstKey(db, purpose, now);
    this.db = db;
    await this.read(now);
  }

  async read(now = Date.now()) {
    if (!this.db) return;
    this.lastRead = now;
    // Swapped whole once read: a check or a signature during the read uses the keys read before.
    const known = new Map<string, Buffer>();
    const current = new Map<KeyPurpose, SigningKey>();
    for (const r of await listKeys(this.db)) {
      const secret = Buffer.from(r.secret, "hex");
      known.set(`${r.purpose}:${r.id}`, secret);
      // The newest key not retired signs (rows come oldest first).
      if (r.retiredAt === null && r.purpose !== "address")
        current.set(r.purpose, { id: r.id, secret });
    }
    this.known = known;
    this.current = current;
  }

  signing(purpose: "links" | "form"): SigningKey {
    const key = this.current.get(purpose);
    if (key) return key;
    if (purpose === "form") return this.processKey;
    throw new Error("the link key is not loaded yet: the contact storage has not started");
  }

  // Before the database is attached, a link cannot be checked yet: "try again", not "not valid".
  async find(purpose: "links" | "form", id: string, now = Date.now()): Promise<Buffer | undefined> {
    if (purpose === "form" && id === this.processKey.id) return this.processKey.secret;
    const have = this.known.get(`${purpose}:${id}`);
    if (have) return have;
    if (!this.db && purpose === "links")
      throw new StorageUnavailableError(
        "the keys are not read yet: the contact storage has not started",
      );
    // A read stamped ahead (a clock that jumped back) does not stop the next.
    if (!this.db || (now >= this.lastRead && now - this.lastRead < 1_000)) return undefined;
    await this.read(now);
    return this.known.get(`${purpose}:${id}`);
  }

  // An id up to the newest known was made and deleted since (a rotation); one never made is forged.
  wasIssued(purpose: "links" | "form", id: string): boolean {
    const n = Number(/^k(\d+)$/.exec(id)?.[1]);
    return [...this.known.keys()].some(
      (k) => k.startsWith(`${purpose}:k`) && Number(k.slice(purpose.length + 2)) >= n,
    );
  }

  async addressKey(now = Date.now()): Promise<Buffer | undefined> {
    const month = monthOf(now);
    const have = this.known.get(`address:${month}`);
    if (have || !this.db) return have;
    await ensureAddressKey(this.db, month, now);
    await this.read(now);
    return this.known.get(`address:${month}`);
  }
}
