import { execFile, spawn } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import pg from "pg";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { loadConfig, type Tuning } from "../../server/config.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { inquiriesCli } from "../support/cli.ts";
import { engineEnv } from "../support/engines.ts";
import { testKeys } from "../support/keys.ts";
import { freePort } from "../support/ports.ts";
import { createTestDatabase } from "../support/postgres";
import { Receiver } from "../support/receiver";
import { json, lines, nextIp } from "../support/requests";
import { childEnv, type RunningServer, startServer } from "../support/server";
import { TestSmtp } from "../support/smtp";

/**
 * What a small company's server meets over a year, tried as an operator would with the real server,
 * a real SMTP relay and real receivers: a dead disk (backup, restore, Litestream), an upgrade from
 * the earliest database, a corrected address or route, instances with other settings, a slow relay,
 * and a database that does not answer.
 */

const root = new URL("../../", import.meta.url).pathname;
const run = promisify(execFile);
const nodeDir = dirname(process.execPath);

type Env = Record<string, string>;
const cli = inquiriesCli;
const stops: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
const serve = async (env: Env, tuning: Partial<Tuning> = {}) => {
  const server = await startServer({ SPAM_FILTER: "off", ...env }, undefined, {
    OUTBOX_POLL_MS: 50,
    ...tuning,
  });
  stops.push(() => server.stop());
  return server;
};
const send = async (url: string, body: Env = {}) => {
  const res = await fetch(`${url}/functions/v1/send-email`, {
    method: "POST",
    headers: { ...json, "x-forwarded-for": nextIp() },
    body: JSON.stringify({
      name: "Ada Lovelace",
      email: "ada@example.org",
      message: `Lead ${randomUUID()}`,
      ...body,
    }),
  });
  expect(res.status).toBe(201);
  return String(((await res.json()) as { id: string }).id);
};
const relay = async () => {
  const smtp = await new TestSmtp().start();
  stops.push(() => smtp.stop());
  return smtp;
};
const to = (smtp: TestSmtp, id: string) =>
  smtp.received
    .filter((m) => m.mail.headers.get("x-inquiry-id") === id)
    .map((m) => (m.mail.to && "text" in m.mail.to ? m.mail.to.text : ""));
const storedIds = (dataDir: string, file = "inquiries.sqlite") => {
  const db = new DatabaseSync(join(dataDir, file), { readOnly: true });
  try {
    return (db.prepare("SELECT id FROM inquiries").all() as Array<{ id: string }>)
      .map((r) => r.id)
      .sort();
  } finally {
    db.close();
  }
};

