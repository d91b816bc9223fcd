import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../../server/contact/storage/database.ts";
import { Store } from "../../server/contact/storage/store.ts";
import { createTestDatabase } from "../support/postgres";

/** The operator tools (`npm run inquiries -- …`), run as an operator would, on both engines. */

const root = new URL("../../", import.meta.url).pathname;
const day = 86_400_000;

async function seed(store: Store) {
  const base = { company: "", service: "", page: "/contact", userAgent: "test", ipHash: null, source: "api" as const };
  const make = (over: Record<string, unknown>) => ({ ...base, id: randomUUID(), spam: false, ...over }) as never;
  const fresh = make({
    name: "Ada Lovelace",
    email: "ada@example.org",
    service: "AI Consulting",
    message: 'Quote "this", please\nThanks',
    receivedAt: Date.now(),
  });
  const evil = make({
    name: '=HYPERLINK("http://x")',
    email: "eve@example.org",
    message: "csv injection",
    receivedAt: Date.now() - 1000,
  });
  const old = make({
    name: "Old Timer",
    email: "old@example.org",
    message: "From long ago",
    receivedAt: Date.now() - 400 * day,
  });
  for (const inquiry of [fresh, evil, old]) {
    await store.intake.save({
      inquiry,
      limits: [],
      deliveries: [{ id: randomUUID(), channel: "email", messageId: "<m>" }],
    });
  }
  await store.db.query(
    "UPDATE deliveries SET status = 'failed', attempts = 9, last_error = 'relay down' WHERE inquiry_id = ?",
    [(evil as { id: string }).id],
  );
  return { fresh: fresh as { id: string }, evil: evil as { id: string }, old: old as { id: string } };
}

describe.each(["sqlite", "postgres"] as const)("inquiries CLI on %s", (engine) => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let ids: Awaited<ReturnType<typeof seed>>;

  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ["scripts/inquiries.ts", ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeEach(async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-"));
    if (engine === "sqlite") {
      env = { DATA_DIR: dir, DATABASE_URL: "" };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const pgdb = await createTestDatabase(inject("pgAdminUrl"), "cli");
      env = { DATA_DIR: dir, DATABASE_URL: pgdb.url };
      cleanup = async () => {
        await pgdb.drop();
        rmSync(dir, { recursive: true, force: true });
      };
    }
    const db = openDatabase({ dataDir: dir, databaseUrl: env.DATABASE_URL || undefined });
    await db.migrate();
    ids = await seed(new Store(db));
    await db.close();
  });
  afterEach(async () => cleanup());

  it("lists every inquiry with its status and attempts, as a table and as JSON", () => {
    const table = cli("list");
    expect(table.code).toBe(0);
    expect(table.out).toContain("Ada Lovelace");
    expect(table.out).toContain("ada@example.org");
    expect(table.out).toContain("failed");
    const rows = JSON.parse(cli("list", "--json").out);
    expect(rows.map((r: { name: string }) => r.name)).toEqual(["Ada Lovelace", '=HYPERLINK("http://x")', "Old Timer"]);
    expect(rows[1]).toMatchObject({ email: "eve@example.org", status: "failed", attempts: 9, lastError: "relay down" });
    expect(Object.keys(rows[0])).toEqual(
      expect.arrayContaining([
        "id",
        "receivedAt",
        "name",
        "email",
        "company",
        "service",
        "message",
        "status",
        "attempts",
      ]),
    );
  });

  it("exports CSV, quoted and safe to open in a spreadsheet", () => {
    const out = join(env.DATA_DIR ?? "", "export.csv");
    expect(cli("export", "--format", "csv", "--out", out).code).toBe(0);
    const csv = readFileSync(out, "utf8");
    const [header] = csv.split("\r\n");
    expect(header).toBe("id,received_at,name,email,company,service,message,status,delivery_attempts,sent_at,source");
    expect(csv).toContain('"Quote ""this"", please\nThanks"');
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(csv.trim().split("\r\n")).toHaveLength(4);
    expect(cli("export").code).toBe(2);
  });

  it("shows one inquiry in full, and says so when there is none", () => {
    const shown = cli("show", ids.fresh.id);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/Service:\s+AI Consulting/);
    expect(shown.out).toContain('Quote "this", please\nThanks');
    const missing = cli("show", "no-such-id");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("No inquiry with ID no-such-id");
  });

  it("never prints a raw control or bidi character (issue 8, item 11)", async () => {
    // Stored before the schema refused them, or written by hand: the CLI must still be safe to run.
    const hostile = {
      name: "Mallory\u202eevil\u001b[2J",
      email: "m\u0085@example.org",
      message: "Line\u009b31m red\nnext\u2028line\ufffe",
    };
    const db = openDatabase({ dataDir: env.DATA_DIR ?? "", databaseUrl: env.DATABASE_URL || undefined });
    const id = randomUUID();
    await new Store(db).intake.save({
      inquiry: {
        ...hostile,
        id,
        company: "",
        service: "",
        page: null,
        userAgent: "x\u0007",
        ipHash: null,
        source: "api",
        spam: false,
        receivedAt: Date.now(),
      },
      limits: [],
      deliveries: [],
    });
    await db.close();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    const raw = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029\ufffe]/;
    const outputs = [cli("list"), cli("list", "--json"), cli("show", id), cli("export", "--format", "csv")];
    for (const o of outputs) {
      expect(o.code).toBe(0);
      expect(o.out).not.toMatch(raw);
    }
    expect(outputs[2]?.out).toContain("Mallory\\u{202e}evil\\u{1b}[2J");
    // The JSON stays exact: parsed back, it is what was stored.
    const row = JSON.parse(outputs[1]?.out ?? "[]").find((r: { id: string }) => r.id === id);
    expect(row).toMatchObject(hostile);
  });

  it("queues failed jobs again with retry", () => {
    expect(cli("retry", "--channel", "webhook").out).toContain("No failed webhook deliveries.");
    expect(cli("retry", "--channel", "fax").code).toBe(2);
    expect(cli("retry", "--channel", "email").out).toContain("1 failed email delivery queued again");
    const rows = JSON.parse(cli("list", "--json").out);
    expect(rows.find((r: { id: string }) => r.id === ids.evil.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(cli("retry").out).toContain("No failed deliveries.");
  });

  it("shows each channel's delivery, and counts by channel and status (stats)", () => {
    const shown = cli("show", ids.evil.id).out;
    expect(shown).toMatch(/Deliveries:\n\s+email\s+failed, 9 attempt\(s\), last error: relay down/);
    expect(cli("list").out).toContain("email:failed");
    const stats = JSON.parse(cli("stats", "--json").out);
    expect(stats.map((s: { period: string }) => s.period)).toEqual(["last day", "last week", "last month"]);
    expect(stats[0]).toMatchObject({ inquiries: { total: 2, spam: 0 } });
    expect(stats[0].deliveries).toEqual(
      expect.arrayContaining([
        { channel: "email", status: "failed", count: 1 },
        { channel: "email", status: "pending", count: 1 },
      ]),
    );
    expect(cli("stats").out).toMatch(/last day: 2 inquiries \(0 held as spam\)/);
  });

  it("purges inquiries older than the given age", () => {
    expect(cli("purge", "--older-than", "365d").out).toContain("Deleted 1 inquiry older than 365d.");
    const rows = JSON.parse(cli("list", "--json").out);
    expect(rows.map((r: { id: string }) => r.id)).not.toContain(ids.old.id);
    expect(rows).toHaveLength(2);
    const bad = cli("purge", "--older-than", "a year");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--older-than takes");
  });
});
