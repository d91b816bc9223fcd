import { type ChildProcess, execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pgClient from "pg";
import { chromium } from "playwright-core";
import YAML from "yaml";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { chromiumArgs } from "../playwright.config.ts";
import type { Tuning } from "../server/config.ts";
import { freePort } from "../tests/support/ports.ts";
import { startPostgres } from "../tests/support/postgres.ts";
import { TestSmtp } from "../tests/support/smtp.ts";

/**
 * The container image, tried as an operator would (`npm run test:deploy`): build the Dockerfile on
 * a stand-in for node:24-bookworm-slim (deploy/stand-in-base.sh; no registry is reachable here),
 * run it with SQLite (pages, a form post, its .eml in the volume, a clean stop on SIGTERM), then
 * two containers on one PostgreSQL server with a real SMTP server: a few hundred inquiries, one
 * container killed mid-run, and every acknowledged inquiry delivered once.
 */

const root = new URL("../", import.meta.url).pathname;
const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const IMAGE = "localhost/teton-site:test";
const PODMAN = ["--runtime", "runc", "--cgroup-manager=cgroupfs"];
const ULIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const podman = (...args: string[]) =>
  execFileSync("podman", [...PODMAN, ...args], { encoding: "utf8" }).trim();

const DOCS = readFileSync(join(root, "docs/deployment.md"), "utf8");

/** A shell recipe of docs/deployment.md as written: the block after `<!-- recipe: NAME -->`. */
function recipe(name: string): string {
  const block = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(
    DOCS,
  )?.[1];
  if (!block) throw new Error(`docs/deployment.md has no recipe "${name}"`);
  return block;
}

/** A shell function a recipe defines (`NAME() { … }`), for a later recipe run in another shell. */
function shellFunction(text: string, name: string): string {
  const body = new RegExp(`^${name}\\(\\) \\{[\\s\\S]*?^\\}`, "m").exec(text)?.[0];
  if (!body) throw new Error(`no function ${name} in:\n${text}`);
  return body;
}

/**
 * This machine's podman settings (runc, cgroupfs, the ulimits, the host's network) as a
 * containers.conf, so that the recipes run with their own words.
 */
const CONTAINERS_CONF = join(mkdtempSync(join(tmpdir(), "deploy-conf-")), "containers.conf");
writeFileSync(
  CONTAINERS_CONF,
  `[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\nnetns = "host"\n\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n`,
);

/**
 * What `npm run build` keeps between builds (photo variants and social cards under node_modules/.cache/,
 * each keyed by its inputs), lent to the image builds' RUN steps: an image build re-encodes nothing the
 * host's build (npm test) made. The main build takes them as -v, the docs' build recipe from this conf.
 */
const BUILD_CACHES = ["photos", "social"].map((name) => {
  const host = join(root, "node_modules/.cache", name);
  mkdirSync(host, { recursive: true });
  return `${host}:/app/node_modules/.cache/${name}`;
});
const BUILD_CONF = join(mkdtempSync(join(tmpdir(), "deploy-conf-")), "containers.conf");
writeFileSync(
  BUILD_CONF,
  readFileSync(CONTAINERS_CONF, "utf8").replace(
    "[containers]\n",
    `[containers]\nvolumes = ${JSON.stringify(BUILD_CACHES)}\n`,
  ),
);

/** Shell text run by bash (-eu, pipefail), as an operator's shell runs a recipe; its output. */
function shell(
  script: string,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      {
        cwd: opts.cwd ?? root,
        env: { ...process.env, CONTAINERS_CONF, ...opts.env },
        maxBuffer: 1 << 24,
      },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** The example's ports (3000, 3001, 3002: instance N on 300N) moved to this test's `base`, base+1… */
const atPorts = (text: string, base: number) =>
  text.replace(/\b300(\d)\b/g, (_m, n: string) => String(base + Number(n)));

/** A port with the next `n - 1` free too: instance N on base+N, as the recipes number them. */
async function freeRun(n: number): Promise<number> {
  const { createServer } = await import("node:net");
  const free = (p: number) =>
    new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once("error", () => resolve(false));
      srv.listen(p, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
  for (;;) {
    const base = await freePort();
    const rest = await Promise.all(Array.from({ length: n - 1 }, (_, i) => free(base + i + 1)));
    if (base + n < 65_536 && rest.every(Boolean)) return base;
  }
}

function available(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

async function waitReady(url: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${url} did not become ready`);
}

function run(
  name: string,
  port: number,
  env: Record<string, string>,
  volume?: string,
  more: string[] = [],
  tuning: Partial<Tuning> = {},
): string {
  spawnSync("podman", [...PODMAN, "rm", "-f", "-v", name]);
  const envArgs = Object.entries({ PORT: String(port), HOST: "127.0.0.1", ...env }).flatMap(
    ([k, v]) => ["-e", `${k}=${v}`],
  );
  return podman(
    "run",
    "-d",
    "--name",
    name,
    "--network",
    "host",
    ...ULIMITS,
    ...envArgs,
    ...(volume ? ["-v", `${volume}:/data`] : []),
    ...more,
    IMAGE,
    ...(Object.keys(tuning).length > 0
      ? ["sh", "deploy/start.sh", `--tuning=${JSON.stringify(tuning)}`]
      : []),
  );
}

const results: Array<[string, string]> = [];
const check = (what: string, ok: boolean, detail = "") => {
  results.push([ok ? "ok" : "FAILED", `${what}${detail ? ` (${detail})` : ""}`]);
  if (!ok) process.exitCode = 1;
};

/** `npm run test:deploy -- sqlite proxy`: only those parts (releases, sqlite, litestream, postgres, proxy); all by default. */
const parts = process.argv.slice(2);
const wanted = (part: string) => parts.length === 0 || parts.includes(part);

async function main() {
  if (!available("podman") || !available("debootstrap")) {
    console.log(
      "test:deploy skipped: podman and debootstrap are needed (apt-get install podman debootstrap runc).",
    );
    return;
  }
  if (wanted("releases")) await outsideContainers();
  if (!["sqlite", "litestream", "postgres", "proxy"].some(wanted)) return report();
  execFileSync("bash", [join(root, "deploy/stand-in-base.sh")], { stdio: "inherit" });
  const t0 = Date.now();
  execFileSync(
    "podman",
    [
      ...PODMAN,
      "build",
      "--network",
      "host",
      ...ULIMITS,
      ...BUILD_CACHES.flatMap((volume) => ["-v", volume]),
      "-t",
      IMAGE,
      "--build-arg",
      "SITE_URL=https://www.example.com",
      root,
    ],
    { stdio: "inherit" },
  );
  // Also as docs/deployment.md's recipes name it.
  podman("tag", IMAGE, "localhost/teton-site:latest");
  const size = podman("image", "inspect", IMAGE, "--format", "{{.Size}}");
  check(
    "image builds",
    true,
    `${Math.round((Date.now() - t0) / 1000)} s, ${(Number(size) / 1e6).toFixed(0)} MB`,
  );

  if (wanted("sqlite")) {
    // One container with the embedded SQLite default, named and given its volume as the docs' recipes
    // name them, its settings from .env.example handed whole (--env-file): its DATA_DIR is the volume.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const cli = (...args: string[]) => ["node", "server/cli.ts", ...args];
    const fromEmail = (file: string) =>
      /https:\/\/www\.example\.com(\/lead\?t=[\w.%-]+)/.exec(
        readFileSync(file, "utf8")
          .replace(/=\r?\n/g, "")
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) =>
            String.fromCharCode(Number.parseInt(hex, 16)),
          ),
      )?.[1];
    const removeVolume = () => spawnSync("podman", [...PODMAN, "volume", "rm", "-f", "teton-data"]);
    spawnSync("podman", [...PODMAN, "rm", "-f", "-v", "teton"]);
    removeVolume();
    const sqliteEnv = { SPAM_FILTER: "off" };
    run("teton", port, sqliteEnv, "teton-data", ["--env-file", join(root, ".env.example")]);
    try {
      const data = podman("volume", "inspect", "teton-data", "--format", "{{.Mountpoint}}");
      await waitReady(url);
      for (const path of ["/", "/services", "/blog", "/contact", "/imprint"]) {
        check(`GET ${path}`, (await fetch(`${url}${path}`)).status === 200);
      }
      const post = async (name: string) => {
        const page = await (await fetch(`${url}/contact`)).text();
        const token = /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
        return fetch(`${url}/contact`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            name,
            email: "visitor@example.org",
            message: `Hello from ${name}.`,
            form_token: token,
          }),
        });
      };
      const emailsIn = async (n: number) => {
        let emails: string[] = [];
        for (let i = 0; i < 40 && emails.length < n; i++) {
          await sleep(250);
          try {
            // The leads' emails: a fresh database on a business day also sends the morning digest there.
            emails = readdirSync(join(data, "mail")).filter(
              (f) => f.endsWith(".eml") && !f.startsWith("digest-"),
            );
          } catch {}
        }
        return emails;
      };
      check(
        "the form without JavaScript answers 303",
        (await post("Container Visitor")).status === 303,
      );
      const emails = await emailsIn(1);
      check(
        "with .env.example handed whole (--env-file), its email is written into the volume (DATA_DIR stays the image's /data)",
        emails.length === 1,
        emails.join(", ") || "no email in the volume",
      );
      const link = fromEmail(join(data, "mail", emails[0] ?? ""));
      // docs/deployment.md's backup recipe for the container, as written, the offsite folder this test's.
      const offsite = mkdtempSync(join(tmpdir(), "deploy-backups-"));
      const srv = (text: string) => text.replaceAll("/srv/backups", offsite);
      await shell(srv(recipe("sqlite-backup")));
      // A lead after the backup: not in what is restored below.
      await post("After The Backup");
      const later = (await emailsIn(2)).find((f) => f !== emails[0]);
      const laterLink = later ? fromEmail(join(data, "mail", later)) : undefined;
      const underServer = spawnSync(
        "podman",
        [...PODMAN, "exec", "teton", ...cli("restore", "/data/inquiries.sqlite", "--force")],
        { encoding: "utf8" },
      );
      check(
        "restore refuses while the server runs, naming it",
        underServer.status === 1 && underServer.stderr.includes("A server uses /data"),
        underServer.stderr.trim().slice(0, 120),
      );
      podman("stop", "-t", "15", "teton");
      const code = podman("inspect", "teton", "--format", "{{.State.ExitCode}}");
      const logs = podman("logs", "teton");
      check(
        "SIGTERM stops it cleanly",
        code === "0" && logs.includes("server stopped"),
        `exit ${code}`,
      );
      spawnSync("podman", [...PODMAN, "rm", "-f", "-v", "teton"]);
      // The volume is lost; the restore recipe, as written (its date today's), on a new one.
      removeVolume();
      const today = execFileSync("date", ["+%F"], { encoding: "utf8" }).trim();
      const restored = await shell(
        srv(recipe("sqlite-restore")).replaceAll("2026-11-24", today),
      ).then(
        (out) => ({ ok: true, out }),
        (err: Error) => ({ ok: false, out: err.message }),
      );
      check(
        "the container's restore recipe, as written, restores the backup",
        restored.ok,
        restored.out.trim().slice(-200),
      );
      run("teton", port, sqliteEnv, "teton-data");
      await waitReady(url);
      const listed = JSON.parse(podman("exec", "teton", ...cli("list", "--json"))) as Array<{
        name: string;
      }>;
      const opened = link ? await fetch(`${url}${link}`) : null;
      check(
        "the container's backup restored on a new volume: the lead is back, and the link its email carried works",
        listed.some((r) => r.name === "Container Visitor") && opened?.status === 200,
        `${listed.length} inquiries, link ${opened?.status ?? "not found in the email"}`,
      );
      const newer = laterLink ? await fetch(`${url}${laterLink}`) : null;
      const newerPage = (await newer?.text()) ?? "";
      check(
        "a lead newer than the backup: its link says it is not in this database, and may be newer than a backup (never 'deleted')",
        newer?.status === 404 &&
          newerPage.includes("it may be newer than that backup") &&
          !newerPage.includes("It was deleted"),
        `link ${newer?.status ?? "not found in the email"}`,
      );
    } finally {
      spawnSync("podman", [...PODMAN, "rm", "-f", "-v", "teton"]);
      removeVolume();
    }
  }
  if (wanted("litestream")) {
    // The image under Litestream (LITESTREAM_REPLICA_URL): leads replicated to a mounted folder, the
    // data volume lost, a new container restores them before it serves.
    const liveData = mkdtempSync(join(tmpdir(), "deploy-ls-data-"));
    const replica = mkdtempSync(join(tmpdir(), "deploy-ls-replica-"));
    for (const dir of [liveData, replica]) chownSync(dir, 1000, 1000);
    const lsPort = await freePort();
    const lsUrl = `http://127.0.0.1:${lsPort}`;
    const lsEnv = {
      LITESTREAM_REPLICA_URL: "file:///replica",
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "1000",
    };
    const withReplica = ["-v", `${replica}:/replica`];
    try {
      run("teton-litestream", lsPort, lsEnv, liveData, withReplica);
      await waitReady(lsUrl);
      const acked: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${lsUrl}${CONTACT_API_PATH}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
          },
          body: JSON.stringify({
            name: `Replicated ${i}`,
            email: "r@example.org",
            message: `Lead ${i}`,
          }),
        });
        if (res.status === 201) acked.push(String(((await res.json()) as { id: string }).id));
      }
      // Replicated within about a second: waited for by restoring the replica (the host's Litestream
      // binary, from the folder the container writes) until it holds every acknowledged lead.
      const litestream = join(
        root,
        `node_modules/@flydotio/litestream-${process.platform}-${process.arch}/litestream`,
      );
      const inReplica = () => {
        const folder = mkdtempSync(join(tmpdir(), "deploy-ls-copy-"));
        try {
          const copy = join(folder, "copy.sqlite");
          const restored = spawnSync(litestream, ["restore", "-o", copy, `file://${replica}`], {
            encoding: "utf8",
          });
          if (restored.error) throw restored.error;
          if (restored.status !== 0)
            return { count: 0, why: restored.stderr.trim().split("\n").at(-1) ?? "" };
          const db = new DatabaseSync(copy, { readOnly: true });
          try {
            const rows = db.prepare("SELECT id FROM inquiries").all() as Array<{ id: string }>;
            const ids = new Set(rows.map((r) => r.id));
            return { count: acked.filter((id) => ids.has(id)).length, why: "" };
          } finally {
            db.close();
          }
        } finally {
          rmSync(folder, { recursive: true, force: true });
        }
      };
      const replicated = Date.now() + 20_000;
      let seen = inReplica();
      while (seen.count < acked.length && Date.now() < replicated) {
        await sleep(250);
        seen = inReplica();
      }
      check(
        "Litestream in the image: every acknowledged lead reaches the replica while the server runs",
        acked.length === 10 && seen.count === acked.length,
        `${seen.count} of ${acked.length} in the replica${seen.why ? ` (${seen.why})` : ""}`,
      );
      podman("stop", "-t", "15", "teton-litestream");
      // Litestream's lines and the server's, in one container log: every line one JSON object.
      const lsLog = spawnSync("podman", [...PODMAN, "logs", "teton-litestream"], {
        encoding: "utf8",
      });
      const lines = `${lsLog.stdout}\n${lsLog.stderr}`.split("\n").filter((l) => l.trim());
      const notJson = lines.filter((l) => {
        try {
          return typeof JSON.parse(l) !== "object";
        } catch {
          return true;
        }
      });
      check(
        "Litestream in the image: the container's log is one JSON line per event, Litestream's lines too",
        lines.some((l) => l.includes("litestream")) && notJson.length === 0,
        `${lines.length} lines${notJson.length ? `, not JSON: ${notJson.slice(0, 2).join(" | ")}` : ""}`,
      );
      spawnSync("podman", [...PODMAN, "rm", "-f", "-v", "teton-litestream"]);
      const fresh = mkdtempSync(join(tmpdir(), "deploy-ls-new-disk-"));
      chownSync(fresh, 1000, 1000);
      run("teton-litestream", lsPort, lsEnv, fresh, withReplica);
      await waitReady(lsUrl);
      const stats = podman("exec", "teton-litestream", "node", "server/cli.ts", "list", "--json");
      const back = new Set((JSON.parse(stats) as Array<{ id: string }>).map((r) => r.id));
      check(
        "Litestream in the image: a new disk is restored from the replica before the server answers",
        acked.length === 10 && acked.every((id) => back.has(id)),
        `${acked.filter((id) => back.has(id)).length} of ${acked.length} acknowledged leads back`,
      );
    } finally {
      spawnSync("podman", [...PODMAN, "rm", "-f", "-v", "teton-litestream"]);
    }
  }
  if (wanted("postgres")) {
    // Two containers, one PostgreSQL server, a real SMTP server; one killed mid-run.
    const pg = await startPostgres();
    const smtp = await new TestSmtp().start();
    const ports = [await freePort(), await freePort()];
    const env = {
      DATABASE_URL: pg.url,
      SMTP_URL: smtp.url,
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "100000",
      RATE_LIMIT_PER_DAY: "100000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "100000",
    };
    try {
      // A killed container's claims expire after the lease; short here, so the survivor takes them over in the test's time.
      const tuning = { OUTBOX_POLL_MS: 100, OUTBOX_LEASE_MS: 5_000 };
      for (const [i, p] of ports.entries()) run(`teton-pg-${i}`, p, env, undefined, [], tuning);
      for (const p of ports) await waitReady(`http://127.0.0.1:${p}`);
      const acked = new Set<string>();
      let killed = false;
      let retries = 0;
      const N = 300;
      for (let i = 0; i < N; i++) {
        const key = `deploy-${i}`;
        for (let attempt = 0; ; attempt++) {
          // Alternate between the two; after the kill, whichever still answers.
          const p = ports[(i + attempt) % 2];
          const res = await fetch(`http://127.0.0.1:${p}${CONTACT_API_PATH}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
              "idempotency-key": key,
            },
            body: JSON.stringify({
              name: `Replica Test ${i}`,
              email: "r@example.org",
              message: `Lead ${i}`,
            }),
          }).catch(() => null);
          if (res?.status === 201) {
            acked.add(String(((await res.json()) as { id: string }).id));
            break;
          }
          retries += 1;
          if (attempt > 10) throw new Error(`inquiry ${i} was never acknowledged`);
        }
        if (!killed && i === N / 2) {
          killed = true;
          podman("kill", "teton-pg-0");
        }
      }
      const deadline = Date.now() + 60_000;
      const delivered = () =>
        new Set(smtp.received.map((m) => String(m.mail.headers.get("x-inquiry-id"))));
      while ([...acked].some((id) => !delivered().has(id)) && Date.now() < deadline)
        await sleep(250);
      const ids = smtp.received.map((m) => String(m.mail.headers.get("x-inquiry-id")));
      const lost = [...acked].filter((id) => !ids.includes(id)).length;
      const duplicates = ids.length - new Set(ids).size;
      check(
        "two replicas on one PostgreSQL, one killed mid-run: every acknowledged inquiry delivered",
        acked.size === N && lost === 0,
        `${acked.size} acknowledged, ${lost} lost, ${duplicates} duplicate emails (at most those in flight at the kill), ${retries} client retries`,
      );
      // The backup recipe of docs/deployment.md, as written: pg_dump, then pg_restore into a new database.
      const dump = join(mkdtempSync(join(tmpdir(), "deploy-dump-")), "inquiries.dump");
      execFileSync(join(PG_BIN, "pg_dump"), ["--format=custom", `--file=${dump}`, pg.url]);
      const restored = new URL(pg.url);
      restored.pathname = "/restored";
      const admin = new pgClient.Client(pg.url);
      await admin.connect();
      await admin.query("CREATE DATABASE restored");
      await admin.end();
      execFileSync(join(PG_BIN, "pg_restore"), ["--no-owner", `--dbname=${restored}`, dump]);
      const reader = new pgClient.Client(restored.toString());
      await reader.connect();
      const restoredIds = new Set(
        (await reader.query("SELECT id FROM inquiries")).rows.map((r) => String(r.id)),
      );
      await reader.end();
      check(
        "pg_dump and pg_restore bring back every acknowledged inquiry",
        [...acked].every((id) => restoredIds.has(id)),
        `${restoredIds.size} inquiries restored`,
      );
    } finally {
      for (let i = 0; i < 2; i++)
        spawnSync("podman", [...PODMAN, "rm", "-f", "-v", `teton-pg-${i}`]);
      await smtp.stop();
      pg.stop();
    }
  }
  if (wanted("proxy")) await behindTlsProxy();
  report();
}

function report() {
  for (const [status, what] of results) console.log(`${status.padEnd(6)} ${what}`);
  const failed = results.filter(([s]) => s !== "ok").length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
}

/**
 * Outside containers, as docs/deployment.md's "Upgrades" writes it, in a folder of this test's for
 * /srv/teton and /var/lib/teton: a release serving from its own folder with the default ./data, its
 * data moved out (data-outside-releases), then the next release cloned, built while the old one
 * serves, and switched to (upgrade-outside-containers). This machine has no systemd: `systemctl` is
 * a stand-in for the docs' unit (npm start in /srv/teton/current; stop: SIGTERM, waited for). Both
 * releases are this repository at HEAD; the old one serves the build this folder already has.
 */
async function outsideContainers() {
  const top = mkdtempSync(join(tmpdir(), "deploy-releases-"));
  const here = (text: string) =>
    text
      .replaceAll("/srv/teton", `${top}/srv/teton`)
      .replaceAll("/var/lib/teton", `${top}/var/lib/teton`);
  const head = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const old = join(top, "srv/teton/releases/1.1.1");
  const current = join(top, "srv/teton/current");
  mkdirSync(join(top, "var/lib"), { recursive: true });
  execFileSync("git", ["clone", "--quiet", root, old]);
  execFileSync("git", ["-C", old, "checkout", "--quiet", head]);
  symlinkSync(join(root, "node_modules"), join(old, "node_modules"));
  cpSync(join(root, "build"), join(old, "build"), { recursive: true });
  symlinkSync(old, current);
  // The operator's .env names SITE_URL. The copied build was made with the values its record holds
  // (SITE_URL unset: the default, https://www.example.com, the same pages): recorded as made with
  // this .env, so the old release's first start builds nothing.
  // (A build from before that record: the old release's start builds it again, slower.)
  const recordFile = join(old, "build/server/build-time.json");
  const record = existsSync(recordFile)
    ? (JSON.parse(readFileSync(recordFile, "utf8")) as Record<string, string | null>)
    : { SITE_URL: null };
  record.SITE_URL ??= "https://www.example.com";
  if (existsSync(recordFile)) {
    writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
    const listFile = join(old, "build/server/files.json");
    const list = JSON.parse(readFileSync(listFile, "utf8")) as Record<string, number>;
    list["build-time.json"] = statSync(recordFile).size;
    writeFileSync(listFile, `${JSON.stringify(list, null, 2)}\n`);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(old, ".env"),
    `${Object.entries(record)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(
        "",
      )}PORT=${port}\nHOST=127.0.0.1\nSPAM_FILTER=off\nRATE_LIMIT_PER_MINUTE=1000\nRATE_LIMIT_NETWORK_PER_MINUTE=1000\n`,
  );
  const journal = join(top, "teton.log");
  const pidFile = join(top, "teton.pid");
  const prelude = `systemctl() {   # the docs' teton.service: npm start in its WorkingDirectory; a stop is SIGTERM, waited for
  local pid
  case "$*" in
    "stop teton" | "restart teton")
      pid="$(cat ${pidFile})"
      kill -TERM -- "-$pid"
      while kill -0 -- "-$pid" 2>/dev/null; do sleep 0.1; done ;;&
    "start teton" | "restart teton")
      (cd ${current} && exec setsid npm start >>${journal} 2>&1 </dev/null) &
      echo $! >${pidFile} ;;
  esac
}
`;
  const stopService = () => shell(`${prelude}systemctl stop teton`).catch(() => "");
  const key = record.CONTACT_PUBLIC_KEY ?? DEFAULT_PUBLIC_KEY;
  const submit = async (name: string) => {
    const res = await fetch(`${url}${CONTACT_API_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ name, email: "release@example.org", message: `A lead from ${name}.` }),
    });
    return res.status === 201
      ? String(((await res.json()) as { id: string }).id)
      : `answered ${res.status}`;
  };
  // The operator's CLI in a release's folder: the DATA_DIR its .env names.
  const listed = async (folder: string) =>
    (
      JSON.parse(
        await shell("npm run --silent inquiries -- list --json", { cwd: folder }),
      ) as Array<{ id: string }>
    ).map((r) => r.id);
  const missing = (ids: string[], have: string[]) => ids.filter((id) => !have.includes(id));
  try {
    await shell(`${prelude}systemctl start teton`);
    await waitReady(url, 300_000);
    const leads = [await submit("Release One"), await submit("Release Two")];

    const moved = await shell(prelude + here(recipe("data-outside-releases"))).then(
      () => "",
      (err: Error) => err.message,
    );
    await waitReady(url, 60_000);
    leads.push(await submit("Release Three"));
    const afterMove = await listed(current);
    check(
      "data-outside-releases as written: the leads of ./data are served from /var/lib/teton, none left in the release's folder",
      moved === "" &&
        missing(leads, afterMove).length === 0 &&
        !existsSync(join(old, "data")) &&
        existsSync(join(top, "var/lib/teton/inquiries.sqlite")),
      `${missing(leads, afterMove).length} of ${leads.length} missing (${leads.join(", ")})${moved ? `; ${moved.slice(-300)}` : ""}`,
    );

    // Who answers while the recipe runs: every 50 ms a page; the longest time with no 200.
    const answers: Array<[number, boolean]> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const ok = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        answers.push([Date.now(), ok]);
        await sleep(50);
      }
    })();
    const before = readFileSync(journal, "utf8").length;
    const t0 = Date.now();
    const upgraded = await shell(
      prelude +
        here(recipe("upgrade-outside-containers"))
          .replace("https://git.example.com/teton/site.git", `file://${root}`)
          .replace("v1.2.0", head),
    ).then(
      () => "",
      (err: Error) => err.message,
    );
    const took = Math.round((Date.now() - t0) / 1000);
    await waitReady(url, 60_000).catch(() => undefined);
    polling = false;
    await poller;
    let gap = 0;
    let lastOk = answers[0]?.[0] ?? 0;
    for (const [at, ok] of answers) {
      if (!ok) continue;
      gap = Math.max(gap, at - lastOk);
      lastOk = at;
    }
    const newStart = readFileSync(journal, "utf8").slice(before);
    const fresh = join(top, "srv/teton/releases/1.2.0");
    const servedFrom = spawnSync(
      "readlink",
      [`/proc/${readFileSync(pidFile, "utf8").trim()}/cwd`],
      {
        encoding: "utf8",
      },
    ).stdout.trim();
    check(
      "upgrade-outside-containers as written: the new release built while the old served; its npm start builds nothing, serving within seconds of the old one's stop",
      upgraded === "" &&
        servedFrom === fresh &&
        newStart.includes("server started") &&
        !/building…|> \S+ build\b/.test(newStart) &&
        gap < 10_000,
      `${took} s in all, ${(gap / 1000).toFixed(1)} s with no page${upgraded ? `; the recipe: ${upgraded.slice(-400)}` : ""}${/building…/.test(newStart) ? `; ${/^.*building….*$/m.exec(newStart)?.[0]}` : ""}`,
    );
    rmSync(old, { recursive: true, force: true });
    leads.push(await submit("Release Four"));
    const afterUpgrade = await listed(fresh);
    check(
      "after the upgrade, the old release's folder deleted: every lead stored before is there, and a new one is stored",
      missing(leads, afterUpgrade).length === 0 && leads.every((id) => !id.startsWith("answered")),
      `${missing(leads, afterUpgrade).length} of ${leads.length} missing (${leads.join(", ")})`,
    );
  } finally {
    await stopService();
    rmSync(top, { recursive: true, force: true });
  }
}