describe("backups and restore (SQLite)", () => {
  it("`backup` while the server writes, the data folder lost, `restore`: every acknowledged lead is back", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "backup-"));
    const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
    const server = await serve(env);
    const acked: string[] = [];
    for (let i = 0; i < 10; i++) acked.push(await send(server.url));
    const file = join(mkdtempSync(join(tmpdir(), "backups-")), "leads.sqlite");
    const [backup] = await Promise.all([cli(env, "backup", file), send(server.url)]);
    expect(backup.out).toMatch(/^Wrote .*leads\.sqlite: 1[01] inquiries\./);
    expect((await cli(env, "backup", file)).err).toContain(
      "exists: a backup never overwrites a file",
    );
    await server.stop();
    // Restore refuses to replace a database that is there, and says how.
    const refused = await cli(env, "restore", file);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`restore ${file} --force`);
    // The disk dies.
    rmSync(dataDir, { recursive: true, force: true });
    const restored = await cli(env, "restore", file);
    expect(restored.out).toContain("Restored");
    const again = await serve(env);
    expect(storedIds(dataDir)).toEqual(expect.arrayContaining(acked));
    expect((await fetch(`${again.url}/readyz`)).status).toBe(200);
    // --force replaces one that is there, keeping it beside it.
    await again.stop();
    expect((await cli(env, "restore", file, "--force")).out).toContain("is kept as");
    expect(readdirSync(dataDir).some((f) => f.startsWith("inquiries.sqlite.replaced-"))).toBe(true);
  });

  it("Litestream (deploy/start.sh, a replica in a local folder): the data folder deleted, every acknowledged lead restored at the next start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "litestream-data-"));
    const replica = mkdtempSync(join(tmpdir(), "litestream-replica-"));
    const port = await freePort();
    const env = childEnv({
      PATH: `${nodeDir}:${process.env.PATH}`,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      LITESTREAM_REPLICA_URL: `file://${replica}`,
      PORT: String(port),
      HOST: "127.0.0.1",
      SPAM_FILTER: "off",
      // Litestream starts the server without the tests' `--tuning` (serverArgs): its clock is set
      // instead, to 3 AM at the office on a Tuesday, hours before the morning digest.
      LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
      FAKETIME: "@2026-12-01 10:00:00",
      FAKETIME_DONT_RESET: "1",
    });
    const start = async () => {
      const child = spawn("sh", ["deploy/start.sh"], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout?.on("data", (d) => {
        out += d;
      });
      child.stderr?.on("data", (d) => {
        out += d;
      });
      const exited = new Promise((r) => child.once("exit", r));
      stops.push(() => {
        if (child.exitCode !== null) return;
        child.kill("SIGKILL");
        return exited;
      });
      const deadline = Date.now() + 20_000;
      while (!out.includes("contact pipeline ready")) {
        if (Date.now() > deadline) throw new Error(`did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return { child, out: () => out, exited };
    };
    const first = await start();
    const url = `http://127.0.0.1:${port}`;
    const acked: string[] = [];
    for (let i = 0; i < 20; i++) acked.push(await send(url));
    // Replicated within about a second: waited for by restoring the replica into a scratch file
    // until it holds every acknowledged lead. Then SIGTERM reaches the server through Litestream.
    const litestream = join(
      root,
      `node_modules/@flydotio/litestream-${process.platform}-${process.arch}/litestream`,
    );
    const inReplica = async () => {
      const copy = join(mkdtempSync(join(tmpdir(), "litestream-copy-")), "copy.sqlite");
      const restored = await run(
        litestream,
        [
          "restore",
          "-config",
          "deploy/litestream.yml",
          "-o",
          copy,
          join(dataDir, "inquiries.sqlite"),
        ],
        {
          cwd: root,
          env,
        },
      ).then(
        () => true,
        () => false,
      );
      return restored ? storedIds(dirname(copy), "copy.sqlite").length : 0;
    };
    await expect.poll(inReplica, { timeout: 20_000, interval: 250 }).toBe(acked.length);
    first.child.kill("SIGTERM");
    await first.exited;
    expect(first.out()).toContain("server stopped");
    rmSync(dataDir, { recursive: true, force: true });
    const second = await start();
    expect(second.out()).toContain("restoring snapshot");
    expect(storedIds(dataDir)).toEqual([...acked].sort());
    second.child.kill("SIGTERM");
    await second.exited;
  });
});

describe.each(["sqlite", "postgres"] as const)("on %s", (engine) => {
  let env: Env;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ env, cleanup } = await engineEnv(engine, "leads"));
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await cleanup();
  });
  const open = () =>
    openDatabase({ dataDir: env.DATA_DIR ?? "", DATABASE_URL: env.DATABASE_URL || undefined });

  it("an upgrade from release 1.0.0 keeps every lead, sends each waiting one once, and its links still work", async () => {
    // The database as release 1.0.0 left it (tests/fixtures/v1.0.0): one lead sent, one waiting, one held.
    const fixture = join(root, "tests/fixtures/v1.0.0");
    const schema = readFileSync(join(fixture, `schema.${engine}.sql`), "utf8");
    // The release's schema never changes once released: later releases add migrations beside it.
    expect(readFileSync(join(root, `db/migrations/${engine}/001_v1_0_0.sql`), "utf8")).toBe(schema);
    const now = Date.now();
    const rows = readFileSync(join(fixture, "data.sql"), "utf8")
      .replace(/^--.*$/gm, "")
      .replaceAll(":now", String(now))
      .split(";")
      .map((r) => r.trim())
      .filter(Boolean);
    if (engine === "sqlite") {
      const db = new DatabaseSync(join(env.DATA_DIR ?? "", "inquiries.sqlite"));
      db.exec(schema);
      for (const r of rows) db.exec(r);
      db.close();
    } else {
      const client = new pg.Client(env.DATABASE_URL);
      await client.connect();
      await client.query(schema);
      for (const r of rows) await client.query(r);
      await client.end();
    }
    const [sent, waiting, held] = ["1", "2", "3"].map(
      (n) => `0190a000-0000-7000-8000-00000000000${n}`,
    ) as [string, string, string];
    const smtp = await relay();
    const server = await serve({ ...env, SMTP_URL: smtp.url, CONTACT_TO: "sales@example.com" });
    await expect.poll(() => to(smtp, waiting), { timeout: 10_000 }).toEqual(["sales@example.com"]);
    const db = open();
    stops.push(() => db.close());
    const statuses = async () => (await inquiries.list(db)).map((r) => [r.id, r.status]).sort();
    await expect.poll(statuses).toEqual(
      [
        [sent, "sent"],
        [waiting, "sent"],
        [held, "held"],
      ].sort(),
    );
    // Sent once: the outbox holds no lead left to send (the reminder waits for the promise).
    expect(
      await db.query("SELECT id FROM deliveries WHERE kind = 'lead' AND status <> 'sent'"),
    ).toEqual([]);
    expect(smtp.received.filter((m) => m.mail.headers.get("x-inquiry-id"))).toHaveLength(1);
    // A link in the lead sent by 1.0.0, signed with its key, still opens the lead.
    const key = Buffer.from(
      "6c696e6b732d6b65792d6f662d72656c656173652d312e302e302d666978747572",
      "hex",
    );
    const payload = `${sent}.take.${Math.ceil((now + 86_400_000) / 1000).toString(36)}.k1`;
    const token = `${payload}.${createHmac("sha256", key).update(payload).digest("base64url")}`;
    const page = await fetch(`${server.url}/lead?t=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Sent Lead");
    const later = readdirSync(join(root, `db/migrations/${engine}`)).length - 1;
    const applied =
      lines(server.output()).find((l) => l.msg === "database migrations applied")?.applied ?? [];
    expect(applied).toHaveLength(later);
  });

  it("a corrected CONTACT_TO reaches the lead refused at the old one: `retry` sends it where the configuration says now", async () => {
    const smtp = await relay();
    smtp.unknownRecipients.add("sales@exmaple.com");
    const first = await serve({ ...env, SMTP_URL: smtp.url, CONTACT_TO: "sales@exmaple.com" });
    const id = await send(first.url);
    const db = open();
    stops.push(() => db.close());
    await expect
      .poll(async () => (await inquiries.get(db, id))?.status, { timeout: 10_000 })
      .toBe("failed");
    await first.stop();
    // Corrected, restarted, retried as the alert says.
    await serve({ ...env, SMTP_URL: smtp.url, CONTACT_TO: "sales@example.com" });
    const retried = await cli(env, "retry");
    expect(retried.out).toContain("where the configuration sends them now");
    await expect.poll(() => to(smtp, id), { timeout: 10_000 }).toEqual(["sales@example.com"]);
    // Where it went, as `show` says, once the worker recorded it.
    await expect
      .poll(async () => (await inquiries.get(db, id))?.deliveries[0]?.target)
      .toBe("sales@example.com");
  });

  it("a route changed while a lead waits: every channel follows the new route, the former partner never gets it", async () => {
    const smtp = await relay();
    const newHook = await new Receiver().start("/new");
    stops.push(() => newHook.stop());
    const secret = `whsec_${"B".repeat(32)}`;
    const route = (to: string, webhook: string) =>
      JSON.stringify({ "AI Consulting": { to, webhook } });
    // The relay and the receiver are down: the lead waits.
    const deadPort = await freePort();
    const first = await serve(
      {
        ...env,
        SMTP_URL: `smtp://127.0.0.1:${deadPort}`,
        WEBHOOK_SECRET: secret,
        CONTACT_ROUTES: route("old-partner@example.com", `http://127.0.0.1:${deadPort}/old`),
      },
      { OUTBOX_RETRY_BASE_MS: 60_000 },
    );
    const id = await send(first.url, { service: "AI Consulting" });
    const db = open();
    stops.push(() => db.close());
    await expect
      .poll(async () => (await inquiries.get(db, id))?.attempts, { timeout: 10_000 })
      .toBeGreaterThan(0);
    await first.stop();
    await db.query("UPDATE deliveries SET next_attempt_at = 0 WHERE inquiry_id = ?", [id]);
    await serve({
      ...env,
      SMTP_URL: smtp.url,
      WEBHOOK_SECRET: secret,
      CONTACT_ROUTES: route("new-partner@example.com", newHook.url),
    });
    await expect
      .poll(async () => (await inquiries.get(db, id))?.status, { timeout: 10_000 })
      .toBe("sent");
    expect(to(smtp, id)).toEqual(["new-partner@example.com"]);
    expect(newHook.received).toHaveLength(1);
    expect((await inquiries.get(db, id))?.deliveries.map((d) => d.target)).toEqual([
      "new-partner@example.com",
      "AI Consulting",
    ]);
  });

  it("one refused recipient among two: the other gets the lead once, and the refused one is named", async () => {
    const smtp = await relay();
    smtp.unknownRecipients.add("gone@example.com");
    const server = await serve(
      {
        ...env,
        SMTP_URL: smtp.url,
        CONTACT_ROUTES: JSON.stringify({ none: { to: "sales@example.com, gone@example.com" } }),
      },
      { OUTBOX_RETRY_BASE_MS: 50, OUTBOX_RETRY_MAX_MS: 100 },
    );
    const id = await send(server.url);
    const db = open();
    stops.push(() => db.close());
    // Recorded sent: the outbox holds nothing more to send for it.
    const statuses = async () => (await inquiries.get(db, id))?.deliveries.map((d) => d.status);
    await expect.poll(statuses, { timeout: 10_000 }).toEqual(["sent"]);
    expect(smtp.received).toHaveLength(1);
    const fatal = () =>
      lines(server.output()).filter((l) => l.level === "fatal" && l.inquiryId === id);
    await expect.poll(() => fatal().length).toBe(1);
    const said = fatal();
    expect(String(said[0]?.reason)).toContain("refused by gone@example.com");
  });

  it("a send that outlasts the lease is not sent again by its own worker", async () => {
    const smtp = await relay();
    smtp.answerAfterMs = 1_500;
    const server = await serve({ ...env, SMTP_URL: smtp.url }, { OUTBOX_LEASE_MS: 400 });
    const id = await send(server.url);
    const db = open();
    stops.push(() => db.close());
    // Recorded sent after one attempt: no worker claimed it again while it lasted.
    const delivery = async () => (await inquiries.get(db, id))?.deliveries[0];
    await expect.poll(async () => (await delivery())?.status, { timeout: 10_000 }).toBe("sent");
    expect((await delivery())?.attempts).toBe(1);
    expect(to(smtp, id)).toHaveLength(1);
  });
});

