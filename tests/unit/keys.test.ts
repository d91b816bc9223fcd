import { describe, expect, it } from "vitest";
import { KeyRing } from "../../server/contact/keys.ts";
import { type Sql, StorageUnavailableError } from "../../server/contact/storage/database.ts";
import { deleteExpiredKeys, listKeys, rotateKey } from "../../server/contact/storage/keys.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";

/** The key ring (server/contact/keys.ts, ADR 0017) on a real in-memory SQLite database. */
describe("the keys in the database", () => {
  it("a rotation stays: k1, once rotated out and deleted, is not made again at the next start", async () => {
    const db = openSqlite(":memory:");
    await db.migrate();
    await new KeyRing().attach(db, 1_000);
    expect(await rotateKey(db, "links", 2_000)).toBe("k2");
    // k1's links have all expired: it goes.
    await deleteExpiredKeys(db, 10_000, { links: 1_000, form: 1_000 });
    const restarted = new KeyRing();
    await restarted.attach(db, 20_000);
    expect(
      (await listKeys(db)).filter((k) => k.purpose === "links").map((k) => [k.id, k.retiredAt]),
    ).toEqual([["k2", null]]);
    expect(restarted.signing("links").id).toBe("k2");
    // An id that was made and is gone is a rotation; one never made is not.
    expect(restarted.wasIssued("links", "k1")).toBe(true);
    expect(restarted.wasIssued("links", "k3")).toBe(false);
    await db.close();
  });

  it("a key another instance made is read again from the database when a token names it: a rotation elsewhere holds nothing", async () => {
    const db = openSqlite(":memory:");
    await db.migrate();
    const here = new KeyRing();
    await here.attach(db, 1_000);
    // `keys rotate form` on another instance, whose pages sign with the new key at once.
    expect(await rotateKey(db, "form", 2_000)).toBe("k2");
    const there = new KeyRing();
    await there.attach(db, 3_000);
    const signed = there.signing("form");
    expect(signed.id).toBe("k2");
    expect(await here.find("form", "k2", 4_000)).toEqual(signed.secret);
    // Read last at a time ahead of this process's clock (another clock), it reads again all the same.
    expect(await rotateKey(db, "form", 5_000)).toBe("k3");
    await here.read(60_000);
    expect(await rotateKey(db, "form", 6_000)).toBe("k4");
    expect(await here.find("form", "k4", 7_000)).toBeDefined();
    await db.close();
  });

  it("before the database is attached a link cannot be checked: storage unavailable, not 'not valid'", async () => {
    const ring = new KeyRing();
    await expect(ring.find("links", "k1")).rejects.toBeInstanceOf(StorageUnavailableError);
    // The form still works: pages are served while storage is away, signed with this process's key.
    const key = ring.signing("form");
    expect(await ring.find("form", key.id)).toEqual(key.secret);
  });
  it("while the ring reads the database again, the keys it had still check and sign (no token is held for it)", async () => {
    const db = openSqlite(":memory:");
    await db.migrate();
    // The same database, but a read of the keys waits until the test lets it go: a slow network round trip.
    let gate: Promise<void> | null = null;
    let open = () => {};
    const slow: Sql = {
      engine: db.engine,
      transaction: (fn) => db.transaction(fn),
      async query(sql, params) {
        if (gate && sql.includes("secret_keys")) await gate;
        return db.query(sql, params);
      },
    };
    const ring = new KeyRing();
    await ring.attach(slow, 1_000);
    const form = ring.signing("form");
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const reading = ring.read(5_000);
    expect(ring.signing("form")).toEqual(form);
    expect(await ring.find("form", form.id, 5_500)).toEqual(form.secret);
    expect(ring.signing("links").id).toBe("k1");
    open();
    await reading;
    expect(ring.signing("form")).toEqual(form);
    await db.close();
  });
});
