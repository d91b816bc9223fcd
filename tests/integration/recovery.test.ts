import { execFile, execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import type { Tuning } from "../../server/config.ts";
import { inquiriesCli } from "../support/cli.ts";
import { freePort } from "../support/ports.ts";
import { json, lines, nextIp } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { TestSmtp } from "../support/smtp.ts";

/**
 * Recovery as an operator in trouble runs it, through the real CLI and a real server: a restore on a
 * running server, from the wrong file, from a newer or an older release; the links sent before a
 * recovery; who may read what holds a lead; and `forget` reaching every copy the data folder holds.
 */

const root = new URL("../../", import.meta.url).pathname;
const run = promisify(execFile);
type Env = Record<string, string>;

/** The CLI on SQLite unless the test names a database. */
const cli = (env: Env, ...args: string[]) => inquiriesCli({ DATABASE_URL: "", ...env }, ...args);
const stops: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
const serve = async (env: Env, port?: number, tuning: Partial<Tuning> = {}) => {
  const server = await startServer({ SPAM_FILTER: "off", DATABASE_URL: "", ...env }, port, {
    OUTBOX_POLL_MS: 50,
    ...tuning,
  });
  stops.push(() => server.stop());
  return server;
};
const send = async (server: RunningServer, email = "ada@example.org") => {
  const res = await fetch(`${server.url}/functions/v1/send-email`, {
    method: "POST",
    headers: { ...json, "x-forwarded-for": nextIp() },
    body: JSON.stringify({ name: "Ada Lovelace", email, message: `Lead ${randomUUID()}` }),
  });
  expect(res.status).toBe(201);
  return String(((await res.json()) as { id: string }).id);
};
const storedIds = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("SELECT id FROM inquiries").all() as Array<{ id: string }>)
      .map((r) => r.id)
      .sort();
  } finally {
    db.close();
  }
};
const newDir = (name: string) => mkdtempSync(join(tmpdir(), `${name}-`));

/**
 * What the image holds (Dockerfile: the CLI's code and the production packages) and this Node, in a
 * folder another user may enter: the clone may sit where only root may (under /root, mode 0700).
 * Hard links on the clone's filesystem, copies on another.
 */