describe("instances with other settings on one PostgreSQL database", () => {
  it("an instance without Slack leaves the Slack deliveries to one that has it: none is failed", async () => {
    const database = await createTestDatabase(inject("pgAdminUrl"), "rolling");
    stops.push(() => database.drop());
    const smtp = await relay();
    const slack = await new Receiver().start("/services/T/B/x");
    stops.push(() => slack.stop());
    const logs: Array<Record<string, unknown>> = [];
    const log = pino({ level: "info" }, { write: (l: string) => logs.push(JSON.parse(l)) });
    const base = {
      DATA_DIR: mkdtempSync(join(tmpdir(), "rolling-")),
      DATABASE_URL: database.url,
      SMTP_URL: smtp.url,
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "1000",
    };
    const instance = async (env: Env) => {
      const config = loadConfig({ ...base, ...env }, { OUTBOX_POLL_MS: 25 });
      const made = await createContactPipeline(config, log, { keys: testKeys() });
      stops.push(() => made.close());
      return made.pipeline;
    };
    const withSlack = await instance({ SLACK_WEBHOOK_URL: slack.url });
    const withoutSlack = await instance({});
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const out = await withSlack.submit({
        body: { name: "Ro", email: "ro@example.org", message: `Lead ${i}` },
        source: "api",
        ip: nextIp(),
      });
      ids.push(out.kind === "stored" ? out.id : "");
    }
    withoutSlack.worker.start();
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(5);
    // One more whole pass of the instance without Slack: it claims nothing it cannot deliver.
    await withoutSlack.worker.pass();
    await withoutSlack.worker.settled();
    const statuses = async () =>
      (await Promise.all(ids.map((id) => inquiries.get(withSlack.db, id)))).flatMap((r) =>
        (r?.deliveries ?? []).filter((d) => d.channel === "slack").map((d) => d.status),
      );
    expect(await statuses()).toEqual(["pending", "pending", "pending", "pending", "pending"]);
    withSlack.worker.start();
    await expect
      .poll(statuses, { timeout: 10_000 })
      .toEqual(["sent", "sent", "sent", "sent", "sent"]);
    expect(slack.received).toHaveLength(5);
    expect(logs.filter((l) => l.level === 60)).toEqual([]);
  });
});

