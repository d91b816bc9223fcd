import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { officeTime } from "../../server/contact/review/clock.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import type { Database } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { engineEnv } from "../support/engines.ts";
import { testKeys } from "../support/keys.ts";

/** The operator tools (`npm run inquiries -- …`), run as an operator would, on both engines. */

const root = new URL("../../", import.meta.url).pathname;
const day = 86_400_000;

async function seed(db: Database) {
  const base = {
    company: "",
    service: "",
    page: "/contact",
    userAgent: "test",
    ipHash: null,
    source: "api" as const,
  };
  const make = (over: Record<string, unknown>) =>
    ({ ...base, id: randomUUID(), held: false, ...over }) as never;
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
    await inquiries.save(db, {
      inquiry,
      limits: [],
      deliveries: [
        { id: randomUUID(), channel: "email", messageId: "<m>", target: "sales@example.com" },
      ],
    });
  }
  await db.query(
    "UPDATE deliveries SET status = 'failed', attempts = 9, last_error = 'relay down' WHERE inquiry_id = ?",
    [(evil as { id: string }).id],
  );
  return {
    fresh: fresh as { id: string },
    evil: evil as { id: string },
    old: old as { id: string },
  };
}

const heldInquiry = {
  name: "Held Person",
  email: "held@example.org",
  company: "",
  service: "",
  message: "A real person, held by mistake.",
  page: null,
  userAgent: null,
  ipHash: null,
  source: "api" as const,
  held: true,
  heldReason: "no form token",
};