/** A JSON submission through the proxy with `key`, as a page built with it sends it: its status. */
async function p2(site: string, key: string, i: number): Promise<number> {
  const { request } = await import("node:https");
  const body = JSON.stringify({
    name: `Next Key ${i}`,
    email: "next@example.org",
    message: `With the next key, ${i}.`,
  });
  const url = new URL(`${site}${CONTACT_API_PATH}`);
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: url.port,
        path: url.pathname,
        method: "POST",
        servername: "www.example.com",
        rejectUnauthorized: false,
        // A fresh connection each: nginx sends them round-robin to both instances.
        agent: false,
        headers: {
          host: url.host,
          origin: site,
          "content-type": "application/json",
          authorization: `Bearer ${key}`,
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

/** A GET through the proxy on a fresh connection (round-robin over the upstream): its status and body. */
async function p2get(site: string, path: string): Promise<{ status: number; body: string }> {
  const { request } = await import("node:https");
  const url = new URL(`${site}${path}`);
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: url.port,
        path: url.pathname,
        servername: "www.example.com",
        rejectUnauthorized: false,
        agent: false,
        headers: { host: url.host },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.end();
  });
}

const recipients = (m: { mail: { to?: unknown } } | undefined) => {
  const to = m?.mail.to as { text?: string } | undefined;
  return to?.text ?? "";
};