describe("a database that does not answer", () => {
  it("the CLI says it cannot reach it; /metrics reports the storage down and no pending count, not 0", async () => {
    const nowhere = {
      DATA_DIR: mkdtempSync(join(tmpdir(), "down-")),
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    };
    const said = await cli(nowhere, "list");
    expect(said.code).toBe(1);
    expect(said.err).toMatch(/^inquiries: cannot reach the database: PostgreSQL: /);
    expect(said.err).not.toContain("behind this code");
    const server: RunningServer = await serve({
      ...nowhere,
      METRICS_TOKEN: "m".repeat(32),
    });
    const metrics = await (
      await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${"m".repeat(32)}` },
      })
    ).text();
    expect(metrics).toMatch(/^contact_storage_up 0$/m);
    expect(metrics).not.toMatch(/^contact_deliveries_pending\{/m);
    expect(metrics).not.toMatch(/^contact_delivery_oldest_pending_seconds\{/m);
  });

  it("instances on one PostgreSQL database agree on their keys without any secret set: a page from one is posted to the other", async () => {
    const { env, cleanup } = await engineEnv("postgres", "keys");
    stops.push(cleanup);
    const spam = { SPAM_FILTER: "on" };
    const quick = { SPAM_MIN_FILL_MS: 0 };
    const a = await serve({ ...env, ...spam }, quick);
    const b = await serve(
      { ...env, ...spam, DATA_DIR: mkdtempSync(join(tmpdir(), "keys-b-")) },
      quick,
    );
    const html = await (await fetch(`${a.url}/contact`)).text();
    const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(token).toMatch(/^k1\./);
    const res = await fetch(`${b.url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": nextIp(), "x-form-token": token },
      body: JSON.stringify({
        name: "Ada Lovelace",
        email: "ada@example.org",
        message: "Can you help with our network?",
      }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const shown = JSON.parse((await cli(env, "show", id, "--json")).out) as { verdict: string };
    expect(shown.verdict).toBe("clean");
  });
});