function imageFolder(): { dir: string; node: string } {
  const dir = newDir("image");
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const production = Object.entries(lock.packages)
    .filter(([path, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !p.dev)
    .map(([path]) => path);
  const node = relative(root, process.execPath);
  const ownNode = !node.startsWith("..");
  const link = statSync(root).dev === statSync(dir).dev ? "-al" : "-a";
  for (const path of ["package.json", "app", "server", "db", ...production]) {
    // The lock names every platform's optional package; this one's are installed.
    if (!existsSync(join(root, path))) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    execFileSync("cp", [link, join(root, path), join(dir, path)]);
  }
  if (ownNode) {
    mkdirSync(dirname(join(dir, node)), { recursive: true });
    execFileSync("cp", [link, process.execPath, join(dir, node)]);
  }
  return { dir, node: ownNode ? join(dir, node) : process.execPath };
}

describe("one server per data folder", () => {
  it("a second server on a data folder in use refuses to start in one line; once the first is killed, it starts", async () => {
    const dataDir = newDir("in-use");
    const first = await serve({ DATA_DIR: dataDir });
    const refused = await serve({ DATA_DIR: dataDir }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/server exited \(1\)/);
    const fatal = lines(refused.replace(/^server exited \(1\):\n/, "")).filter(
      (l) => l.level === "fatal",
    );
    expect(fatal.map((l) => l.msg)).toEqual([
      `another server uses ${dataDir} (process ${first.child.pid} on ${hostname()}): one server per data folder`,
    ]);
    // The kernel drops the lock with the process, however it ends: no mark to wait out.
    const gone = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGKILL");
    await gone;
    const second = await serve({ DATA_DIR: dataDir });
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
  });
});

describe("restore", () => {
  it("refuses while a server uses the data folder, naming it; once it is stopped, nothing acknowledged is lost", async () => {
    const dataDir = newDir("restore-running");
    const env = { DATA_DIR: dataDir };
    const server = await serve(env);
    const before = [await send(server), await send(server)];
    const backup = join(newDir("backups"), "leads.sqlite");
    expect((await cli(env, "backup", backup)).code).toBe(0);
    const after = await send(server);
    const refused = await cli(env, "restore", backup, "--force");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`A server uses ${dataDir}: process ${server.child.pid}`);
    expect(refused.err).toContain(`kill -TERM ${server.child.pid}`);
    expect(refused.err).toContain("Nothing was changed");
    // The server goes on with the database it had: the lead acknowledged after the backup is there.
    expect(storedIds(join(dataDir, "inquiries.sqlite"))).toEqual([...before, after].sort());
    expect(readdirSync(dataDir).filter((f) => f.includes("replaced"))).toEqual([]);
    await server.stop();
    const restored = await cli(env, "restore", backup, "--force");
    expect(restored.code).toBe(0);
    // What the replaced database held, the lead acknowledged after the backup included, is kept whole in one file.
    const kept = readdirSync(dataDir).filter((f) => f.includes(".replaced-"));
    expect(kept).toHaveLength(1);
    expect(storedIds(join(dataDir, kept[0] ?? ""))).toEqual([...before, after].sort());
    expect(storedIds(join(dataDir, "inquiries.sqlite"))).toEqual([...before].sort());
  });

  it("a backup its user may not read (root's copy, mode 0600): says whose it is and who must read it", async () => {
    const dataDir = newDir("restore-unreadable");
    const env = { DATA_DIR: dataDir };
    const server = await serve(env);
    await send(server);
    const dir = newDir("backups-of-root");
    const backup = join(dir, "leads.sqlite");
    expect((await cli(env, "backup", backup)).code).toBe(0);
    await server.stop();
    // As the container's recipe runs it: the image's user (uid 1000), the file root's with mode 0600.
    chmodSync(dir, 0o755);
    chmodSync(backup, 0o600);
    const newDisk = newDir("restore-new-disk");
    chownSync(newDisk, 1000, 1000);
    const image = imageFolder();
    const asNode = () =>
      run(
        "setpriv",
        [
          "--reuid=1000",
          "--regid=1000",
          "--clear-groups",
          image.node,
          "server/cli.ts",
          "restore",
          backup,
        ],
        {
          cwd: image.dir,
          env: { ...process.env, DATA_DIR: newDisk, DATABASE_URL: "" },
        },
      ).then(
        () => ({ code: 0, err: "" }),
        (e: { code: number; stderr: string }) => ({ code: e.code, err: e.stderr }),
      );
    const refused = await asNode();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${backup} cannot be restored: this command runs as uid 1000`);
    expect(refused.err).toContain("it belongs to uid 0, mode 0600");
    expect(refused.err).toContain("chown 1000 FILE");
    expect(refused.err).toContain("Nothing was changed");
    // Done as it says: the file given to uid 1000, still 0600, restores.
    chownSync(backup, 1000, 1000);
    expect(await asNode()).toEqual({ code: 0, err: "" });
    expect(storedIds(join(newDisk, "inquiries.sqlite"))).toHaveLength(1);
  });

  it("checks the file before replacing anything: not SQLite, another application's, damaged, a newer release's", async () => {
    const dataDir = newDir("restore-checks");
    const env = { DATA_DIR: dataDir };
    const server = await serve(env);
    const id = await send(server);
    const dir = newDir("candidates");
    const good = join(dir, "good.sqlite");
    expect((await cli(env, "backup", good)).code).toBe(0);
    await server.stop();

    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a database at all, just some text that is long enough");
    const foreign = join(dir, "foreign.sqlite");
    const other = new DatabaseSync(foreign);
    other.exec("CREATE TABLE inquiries (id TEXT); INSERT INTO inquiries VALUES ('x');");
    other.close();
    const newer = join(dir, "newer.sqlite");
    copyFileSync(good, newer);
    const n = new DatabaseSync(newer);
    n.exec(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_from_the_future.sql', 0)",
    );
    n.close();
    const damaged = join(dir, "damaged.sqlite");
    const bytes = readFileSync(good);
    // Keep the header, scribble over the pages after the first.
    bytes.fill(0x5a, 4096, Math.min(bytes.length, 4096 * 6));
    writeFileSync(damaged, bytes);

    const cases: Array<[string, string, RegExp]> = [
      ["text", text, /it is not an SQLite database/],
      ["foreign", foreign, /not a backup of this application's inquiries database/],
      ["newer", newer, /newer release \(schema version 999; this release knows up to \d+\)/],
      ["damaged", damaged, /damaged|cannot be read/],
      ["a folder", dir, /cannot be read as a database \(EISDIR/],
    ];
    for (const [what, file, said] of cases) {
      const r = await cli(env, "restore", file, "--force");
      expect(r.code, what).toBe(1);
      expect(r.err, what).toMatch(said);
      expect(r.err, what).toContain("Nothing was changed");
      // Nothing replaced: the database there is the one that was.
      expect(storedIds(join(dataDir, "inquiries.sqlite")), what).toEqual([id]);
      expect(
        readdirSync(dataDir).filter((f) => f.includes("replaced") || f.includes("restoring")),
        what,
      ).toEqual([]);
    }
  });
});

describe("the links sent before a recovery", () => {
  it("still work after the data folder is lost and its backup restored", async () => {
    const smtp = await new TestSmtp().start();
    stops.push(() => smtp.stop());
    const dataDir = newDir("links-recovery");
    const port = await freePort();
    const env = { DATA_DIR: dataDir, SMTP_URL: smtp.url, SITE_URL: `http://127.0.0.1:${port}` };
    const server = await serve(env, port);
    const id = await send(server);
    const mail = await expect
      .poll(() => smtp.received.find((m) => m.mail.headers.get("x-inquiry-id") === id), {
        timeout: 10_000,
      })
      .toBeTruthy()
      .then(() => smtp.received.find((m) => m.mail.headers.get("x-inquiry-id") === id));
    const link = /https?:\/\/\S+\/lead\?t=[\w.%-]+/.exec(String(mail?.mail.text))?.[0] ?? "";
    expect(link).not.toBe("");
    const backup = join(newDir("links-backup"), "leads.sqlite");
    expect((await cli(env, "backup", backup)).code).toBe(0);
    await server.stop();
    // The disk dies: a new, empty data folder, and the backup restored into it.
    const fresh = newDir("links-fresh");
    expect((await cli({ DATA_DIR: fresh }, "restore", backup)).code).toBe(0);
    await serve({ ...env, DATA_DIR: fresh }, port);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Ada Lovelace");
  });
});

describe("PostgreSQL: the dump and restore recipe of docs/deployment.md, as written, with the application's own role", () => {
  it("pg_dump, createdb --owner, pg_restore --no-owner: every lead back, and the links sent before still work", async () => {
    const bin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
    const admin = new pg.Client({ connectionString: inject("pgAdminUrl") });
    await admin.connect();
    const suffix = randomUUID().replace(/-/g, "").slice(0, 12);
    const role = `teton_${suffix}`;
    const [source, restored] = [`leads_${suffix}`, `restored_${suffix}`];
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app-password'`);
    await admin.query(`CREATE DATABASE ${source} OWNER ${role}`);
    stops.push(async () => {
      for (const db of [source, restored])
        await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    });
    const url = (db: string) => {
      const u = new URL(inject("pgAdminUrl"));
      u.username = role;
      u.password = "app-password";
      u.pathname = `/${db}`;
      return u.toString();
    };
    const smtp = await new TestSmtp().start();
    stops.push(() => smtp.stop());
    const port = await freePort();
    const env = {
      DATA_DIR: newDir("pg-recipe"),
      SMTP_URL: smtp.url,
      SITE_URL: `http://127.0.0.1:${port}`,
    };
    const server = await serve({ ...env, DATABASE_URL: url(source) }, port);
    const ids = [await send(server), await send(server)];
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(2);
    const link =
      /https?:\/\/\S+\/lead\?t=[\w.%-]+/.exec(String(smtp.received[0]?.mail.text))?.[0] ?? "";
    expect(link).not.toBe("");
    const dump = join(newDir("pg-dump"), "inquiries.dump");
    const adminUrl = new URL(inject("pgAdminUrl"));
    const tool = (name: string, args: string[]) => run(join(bin, name), args);
    await tool("pg_dump", ["--format=custom", `--file=${dump}`, url(source)]);
    await server.stop();
    // As the docs say: an empty database the application's role owns, then pg_restore as that role.
    await tool("createdb", [
      "-h",
      adminUrl.hostname,
      "-p",
      adminUrl.port,
      "-U",
      "postgres",
      `--owner=${role}`,
      restored,
    ]);
    await tool("pg_restore", ["--no-owner", `--dbname=${url(restored)}`, dump]);
    const again = await serve({ ...env, DATABASE_URL: url(restored) }, port);
    const listed = JSON.parse(
      (await cli({ ...env, DATABASE_URL: url(restored) }, "list", "--json")).out,
    ) as Array<{
      id: string;
    }>;
    expect(listed.map((r) => r.id).sort()).toEqual([...ids].sort());
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect((await fetch(`${again.url}/readyz`)).status).toBe(200);
  });
});

describe("who may read what holds a lead", () => {
  it("everything the server and the CLI write is their owner's alone under umask 022, a backup too", async () => {
    const dataDir = join(newDir("modes"), "data");
    const env = { DATA_DIR: dataDir };
    const previous = process.umask(0o022);
    try {
      const server = await serve(env);
      const id = await send(server);
      await expect
        .poll(() => readdirSync(join(dataDir, "mail")).includes(`${id}.eml`), { timeout: 10_000 })
        .toBe(true);
      const backup = join(newDir("modes-backup"), "leads.sqlite");
      expect((await cli(env, "backup", backup)).code).toBe(0);
      const mode = (p: string) => statSync(p).mode & 0o777;
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(join(dataDir, "mail"))).toBe(0o700);
      for (const f of [
        "inquiries.sqlite",
        "inquiries.sqlite-wal",
        "inquiries.sqlite-shm",
        `mail/${id}.eml`,
      ])
        expect(mode(join(dataDir, f)), f).toBe(0o600);
      expect(mode(backup)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});

describe("forget", () => {
  it("erases in the live database and says the copies go within the backup period, which the server keeps (erasure.ts)", async () => {
    const dataDir = newDir("forget-copies");
    const env = { DATA_DIR: dataDir };
    const server = await serve(env);
    const person = "Grace.Hopper@Example.org";
    await send(server, person);
    const other = await send(server);
    mkdirSync(join(dataDir, "backups"));
    const backup = join(dataDir, "backups", "monday.sqlite");
    expect((await cli(env, "backup", backup)).code).toBe(0);
    const holds = (file: string) => {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return (
          db
            .prepare("SELECT COUNT(*) AS n FROM inquiries WHERE LOWER(email) = ?")
            .get(person.toLowerCase()) as {
            n: number;
          }
        ).n;
      } finally {
        db.close();
      }
    };
    const forgot = await cli(env, "forget", "--email", person.toUpperCase());
    expect(forgot.code).toBe(0);
    expect(forgot.out).toContain(
      `Still in the copies (backups, exports, a database a restore replaced, a Litestream replica's older snapshots): they are deleted within ${site.privacy.backupDays} days`,
    );
    expect(holds(join(dataDir, "inquiries.sqlite"))).toBe(0);
    expect(storedIds(join(dataDir, "inquiries.sqlite"))).toEqual([other]);
    // The copy is not opened: it goes whole after backupDays.
    expect(holds(backup)).toBe(1);
  });
});

describe("the keys, on the server's own schedule", () => {
  it("a rotation by the CLI signs the next links with the new key while the old links work; last month's address key and a key past its links' life are deleted", async () => {
    const smtp = await new TestSmtp().start();
    stops.push(() => smtp.stop());
    const port = await freePort();
    const dataDir = newDir("keys-schedule");
    // Housekeeping checks every second here (it checks at most every minute by default).
    const env = {
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      SITE_URL: `http://127.0.0.1:${port}`,
    };
    const server = await serve(env, port, { RETENTION_INTERVAL_MS: 1_000 });
    const linkOf = async (id: string) => {
      await expect
        .poll(() => smtp.received.some((m) => m.mail.headers.get("x-inquiry-id") === id), {
          timeout: 10_000,
        })
        .toBe(true);
      const mail = smtp.received.find((m) => m.mail.headers.get("x-inquiry-id") === id);
      return /https?:\/\/\S+\/lead\?t=[\w.%-]+/.exec(String(mail?.mail.text))?.[0] ?? "";
    };
    const before = await linkOf(await send(server));
    expect(new URL(before).searchParams.get("t")).toMatch(/\.k1\.[\w-]+$/);
    // What an instance finds when a month has passed, and a link key whose links have all expired.
    // Waiting its turn as the server's own connections do: a busy machine catches the server mid-write.
    const db = new DatabaseSync(join(dataDir, "inquiries.sqlite"), { timeout: 10_000 });
    db.exec(`INSERT INTO secret_keys (purpose, id, secret, created_at, retired_at) VALUES
      ('address', '2020-01', '${"a".repeat(64)}', 0, NULL), ('links', 'k0', '${"b".repeat(64)}', 0, 1)`);
    db.close();
    const rotated = await cli(env, "keys", "rotate", "links");
    expect(rotated.out).toContain("A new links key (k2) signs from now on");
    const keys = async () =>
      (
        JSON.parse((await cli(env, "keys", "--json")).out) as Array<{
          purpose: string;
          id: string;
          retired: string;
        }>
      )
        .map((k) => `${k.purpose}:${k.id}${k.retired ? " retired" : ""}`)
        .sort();
    await expect.poll(keys, { timeout: 10_000 }).not.toContain("address:2020-01");
    expect(await keys()).not.toContain("links:k0");
    expect(await keys()).toEqual(
      expect.arrayContaining(["links:k1 retired", "links:k2", "form:k1"]),
    );
    // The turn that deleted them read the ring again: the next lead's links are signed with k2.
    const after = await linkOf(await send(server));
    expect(new URL(after).searchParams.get("t")).toMatch(/\.k2\.[\w-]+$/);
    for (const link of [before, after]) expect((await fetch(link)).status, link).toBe(200);
    // A link signed with k0, deleted above: a real link whose key was rotated out, said as such.
    const inquiry = new URL(before).searchParams.get("t")?.split(".")[0] ?? "";
    const payload = `${inquiry}.spam.${Math.ceil((Date.now() + 86_400_000) / 1000).toString(36)}.k0`;
    const sig = createHmac("sha256", Buffer.from("b".repeat(64), "hex"))
      .update(payload)
      .digest("base64url");
    const retired = await fetch(`${server.url}/lead?t=${payload}.${sig}`);
    expect(retired.status).toBe(410);
    expect(await retired.text()).toContain("key was replaced");
  });
});