/**
 * The deployment docs/deployment.md describes, as an operator follows it, its recipes run as written
 * (their ports moved to free ones, this machine's podman settings in a containers.conf): an `.env`
 * made from `.env.example`; "Without compose", compose.yaml's site as two `podman run` instances
 * on PostgreSQL behind `deploy/nginx.conf` with TLS; a person's lead typed in Chromium through the
 * proxy reaches the SMTP server exactly once. Then, while a browser keeps submitting through the
 * proxy, the first step of a key rotation (a line added to .env) and the rolling-restart recipe:
 * every submission acknowledged and delivered once, no page load failed, the next key accepted. Then
 * the rotation's second step, a new instance beside the old one (nginx's upstream edited and
 * reloaded), the third step's rolling restart right after it (the instances that run: 1 and 2), and
 * the pg_dump recipe.
 */
async function behindTlsProxy() {
  const nginxBin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => existsSync(p));
  if (!nginxBin) {
    check("behind the TLS proxy: nginx is needed (apt-get install nginx)", false);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "deploy-proxy-"));
  const pg = await startPostgres();
  const smtp = await new TestSmtp().start();
  const base = await freeRun(3);
  const ports = [base, base + 1, base + 2];
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const instances = ["teton-site-0", "teton-site-1", "teton-site-2"];
  const clean = () => {
    for (const name of instances) spawnSync("podman", [...PODMAN, "rm", "-f", "-v", name]);
    spawnSync("podman", [...PODMAN, "volume", "rm", "-f", "teton-site-data"]);
  };
  clean();
  try {
    // The operator's .env, from .env.example as docs/deployment.md says; DATABASE_URL written in it
    // ("Without compose"). The browser below submits one message after another from one address,
    // at machine speed: the limits and the fill time are this test's.
    const envFile = join(dir, ".env");
    writeFileSync(
      envFile,
      `${readFileSync(join(root, ".env.example"), "utf8")}
SITE_URL=https://www.example.com
SMTP_URL=${smtp.url}
CONTACT_TO=sales@example.com
DATABASE_URL=${pg.url}
RATE_LIMIT_PER_MINUTE=1000
RATE_LIMIT_PER_DAY=100000
RATE_LIMIT_NETWORK_PER_MINUTE=1000
SPAM_FILTER=off
`,
    );
    // "Without compose" is compose.yaml's site service: its env_file and environment, volume, stop
    // grace period and restart policy (DATABASE_URL and TRUST_PROXY said in the text beside it).
    const runRecipe = recipe("podman-run");
    const compose = YAML.parse(readFileSync(join(root, "compose.yaml"), "utf8")) as {
      services: {
        site: {
          env_file: string;
          environment: Record<string, string>;
          volumes: string[];
          stop_grace_period: string;
          restart: string;
        };
      };
    };
    const site = compose.services.site;
    const missing = [
      `--env-file ${site.env_file}`,
      ...Object.entries(site.environment)
        .filter(([k]) => k !== "DATABASE_URL" && k !== "TRUST_PROXY")
        .map(([k, v]) => `-e ${k}=${v}`),
      ...site.volumes.map((v) => `-v teton-${v}`),
      `--stop-timeout ${Number.parseInt(site.stop_grace_period, 10)}`,
      `--restart ${site.restart}`,
    ].filter((part) => !runRecipe.includes(part));
    check(
      "docs' `podman run` recipe is compose.yaml's site service",
      missing.length === 0,
      missing.join(", "),
    );
    await shell(atPorts(runRecipe, base), { cwd: dir });
    for (const p of ports.slice(0, 2)) await waitReady(`http://127.0.0.1:${p}`);
    // deploy/nginx.conf as written, its ports, certificate and logs this test's.
    execFileSync("openssl", [
      ...[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=www.example.com",
      ],
      ...["-addext", "subjectAltName=DNS:www.example.com"],
      ...["-keyout", join(dir, "privkey.pem"), "-out", join(dir, "fullchain.pem")],
    ]);
    const example = atPorts(readFileSync(join(root, "deploy/nginx.conf"), "utf8"), base)
      .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
      .replace("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
      .replaceAll("/etc/ssl/teton/", `${dir}/`)
      .replaceAll("/var/log/nginx/", `${dir}/`);
    const nginxConf = join(dir, "nginx.conf");
    writeFileSync(
      nginxConf,
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n${example}\n}\n`,
    );
    const nginx = spawn(nginxBin, ["-c", nginxConf, "-p", dir, "-g", "daemon off;"], {
      stdio: "inherit",
    });
    children.push(nginx);
    // Up once its plain-HTTP server answers (with the redirect to HTTPS).
    for (let i = 0; i < 40; i++) {
      const up = await fetch(`http://127.0.0.1:${httpPort}/`, { redirect: "manual" }).then(
        (r) => r.status === 308,
        () => false,
      );
      if (up) break;
      await sleep(250);
    }
    // The recipes after "Without compose" run in a shell that has its start_site, and nginx as
    // this test runs it.
    const prelude = `${shellFunction(atPorts(runRecipe, base), "start_site")}
nginx() { command ${nginxBin} -c ${nginxConf} -p ${dir} "$@"; }
`;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        ...chromiumArgs,
        "--host-resolver-rules=MAP www.example.com 127.0.0.1",
        "--ignore-certificate-errors",
      ],
    });
    const siteUrl = `https://www.example.com:${httpsPort}`;
    const NEXT_KEY = "pk_public_next_rotation_0001";
    try {
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/contact`);
      await page.getByLabel("Full Name").pressSequentially("Proxied Visitor", { delay: 40 });
      await page
        .getByLabel("Email Address")
        .pressSequentially("proxied@example.org", { delay: 40 });
      await page
        .getByRole("textbox", { name: "Message" })
        .pressSequentially("Hello through the TLS proxy.", { delay: 40 });
      await page.getByRole("button", { name: "Send Message" }).click();
      await page
        .getByRole("dialog", { name: "Message Sent Successfully!" })
        .waitFor({ timeout: 15_000 });

      // A visitor after another, through the proxy, while both instances are re-created one after the other.
      const sent: string[] = [];
      const failures: string[] = [];
      // Set once both instances are back: that many visitors in all, a few more than so far.
      let visitorsInAll = Number.POSITIVE_INFINITY;
      const visitors = (async () => {
        const p = await browser.newPage();
        for (let n = 0; n < visitorsInAll; n++) {
          const name = `Rolling Visitor ${n}`;
          try {
            await p.goto(`${siteUrl}/contact`);
            await p.getByLabel("Full Name").fill(name);
            await p.getByLabel("Email Address").fill("rolling@example.org");
            await p
              .getByRole("textbox", { name: "Message" })
              .fill(`Question number ${n} during a restart.`);
            await p.getByRole("button", { name: "Send Message" }).click();
            // The page's module gives up 7.5 s after a first failure: the alert, never a long wait.
            await p
              .getByRole("dialog", { name: "Message Sent Successfully!" })
              .waitFor({ timeout: 20_000 });
            sent.push(name);
          } catch (err) {
            failures.push(`${name}: ${(err as Error).message.split("\n")[0]}`);
          }
        }
      })();
      const started = Date.now() + 60_000;
      while (sent.length < 3 && Date.now() < started) await sleep(100);
      // Rotating the public key, step 1: a line added to .env, then the rolling restart as written.
      appendFileSync(envFile, `CONTACT_PUBLIC_KEY_PREVIOUS=${NEXT_KEY}\n`);
      const rolling = recipe("rolling-restart");
      const rolled = await shell(prelude + atPorts(rolling, base), { cwd: dir }).then(
        () => "",
        (err: Error) => err.message,
      );
      const until = Date.now() + 60_000;
      const after = sent.length;
      while (sent.length < after + 3 && Date.now() < until) await sleep(100);
      visitorsInAll = sent.length + failures.length + 1;
      await visitors;
      const deliveredOnce = () =>
        sent.every(
          (name) => smtp.received.filter((m) => m.mail.subject?.endsWith(`— ${name}`)).length === 1,
        );
      for (let i = 0; i < 120 && !deliveredOnce(); i++) await sleep(250);
      check(
        "the rolling-restart recipe, as written, behind the proxy while a browser submits: every submission acknowledged and delivered once, no page failed",
        rolled === "" && failures.length === 0 && sent.length >= 8 && deliveredOnce(),
        `${sent.length} sent, ${failures.length} failed${failures.length ? `: ${failures.join("; ")}` : ""}${rolled ? `; the recipe: ${rolled.slice(0, 300)}` : ""}`,
      );
      // Both instances now accept the next key (step 1 of a rotation): a page built with it is not refused.
      const nextKeyAnswers: number[] = [];
      for (let i = 0; i < 4; i++) nextKeyAnswers.push(await p2(siteUrl, NEXT_KEY, i));
      check(
        "after that restart, the next public key (a line added to .env) is accepted through the proxy (rotation, step 1)",
        nextKeyAnswers.every((s) => s === 201),
        nextKeyAnswers.join(" "),
      );
    } finally {
      await browser.close();
    }

    // Rotation, steps 2 and 3, as docs/deployment.md writes them: both lines changed in .env, the
    // image rebuilt from that .env (the build recipe, its .env this test's), the instances
    // re-created; a day later the second line removed and the instances re-created again.
    const setKeys = (lines: string) =>
      writeFileSync(
        envFile,
        `${readFileSync(envFile, "utf8")
          .split("\n")
          .filter((l) => !l.startsWith("CONTACT_PUBLIC_KEY"))
          .join("\n")
          .trimEnd()}\n${lines}`,
      );
    const roll = () => shell(prelude + atPorts(recipe("rolling-restart"), base), { cwd: dir });
    setKeys(`CONTACT_PUBLIC_KEY=${NEXT_KEY}\nCONTACT_PUBLIC_KEY_PREVIOUS=${DEFAULT_PUBLIC_KEY}\n`);
    const step2 = await shell(recipe("podman-build").replace(/ \.env\b/g, ` ${envFile}`), {
      env: { CONTAINERS_CONF: BUILD_CONF },
    })
      .then(roll)
      .then(
        () => "",
        (err: Error) => err.message,
      );
    const pageKeys = async () => {
      const keys = new Set<string>();
      for (let i = 0; i < 4; i++) {
        keys.add(
          /data-public-key="([^"]*)"/.exec((await p2get(siteUrl, "/contact")).body)?.[1] ?? "none",
        );
      }
      return [...keys].join(" ");
    };
    const afterStep2 = {
      pages: await pageKeys(),
      next: await p2(siteUrl, NEXT_KEY, 10),
      old: await p2(siteUrl, DEFAULT_PUBLIC_KEY, 11),
    };
    check(
      "rotation step 2 as written: the image rebuilt from .env's new key, re-created; its pages carry it, both keys accepted",
      step2 === "" &&
        afterStep2.pages === NEXT_KEY &&
        afterStep2.next === 201 &&
        afterStep2.old === 201,
      `pages ${afterStep2.pages}, next ${afterStep2.next}, old ${afterStep2.old}${step2 ? `; ${step2.slice(-300)}` : ""}`,
    );
    // A new instance beside the old one, as written: nginx's upstream gains its port and loses the old one's.
    const beside = await shell(
      prelude +
        shellFunction(atPorts(recipe("rolling-restart"), base), "ready_site") +
        "\n" +
        atPorts(recipe("beside-the-old"), base).replaceAll(
          "/etc/nginx/conf.d/teton.conf",
          nginxConf,
        ),
      { cwd: dir },
    ).then(
      () => "",
      (err: Error) => err.message,
    );
    const viaProxy: number[] = [];
    for (let i = 0; i < 6; i++) viaProxy.push((await p2get(siteUrl, "/services")).status);
    const newLog = spawnSync("podman", [...PODMAN, "logs", "teton-site-2"], {
      encoding: "utf8",
    }).stdout;
    const servedByNew = newLog.split("\n").filter((l) => l.includes('"path":"/services"')).length;
    const upstream = readFileSync(nginxConf, "utf8");
    check(
      "a new instance beside the old one, as written: nginx's upstream names it and no longer the old one, and it serves",
      beside === "" &&
        viaProxy.every((s) => s === 200) &&
        servedByNew > 0 &&
        upstream.includes(`server 127.0.0.1:${base + 2} max_fails=0;`) &&
        !upstream.includes(`server 127.0.0.1:${base} max_fails=0;`),
      `${viaProxy.join(" ")}, ${servedByNew} of 6 served by the new one${beside ? `; the recipe: ${beside.slice(0, 300)}` : ""}`,
    );

    // Step 3 right after that: the rolling restart re-creates the instances that run now, 1 and 2.
    const running = () =>
      podman("ps", "--filter", "name=^teton-site-", "--format", "{{.Names}} {{.ID}}")
        .split("\n")
        .sort();
    const beforeStep3 = running();
    setKeys(`CONTACT_PUBLIC_KEY=${NEXT_KEY}\n`);
    const step3 = await roll().then(
      () => "",
      (err: Error) => err.message,
    );
    const afterStep3 = running();
    const answers = { next: [] as number[], old: [] as number[] };
    for (let i = 0; i < 4; i++) {
      answers.next.push(await p2(siteUrl, NEXT_KEY, 12 + 2 * i));
      answers.old.push(await p2(siteUrl, DEFAULT_PUBLIC_KEY, 13 + 2 * i));
    }
    check(
      "rotation step 3 as written, after the new instance beside the old: instances 1 and 2 re-created, no other started; the new key accepted, the old one no longer",
      step3 === "" &&
        afterStep3.map((l) => l.split(" ")[0]).join(" ") === "teton-site-1 teton-site-2" &&
        afterStep3.every((l) => !beforeStep3.includes(l)) &&
        answers.next.every((s) => s === 201) &&
        answers.old.every((s) => s === 401),
      `before ${beforeStep3.join(", ")}; after ${afterStep3.join(", ")}; next ${answers.next.join(" ")}, old ${answers.old.join(" ")}${step3 ? `; ${step3.slice(-300)}` : ""}`,
    );

    // The pg_dump recipe, as written: into the volume's backups folder, the server's user's alone.
    const dumped = await shell(recipe("pg-backup"), {
      cwd: dir,
      env: { DATABASE_URL: pg.url, PATH: `${PG_BIN}:${process.env.PATH}` },
    }).then(
      () => "",
      (err: Error) => err.message,
    );
    const today = execFileSync("date", ["+%F"], { encoding: "utf8" }).trim();
    const volume = podman("volume", "inspect", "teton-site-data", "--format", "{{.Mountpoint}}");
    const dump = join(volume, "backups", `inquiries-${today}.dump`);
    const stat = existsSync(dump) ? statSync(dump) : null;
    const erased = spawnSync("podman", [
      ...PODMAN,
      "exec",
      "teton-site-1",
      "rm",
      `/data/backups/inquiries-${today}.dump`,
    ]).status;
    check(
      "the pg_dump recipe, as written: a file only the server's user (uid 1000) reads, which the server may delete",
      dumped === "" &&
        stat?.uid === 1000 &&
        (stat.mode & 0o777) === 0o600 &&
        erased === 0 &&
        !existsSync(dump),
      stat
        ? `uid ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}, erased by the server's user: ${erased === 0}`
        : dumped.slice(0, 300),
    );

    const leads = () => smtp.received.filter((m) => m.mail.subject?.includes("Proxied Visitor"));
    // Once its lead delivery is marked sent no instance sends it again: "once" is then final.
    const unsent = async () => {
      const db = new pgClient.Client(pg.url);
      await db.connect();
      try {
        const { rows } = await db.query(
          "SELECT count(*) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id WHERE i.name = 'Proxied Visitor' AND d.kind = 'lead' AND d.status <> 'sent'",
        );
        return Number(rows[0]?.n);
      } finally {
        await db.end();
      }
    };
    for (let i = 0; i < 60 && (leads().length === 0 || (await unsent()) > 0); i++) await sleep(250);
    check(
      "two instances behind deploy/nginx.conf with TLS: a lead typed in Chromium reaches the SMTP server once",
      leads().length === 1 && recipients(leads()[0]) === "sales@example.com",
      `${leads().length} email(s)`,
    );
    const sender = leads()[0]?.mail.from?.value[0]?.address;
    check(
      "the lead's sender is the site's own domain (SITE_URL read at run time)",
      sender === "no-reply@example.com",
      String(sender),
    );
    // A lead's link through the proxy: its access log keeps the path, never the token or an address.
    await fetch(`http://127.0.0.1:${httpPort}/lead?t=token-in-the-query`, { redirect: "manual" });
    // nginx writes the line as it finalizes the request, which may be after the client has the answer.
    const readAccessLog = () => readFileSync(join(dir, "teton.access.log"), "utf8");
    for (let i = 0; i < 40 && !readAccessLog().includes('"GET /lead"'); i++) await sleep(50);
    const accessLog = readAccessLog();
    check(
      "the proxy's access log keeps no client address and no query string (the privacy notice)",
      accessLog.includes('"GET /lead"') && !/token-in-the-query|127\.0\.0\.1|\?/.test(accessLog),
      accessLog.split("\n").slice(-3).join(" | "),
    );
  } finally {
    for (const child of children) child.kill("SIGTERM");
    clean();
    await smtp.stop();
    pg.stop();
  }
}

await main();