describe.each(["sqlite", "postgres"] as const)("inquiries CLI on %s", (engine) => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let ids: Awaited<ReturnType<typeof seed>>;

  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ["server/cli.ts", ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeEach(async () => {
    ({ env, cleanup } = await engineEnv(engine, "cli"));
    const db = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    await db.migrate();
    ids = await seed(db);
    await db.close();
  });
  afterEach(async () => cleanup());

  it("lists every inquiry with its status and attempts, as a table and as JSON", () => {
    const table = cli("list");
    expect(table.code).toBe(0);
    expect(table.out).toContain("Ada Lovelace");
    expect(table.out).toContain("ada@example.org");
    expect(table.out).toContain("failed");
    // A 100-column terminal holds every line, each time on the office's clock, each ID whole.
    for (const line of table.out.trimEnd().split("\n"))
      expect(Array.from(line).length, line).toBeLessThanOrEqual(100);
    const rows = JSON.parse(cli("list", "--json").out);
    for (const r of rows as Array<{ id: string; receivedAt: number }>) {
      expect(table.out).toContain(r.id);
      expect(table.out).toContain(officeTime(r.receivedAt));
    }
    expect(table.out).not.toMatch(/\d{4}-\d\d-\d\dT\d\d/);
    expect(rows.map((r: { name: string }) => r.name)).toEqual([
      "Ada Lovelace",
      '=HYPERLINK("http://x")',
      "Old Timer",
    ]);
    expect(rows[1]).toMatchObject({
      email: "eve@example.org",
      status: "failed",
      attempts: 9,
      lastError: "relay down",
    });
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

  it("exports CSV, quoted and safe to open in a spreadsheet", async () => {
    // Formula tricks for spreadsheets that split on ";" and that read full-width signs.
    const db = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    const tricky = { name: ";=cmd|' /C calc'!A0", company: "\uFF1D1+1", message: "a;=SUM(1)" };
    await inquiries.save(db, {
      inquiry: {
        ...tricky,
        id: randomUUID(),
        email: "t@example.org",
        service: "",
        page: null,
        userAgent: null,
        ipHash: null,
        source: "api",
        held: false,
        receivedAt: Date.now() - 5000,
      },
      limits: [],
      deliveries: [],
    });
    await db.close();
    const out = join(env.DATA_DIR ?? "", "export.csv");
    expect(cli("export", "--format", "csv", "--out", out).code).toBe(0);
    const csv = readFileSync(out, "utf8");
    const [header] = csv.split("\r\n");
    expect(header).toBe(
      '"id","received_at","name","email","company","service","message","status","delivery_attempts","sent_at","source"',
    );
    expect(csv).toContain('"Quote ""this"", please\nThanks"');
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(csv).toContain(`"';=cmd|' /C calc'!A0"`);
    expect(csv).toContain(`"'\uFF1D1+1"`);
    // Every cell quoted: "a;=SUM(1)" stays one cell where ";" is the separator.
    expect(csv).toContain(`"a;=SUM(1)"`);
    expect(csv.split("\r\n")[1]).toMatch(/^"[^"]+","/);
    expect(csv.trim().split("\r\n")).toHaveLength(5);
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

  it("never prints a raw control or bidi character", async () => {
    // Stored before the schema refused them, or written by hand: the CLI must still be safe to run.
    const hostile = {
      name: "Mallory\u202eevil\u001b[2J",
      email: "m\u0085@example.org",
      message: "Line\u009b31m red\nnext\u2028line\ufffe",
    };
    const db = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    const id = randomUUID();
    await inquiries.save(db, {
      inquiry: {
        ...hostile,
        id,
        company: "",
        service: "",
        page: null,
        userAgent: "x\u0007",
        ipHash: null,
        source: "api",
        held: false,
        receivedAt: Date.now(),
      },
      limits: [],
      deliveries: [],
    });
    await db.close();
    const raw =
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
      /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029\ufffe]/;
    const outputs = [
      cli("list"),
      cli("list", "--json"),
      cli("show", id),
      cli("export", "--format", "csv"),
    ];
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
    expect(cli("retry", "--channel", "email").out).toContain(
      "1 failed email delivery queued again",
    );
    const rows = JSON.parse(cli("list", "--json").out);
    expect(rows.find((r: { id: string }) => r.id === ids.evil.id)).toMatchObject({
      status: "pending",
      attempts: 0,
    });
    expect(cli("retry").out).toContain("No failed deliveries.");
  });

  it("shows each channel's delivery, and counts by channel and status (stats)", () => {
    const shown = cli("show", ids.evil.id).out;
    expect(shown).toMatch(
      /Deliveries:\n\s+email\s+failed to sales@example.com, 9 attempt\(s\), last error: relay down/,
    );
    expect(cli("list").out).toContain("email:failed");
    const stats = JSON.parse(cli("stats", "--json").out);
    expect(stats.map((s: { period: string }) => s.period)).toEqual([
      "last day",
      "last week",
      "last month",
    ]);
    expect(stats[0]).toMatchObject({ inquiries: { total: 2, held: 0 } });
    expect(stats[0].deliveries).toEqual(
      expect.arrayContaining([
        { channel: "email", target: "sales@example.com", status: "failed", count: 1 },
        { channel: "email", target: "sales@example.com", status: "pending", count: 1 },
      ]),
    );
    expect(cli("stats").out).toMatch(/last day: 2 inquiries \(0 held as spam\)/);
  });

  it(`take: "I'm on it" from a shell, once; list and stats say who took it and how the reply promise is kept`, () => {
    const first = cli("take", ids.fresh.id, "--by", "Dana");
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^Taken by Dana at \w{3}, \w{3} \d+, \d+:\d\d [AP]M M[SD]T: /);
    const again = cli("take", ids.fresh.id, "--by", "Sam");
    expect(again.out).toMatch(/^Already taken by Dana at .*: nothing changed\./);
    expect(cli("take", "no-such-id").code).toBe(1);
    expect(cli("take").code).toBe(2);
    const undo = cli("take", ids.fresh.id, "--undo");
    expect(undo.code).toBe(2);
    expect(undo.err).toMatch(/take has no --undo/);
    const row = JSON.parse(cli("list", "--json").out).find(
      (r: { id: string }) => r.id === ids.fresh.id,
    );
    expect(row).toMatchObject({ takenBy: "Dana", reply: { takeBusinessMs: expect.any(Number) } });
    expect(cli("list").out).toContain("Dana");
    expect(cli("show", ids.fresh.id).out).toMatch(
      /Taken:\s+\w{3}, \w{3} \d+, \d+:\d\d [AP]M M[SD]T by Dana\nReminded:\s+—/,
    );
    const [day] = JSON.parse(cli("stats", "--json").out);
    expect(day.reply).toMatchObject({ taken: 1, reminded: 0 });
    expect(day.reply.leads).toBeGreaterThanOrEqual(2);
    expect(cli("stats").out).toMatch(
      /reply promise \(4 business hours\): 1 of \d+ leads taken, \d+ waiting/,
    );
  });

  it("releases a held message to the channels the server uses, whatever this shell's environment says", async () => {
    const db = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    const id = randomUUID();
    await inquiries.save(db, {
      inquiry: { ...heldInquiry, id, receivedAt: Date.now() },
      limits: [],
      deliveries: [],
    });
    // Not known before the server has run on this database: refused, nothing queued.
    const early = cli("not-spam", id);
    expect(early.code).toBe(1);
    expect(early.err).toContain("its channels are not known");
    // The server, with a webhook and Slack, starts on it and records its channels.
    const server = await createContactPipeline(
      loadConfig({
        ...env,
        WEBHOOK_URL: "http://127.0.0.1:9/hook",
        WEBHOOK_SECRET: `whsec_${"A".repeat(32)}`,
        SLACK_WEBHOOK_URL: "http://127.0.0.1:9/slack",
      }),
      pino({ level: "silent" }),
      { keys: testKeys(), db },
    );
    await server.close();
    // An operator's shell with only the data folder (or database) set.
    const released = cli("not-spam", id);
    expect(released.code).toBe(0);
    expect(released.out).toMatch(/queued for email \(.+\), webhook, slack/);
    const shown = JSON.parse(cli("list", "--json").out).find((r: { id: string }) => r.id === id);
    expect(shown.deliveries.map((d: { channel: string }) => d.channel).sort()).toEqual([
      "email",
      "slack",
      "webhook",
    ]);
  });

  it("exports everything held about one person as JSON, and forgets it all, saying what went", async () => {
    // Eve has one failed inquiry (seed); a second one, held, under another spelling of the address.
    const db = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    const heldId = randomUUID();
    await inquiries.save(db, {
      inquiry: { ...heldInquiry, email: "EVE@example.org", id: heldId, receivedAt: Date.now() },
      limits: [],
      deliveries: [],
      idempotency: { key: "eve-key", fingerprint: "f" },
    });
    await db.close();
    const exported = cli("export", "--email", "eve@example.org");
    expect(exported.code).toBe(0);
    const data = JSON.parse(exported.out);
    expect(data.email).toBe("eve@example.org");
    expect(data.inquiries.map((r: { id: string }) => r.id).sort()).toEqual(
      [ids.evil.id, heldId].sort(),
    );
    const held = data.inquiries.find((r: { id: string }) => r.id === heldId);
    expect(held).toMatchObject({ held: true, heldReason: "no form token", status: "held" });
    const evil = data.inquiries.find((r: { id: string }) => r.id === ids.evil.id);
    expect(evil.deliveries).toEqual([
      expect.objectContaining({ channel: "email", status: "failed" }),
    ]);

    const forgotten = cli("forget", "--email", "Eve@Example.org");
    expect(forgotten.code).toBe(0);
    expect(forgotten.out).toContain("2 inquiries, 1 deliveries, 1 idempotency records");
    expect(JSON.parse(cli("export", "--email", "eve@example.org").out).inquiries).toEqual([]);
    // Everyone else is untouched.
    expect(
      JSON.parse(cli("list", "--json").out)
        .map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual([ids.fresh.id, ids.old.id].sort());
    const check = openDatabase({
      dataDir: env.DATA_DIR ?? "",
      DATABASE_URL: env.DATABASE_URL || undefined,
    });
    expect(await inquiries.keyRecord(check, "eve-key")).toBeNull();
    await check.close();
    expect(cli("forget").code).toBe(2);
  });

  it("purges inquiries older than the given age", () => {
    expect(cli("purge", "--older-than", "365d").out).toContain(
      "Deleted 1 inquiry older than 365d, 0 email files and 0 expired rate limits.",
    );
    const rows = JSON.parse(cli("list", "--json").out);
    expect(rows.map((r: { id: string }) => r.id)).not.toContain(ids.old.id);
    expect(rows).toHaveLength(2);
    const bad = cli("purge", "--older-than", "a year");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--older-than takes");
  });
});

describe("inquiries CLI without a database", () => {
  it("says the database does not exist, exits non-zero and creates nothing, rather than reporting an empty one", () => {
    const missing = join(tmpdir(), `no-such-data-${process.pid}-${Date.now()}`);
    for (const command of ["list", "held", "stats", "retry", "purge"]) {
      const args = command === "purge" ? [command, "--older-than", "365d"] : [command];
      const r = spawnSync(process.execPath, ["server/cli.ts", ...args], {
        cwd: root,
        env: { ...process.env, DATA_DIR: missing, DATABASE_URL: "" },
        encoding: "utf8",
      });
      expect(r.status, command).toBe(1);
      expect(r.stderr, command).toContain(`No database at ${join(missing, "inquiries.sqlite")}`);
      expect(existsSync(missing), command).toBe(false);
    }
  });

  it("changes no schema: on a database behind the code it says so, and leaves it as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-old-"));
    const raw = new DatabaseSync(join(dir, "inquiries.sqlite"));
    raw.exec(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    raw.close();
    const r = spawnSync(process.execPath, ["server/cli.ts", "list"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: "" },
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    // Every migration this code has, named: none applied yet.
    const all = readdirSync(join(root, "db/migrations/sqlite")).sort().join(", ");
    expect(all).toMatch(/^001_v1_0_0\.sql, 002_bookings\.sql, /);
    expect(r.stderr).toContain(
      `The database is behind this code (${all} not applied): start the server once, it migrates.`,
    );
    const after = new DatabaseSync(join(dir, "inquiries.sqlite"));
    expect(after.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: 0 });
    expect(
      after.prepare("SELECT name FROM sqlite_master WHERE name = 'inquiries'").get(),
    ).toBeUndefined();
    after.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("says so in one line when DATA_DIR cannot even be created", () => {
    const r = spawnSync(process.execPath, ["server/cli.ts", "list"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: "/dev/null/data", DATABASE_URL: "" },
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      "No database at /dev/null/data/inquiries.sqlite: set DATA_DIR (or DATABASE_URL) to the server's.",
    ]);
  });
});
