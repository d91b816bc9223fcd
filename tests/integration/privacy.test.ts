import { execFile, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tuning } from "../../server/config.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { writeSetting } from "../../server/contact/storage/settings.ts";
import * as training from "../../server/contact/storage/training.ts";
import { engineEnv } from "../support/engines.ts";
import { freePort } from "../support/ports.ts";
import { Receiver } from "../support/receiver";
import { json, lines, nextIp } from "../support/requests";
import { type RunningServer, startServer } from "../support/server";
import { TestSmtp } from "../support/smtp";

/**
 * The privacy notice's promises, tried as they run: retention by its own schedule in the real
 * server, `forget` from an operator's shell for every place a person's words can be (a send under way
 * too), on SQLite and PostgreSQL, and a start that would send leads to a processor the notice does
 * not name.
 */

const root = new URL("../../", import.meta.url).pathname;
const day = 86_400_000;
const run = promisify(execFile);

describe.each(["sqlite", "postgres"] as const)("the privacy promise on %s", (engine) => {
  let env: Record<string, string>;
  let tuning: Partial<Tuning> = {};
  let dataDir: string;
  let cleanup: () => Promise<void>;
  const stops: Array<() => Promise<void>> = [];
  const open = () => openDatabase({ dataDir, DATABASE_URL: env.DATABASE_URL || undefined });
  const cli = async (...args: string[]) => {
    const r = await run(
      process.execPath,
      ["server/cli.ts", ...args, `--tuning=${JSON.stringify(tuning)}`],
      {
        cwd: root,
        env: { ...process.env, ...env },
      },
    ).catch((e: { stdout: string; stderr: string; code: number }) => e);
    return { out: r.stdout, err: r.stderr };
  };

  beforeEach(async () => {
    ({ env, cleanup } = await engineEnv(engine, "privacy"));
    dataDir = env.DATA_DIR ?? "";
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await cleanup();
  });

  const serve = async (
    more: Record<string, string>,
    knobs: Partial<Tuning> = {},
  ): Promise<RunningServer> => {
    const server = await startServer({ ...env, SPAM_FILTER: "off", ...more }, undefined, {
      OUTBOX_POLL_MS: 50,
      ...knobs,
    });
    stops.push(() => server.stop());
    return server;
  };
  const send = (server: RunningServer, body: Record<string, string>) =>
    fetch(`${server.url}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": nextIp() },
      body: JSON.stringify({ company: "", service: "", ...body }),
    });

  it("retention erases, on its own schedule, every copy past the period: rows, marks, keys, email files, expired rate limits", async () => {
    const db = open();
    await db.migrate();
    const now = Date.now();
    const words = `Old words ${randomUUID()}`;
    const oldId = randomUUID();
    const save = (id: string, receivedAt: number, message: string, key: string) =>
      inquiries.save(db, {
        inquiry: {
          ...{
            name: "Old Timer",
            email: "old@example.org",
            company: "",
            service: "",
            message,
            id,
            receivedAt,
          },
          ...{ page: null, userAgent: null, ipHash: null, source: "api" as const, held: false },
        },
        limits: [{ key: `contact_min:${id}`, points: 5, durationMs: 20 * day }],
        deliveries: [
          {
            id: randomUUID(),
            channel: "email",
            messageId: `<${id}@x>`,
            target: "sales@example.com",
          },
        ],
        idempotency: { key, fingerprint: "f" },
      });
    await save(oldId, now - 400 * day, words, "old-key");
    const recentId = randomUUID();
    await save(recentId, now - 10 * day, "Recent words", "recent-key");
    // Someone took it at once ("I'm on it"): no reminder file of the reply promise beside its email.
    await db.query("UPDATE inquiries SET taken_at = ? WHERE id = ?", [now - 10 * day, recentId]);
    expect(await training.mark(db, oldId, "spam", now - 399 * day)).toBe(true);
    // The old counters expired long ago (a counter is only touched by a submission).
    await db.query("UPDATE rate_limits SET expire = ? WHERE key = ?", [
      now - 399 * day,
      `contact_min:${oldId}`,
    ]);
    // A turn stamped ten years ahead (an instance whose clock ran ahead once) must not stop it.
    await writeSetting(db, "retention_at", String(now + 3650 * day));
    await db.close();
    // The email files the server wrote without a relay: the old lead's, an old alert naming it, a recent one.
    const mail = join(dataDir, "mail");
    mkdirSync(mail, { recursive: true });
    writeFileSync(join(mail, `${oldId}.eml`), `X-Inquiry-Id: ${oldId}\r\n\r\n${words}\r\n`);
    writeFileSync(
      join(mail, "alert-1.eml"),
      `X-Alert: delivery-failed\r\nX-Inquiry-Ids: ${oldId}\r\n\r\nOld Timer\r\n`,
    );
    writeFileSync(join(mail, "alert-2.eml"), "X-Alert: delivery-failed\r\n\r\nan old report\r\n");
    utimesSync(join(mail, "alert-2.eml"), (now - 380 * day) / 1000, (now - 380 * day) / 1000);
    writeFileSync(
      join(mail, `${recentId}.eml`),
      `X-Inquiry-Id: ${recentId}\r\n\r\nRecent words\r\n`,
    );

    const server = await serve({}, { SCHEDULE: ["retention"], RETENTION_INTERVAL_MS: 500 });
    const check = open();
    stops.push(() => check.close());
    await expect
      .poll(async () => (await inquiries.get(check, oldId)) === null, { timeout: 15_000 })
      .toBe(true);
    expect(await inquiries.get(check, recentId)).not.toBeNull();
    expect(await training.list(check)).toEqual([]);
    expect(await inquiries.keyRecord(check, "old-key")).toBeNull();
    expect(await inquiries.keyRecord(check, "recent-key")).not.toBeNull();
    const counters = await check.query<{ key: string }>("SELECT key FROM rate_limits");
    expect(counters.map((r) => r.key)).toEqual([`contact_min:${recentId}`]);
    const deliveries = await check.query<{ id: string }>("SELECT id FROM deliveries");
    expect(deliveries).toHaveLength(1);
    await expect
      .poll(() => readdirSync(mail).sort(), { timeout: 5_000 })
      .toEqual([`${recentId}.eml`]);
    const erasedLine = () =>
      lines(server.output()).find(
        (l) => String(l.msg).startsWith("retention: erased") && l.inquiries,
      );
    await expect.poll(() => erasedLine() !== undefined).toBe(true);
    const said = erasedLine();
    expect(said).toMatchObject({ inquiries: 1, marks: 1, keys: 1, rateLimits: 1, files: 3 });
    if (engine === "sqlite") {
      // Nothing of the erased words stays readable in the database's file or its log.
      for (const file of ["inquiries.sqlite", "inquiries.sqlite-wal"]) {
        const path = join(dataDir, file);
        if (existsSync(path)) expect(readFileSync(path).includes(words), file).toBe(false);
      }
    }
  });

  it("`forget` deletes every copy: the inquiries and their records, the lead's email and the alert that named them", async () => {
    const crm = await new Receiver().start();
    crm.respond = () => ({ status: 400 }); // refuses the lead for good: an alert names the inquiry
    stops.push(() => crm.stop());
    const server = await serve({ WEBHOOK_URL: crm.url, WEBHOOK_SECRET: `whsec_${"A".repeat(32)}` });
    const lead = (await (
      await send(server, { name: "Ada Lovelace", email: "ada@example.org", message: "A lead." })
    ).json()) as { id: string };
    const heldOne = await send(server, {
      name: "Ada Lovelace",
      email: "Ada@Example.org",
      message: "Held.",
      website: "x",
    });
    expect(heldOne.status).toBe(201);
    const other = (await (
      await send(server, { name: "Bo", email: "bo@example.org", message: "Someone else." })
    ).json()) as { id: string };
    const mail = join(dataDir, "mail");
    const files = () => (existsSync(mail) ? readdirSync(mail) : []);
    const naming = (text: string) =>
      files().filter((f) => readFileSync(join(mail, f), "utf8").includes(text));
    // The lead's email and its failure alert: two files name Ada's inquiries.
    await expect.poll(() => naming(lead.id).length, { timeout: 15_000 }).toBe(2);
    expect((await cli("spam", lead.id)).out).toContain("Marked");

    const forgotten = await cli("forget", "--email", "ＡＤＡ@example.org"); // full-width letters, other case
    expect(forgotten.out).toContain("2 inquiries");
    expect(forgotten.out).toContain("1 filter marks, 2 email files.");
    expect(forgotten.out).not.toContain("already being sent");
    expect(naming(lead.id)).toEqual([]);
    expect(naming("Ada")).toEqual([]);
    expect(naming(other.id)).toHaveLength(2); // someone else's lead and alert stay
    const db = open();
    stops.push(() => db.close());
    expect(await inquiries.byEmail(db, "ada@example.org")).toEqual([]);
    expect(await training.list(db)).toEqual([]);
    expect(await inquiries.get(db, other.id)).not.toBeNull();
  });

  it("`correct` changes a person's details in every inquiry they sent, by the form's rules", async () => {
    const server = await serve({});
    for (const message of ["First.", "Second."]) {
      expect(
        (await send(server, { name: "Ada Byron", email: "Ada@Example.org", message })).status,
      ).toBe(201);
    }
    const other = (await (
      await send(server, { name: "Bo", email: "bo@example.org", message: "Hi." })
    ).json()) as {
      id: string;
    };
    const refused = await cli(
      "correct",
      "--email",
      "ada@example.org",
      "--new-email",
      "not an address",
    );
    expect(refused.err).toContain("correct: email: Please enter a valid email address.");
    const corrected = await cli(
      ...[
        "correct",
        "--email",
        "ＡＤＡ@example.org",
        "--name",
        "Ada King",
        "--new-email",
        "ada.king@example.org",
      ],
    );
    expect(corrected.out).toContain("Corrected name, email in 2 inquiries from");
    const db = open();
    stops.push(() => db.close());
    expect(await inquiries.byEmail(db, "ada@example.org")).toEqual([]);
    const now = await inquiries.byEmail(db, "ada.king@example.org");
    expect(now.map((r) => [r.name, r.email])).toEqual([
      ["Ada King", "ada.king@example.org"],
      ["Ada King", "ada.king@example.org"],
    ]);
    expect((await inquiries.get(db, other.id))?.name).toBe("Bo");
    expect((await cli("correct", "--email", "nobody@example.org", "--company", "X")).err).toContain(
      "No inquiry from",
    );
  });

  it("backups, exports and restore leftovers in DATA_DIR go when the backup period ends, on the server's schedule", async () => {
    const { backupDays } = (await import("../../app/config/site.ts")).site.privacy;
    const now = Date.now();
    // Both ages on the clock this process shares with the server: the file system's may be another (faketime).
    const place = (name: string, aged: boolean) => {
      const path = join(dataDir, name);
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, "a copy of the leads");
      const at = (aged ? now - (backupDays + 1) * day : now) / 1000;
      utimesSync(path, at, at);
    };
    place("backups/leads-old.sqlite", true);
    place("backups/inquiries-old.dump", true);
    place("exports/leads-old.csv", true);
    place("inquiries.sqlite.replaced-2026-01-01T00-00-00-000Z", true);
    place("backups/leads-new.sqlite", false);
    place("exports/leads-new.csv", false);
    place("mail-notes.txt", true); // not a copy: left alone
    const server = await serve({}, { SCHEDULE: ["retention"], RETENTION_INTERVAL_MS: 500 });
    const left = () =>
      ["backups", "exports"]
        .flatMap((f) => readdirSync(join(dataDir, f)).map((n) => `${f}/${n}`))
        .sort();
    await expect
      .poll(left, { timeout: 10_000 })
      .toEqual(["backups/leads-new.sqlite", "exports/leads-new.csv"]);
    expect(existsSync(join(dataDir, "inquiries.sqlite.replaced-2026-01-01T00-00-00-000Z"))).toBe(
      false,
    );
    expect(existsSync(join(dataDir, "mail-notes.txt"))).toBe(true);
    const retention = () =>
      lines(server.output()).find(
        (l) => l.msg === "retention: erased copies past the backup period",
      );
    // Logged after the last removal: on a busy machine it may not have arrived when the files are gone.
    await expect.poll(retention, { timeout: 10_000 }).toBeDefined();
    const said = retention();
    expect(said).toMatchObject({ backupDays, level: "info" });
    expect(((said?.files ?? []) as string[]).sort()).toEqual([
      "backups/inquiries-old.dump",
      "backups/leads-old.sqlite",
      "exports/leads-old.csv",
      "inquiries.sqlite.replaced-2026-01-01T00-00-00-000Z",
    ]);
  });

  it("`forget` during a send waits for it, so nothing goes out after it reported; past its wait it says so plainly", async () => {
    const relay = await new TestSmtp().start();
    stops.push(() => relay.stop());
    relay.answerAfterMs = 2_000;
    const server = await serve({ SMTP_URL: relay.url });
    const db = open();
    stops.push(() => db.close());
    const sending = async (id: string) =>
      (await inquiries.get(db, id))?.deliveries.some((d) => d.status === "sending") === true;

    const first = (await (
      await send(server, { name: "Cy", email: "cy@example.org", message: "One." })
    ).json()) as {
      id: string;
    };
    await expect.poll(() => sending(first.id), { timeout: 10_000 }).toBe(true);
    const forgotten = await cli("forget", "--email", "cy@example.org");
    // When it answers, the relay already has the message, and nothing is left to send.
    expect(relay.received.map((m) => m.mail.headers.get("x-inquiry-id"))).toEqual([first.id]);
    expect(forgotten.out).toContain("1 inquiry");
    expect(forgotten.out).not.toContain("already being sent");
    expect(await inquiries.get(db, first.id)).toBeNull();

    // A send that outlasts the wait: said plainly, never reported as recalled.
    // Longer than the CLI takes to start and wait its 500 ms on a machine whose cores are all busy.
    relay.answerAfterMs = 10_000;
    const second = (await (
      await send(server, { name: "Di", email: "di@example.org", message: "Two." })
    ).json()) as {
      id: string;
    };
    await expect.poll(() => sending(second.id), { timeout: 10_000 }).toBe(true);
    tuning = { OUTBOX_LEASE_MS: 500 };
    const late = await cli("forget", "--email", "di@example.org");
    expect(late.out).toContain("1 delivery was already being sent and did not end in time");
    expect(await inquiries.get(db, second.id)).toBeNull();
  });
});

describe("the privacy notice names every processor the server sends leads to", () => {
  /** server.js started with `env`, and `importing` loaded first; its fatal lines and whether it started. */
  const start = async (env: Record<string, string>, importing: string[] = []) => {
    const run = spawnSync(process.execPath, [...importing, "server.js"], {
      cwd: root,
      env: {
        ...process.env,
        HOST: "127.0.0.1",
        // A free port: were the check gone, it would start there, not on another test's server.
        PORT: String(await freePort()),
        DATA_DIR: mkdtempSync(join(tmpdir(), "notice-")),
        ...env,
      },
      encoding: "utf8",
      timeout: 10_000,
      killSignal: "SIGKILL",
    });
    return {
      status: run.status,
      fatal: lines(run.stdout).filter((l) => l.level === "fatal"),
      out: run.stdout,
    };
  };

  it("refuses to start, in one line, with a channel whose processor the notice does not name", async () => {
    // The notice as a company might leave it: Slack taken out of site.privacy.processors.
    const site = new URL("../../app/config/site.ts", import.meta.url).href;
    const withoutSlack = `data:text/javascript,import { site } from ${JSON.stringify(site)}; delete site.privacy.processors.slack;`;
    const run = await start({ SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T/B/x" }, [
      "--import",
      withoutSlack,
    ]);
    expect(run.status).toBe(1);
    expect(run.fatal).toHaveLength(1);
    expect(run.fatal[0]?.msg).toMatch(
      /^The privacy notice does not name who receives leads through slack: add privacy\.processors\.slack/,
    );
    expect(run.out).not.toContain("server started");
  });

  it("refuses to start, in one line naming the host and where to name it, with a channel on a host its processor does not use", async () => {
    // A Discord URL as the Slack webhook: a channel the notice names, a provider it does not.
    const run = await start({ SLACK_WEBHOOK_URL: "https://discord.com/api/webhooks/1/x/slack" });
    expect(run.status).toBe(1);
    expect(run.fatal).toHaveLength(1);
    expect(run.fatal[0]?.msg).toMatch(
      /^SLACK_WEBHOOK_URL sends leads to discord\.com, a host the privacy notice does not name for slack .*privacy\.processors\.slack\.hosts in app\/config\/site\.ts/,
    );
    expect(run.out).not.toContain("server started");
  });

  it("says loudly at start, in one line, which contact details for requests are still placeholders", async () => {
    const server = await startServer({ SPAM_FILTER: "off" });
    try {
      const said = lines(server.output()).filter((l) =>
        String(l.msg).startsWith("PLACEHOLDER CONTACT DETAILS"),
      );
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({
        level: "warn",
        placeholders: [
          "email hello@example.com",
          "securityContact security@example.com",
          "phone (307) 555-0142",
        ],
      });
    } finally {
      await server.stop();
    }
  });
});
