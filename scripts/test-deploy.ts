import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pgClient from "pg";
import { chromium } from "playwright-core";
import YAML from "yaml";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { chromiumArgs } from "../playwright.config.ts";
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
const podman = (...args: string[]) => execFileSync("podman", [...PODMAN, ...args], { encoding: "utf8" }).trim();

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

function run(name: string, port: number, env: Record<string, string>, volume?: string, more: string[] = []): string {
  spawnSync("podman", [...PODMAN, "rm", "-f", name]);
  const envArgs = Object.entries({ PORT: String(port), HOST: "127.0.0.1", ...env }).flatMap(([k, v]) => [
    "-e",
    `${k}=${v}`,
  ]);
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
  );
}

const results: Array<[string, string]> = [];
const check = (what: string, ok: boolean, detail = "") => {
  results.push([ok ? "ok" : "FAILED", `${what}${detail ? ` (${detail})` : ""}`]);
  if (!ok) process.exitCode = 1;
};

async function main() {
  if (!available("podman") || !available("debootstrap")) {
    console.log("test:deploy skipped: podman and debootstrap are needed (apt-get install podman debootstrap runc).");
    return;
  }
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
      "-t",
      IMAGE,
      "--build-arg",
      "SITE_URL=https://www.example.com",
      root,
    ],
    { stdio: "inherit" },
  );
  const size = podman("image", "inspect", IMAGE, "--format", "{{.Size}}");
  check("image builds", true, `${Math.round((Date.now() - t0) / 1000)} s, ${(Number(size) / 1e6).toFixed(0)} MB`);

  // One container with the embedded SQLite default.
  const data = mkdtempSync(join(tmpdir(), "deploy-data-"));
  chownSync(data, 1000, 1000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  run("teton-sqlite", port, { SPAM_FILTER: "off" }, data);
  try {
    await waitReady(url);
    for (const path of ["/", "/services", "/blog", "/contact", "/imprint"]) {
      check(`GET ${path}`, (await fetch(`${url}${path}`)).status === 200);
    }
    const page = await (await fetch(`${url}/contact`)).text();
    const token = /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const post = await fetch(`${url}/contact`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        name: "Container Visitor",
        email: "visitor@example.org",
        message: "Hello from the container test.",
        form_token: token,
      }),
    });
    check("the form without JavaScript answers 303", post.status === 303);
    let emails: string[] = [];
    for (let i = 0; i < 40 && emails.length === 0; i++) {
      await sleep(250);
      try {
        emails = readdirSync(join(data, "mail")).filter((f) => f.endsWith(".eml"));
      } catch {}
    }
    check("its email is written into the volume", emails.length === 1, emails.join(", "));
    // The backup recipe of docs/deployment.md for the container, as written: into the volume, copied
    // off it, deleted there; a restore refused while the server runs.
    const cli = (...args: string[]) => ["node", "scripts/inquiries.ts", ...args];
    podman("exec", "teton-sqlite", ...cli("backup", "/data/backups/leads.sqlite"));
    const offsite = mkdtempSync(join(tmpdir(), "deploy-backups-"));
    podman("cp", "teton-sqlite:/data/backups/leads.sqlite", join(offsite, "leads.sqlite"));
    podman("exec", "teton-sqlite", "rm", "/data/backups/leads.sqlite");
    // The image runs as uid 1000 (node): the folder it restores from is readable by it, as the docs say.
    chownSync(offsite, 1000, 1000);
    chownSync(join(offsite, "leads.sqlite"), 1000, 1000);
    const underServer = spawnSync(
      "podman",
      [...PODMAN, "exec", "teton-sqlite", ...cli("restore", "/data/inquiries.sqlite", "--force")],
      { encoding: "utf8" },
    );
    check(
      "restore refuses while the server runs, naming it",
      underServer.status === 1 && underServer.stderr.includes("A server uses /data"),
      underServer.stderr.trim().slice(0, 120),
    );
    const link = /https:\/\/www\.example\.com(\/lead\?t=[\w.%-]+)/.exec(
      readFileSync(join(data, "mail", emails[0] ?? ""), "utf8")
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    )?.[1];
    podman("stop", "-t", "15", "teton-sqlite");
    const code = podman("inspect", "teton-sqlite", "--format", "{{.State.ExitCode}}");
    const logs = podman("logs", "teton-sqlite");
    check("SIGTERM stops it cleanly", code === "0" && logs.includes("server stopped"), `exit ${code}`);
    spawnSync("podman", [...PODMAN, "rm", "-f", "teton-sqlite"]);
    // The volume is lost: a new one, restored by the image's CLI before the site starts on it.
    const newDisk = mkdtempSync(join(tmpdir(), "deploy-new-disk-"));
    chownSync(newDisk, 1000, 1000);
    execFileSync(
      "podman",
      [
        ...PODMAN,
        "run",
        "--rm",
        ...ULIMITS,
        "-v",
        `${newDisk}:/data`,
        "-v",
        `${offsite}:/backups:ro`,
        IMAGE,
        ...cli("restore", "/backups/leads.sqlite"),
      ],
      { stdio: "inherit" },
    );
    run("teton-sqlite", port, { SPAM_FILTER: "off" }, newDisk);
    await waitReady(url);
    const listed = JSON.parse(podman("exec", "teton-sqlite", ...cli("list", "--json"))) as Array<{ name: string }>;
    const opened = link ? await fetch(`${url}${link}`) : null;
    check(
      "the container's backup restored on a new volume: the lead is back, and the link its email carried works",
      listed.some((r) => r.name === "Container Visitor") && opened?.status === 200,
      `${listed.length} inquiries, link ${opened?.status ?? "not found in the email"}`,
    );
  } finally {
    spawnSync("podman", [...PODMAN, "rm", "-f", "teton-sqlite"]);
  }

  // The image under Litestream (LITESTREAM_REPLICA_URL): leads replicated to a mounted folder, the
  // data volume lost, a new container restores them before it serves.
  const liveData = mkdtempSync(join(tmpdir(), "deploy-ls-data-"));
  const replica = mkdtempSync(join(tmpdir(), "deploy-ls-replica-"));
  for (const dir of [liveData, replica]) chownSync(dir, 1000, 1000);
  const lsPort = await freePort();
  const lsUrl = `http://127.0.0.1:${lsPort}`;
  const lsEnv = { LITESTREAM_REPLICA_URL: "file:///replica", SPAM_FILTER: "off", RATE_LIMIT_PER_MINUTE: "1000" };
  const withReplica = ["-v", `${replica}:/replica`];
  try {
    run("teton-litestream", lsPort, lsEnv, liveData, withReplica);
    await waitReady(lsUrl);
    const acked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${lsUrl}${CONTACT_API_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${DEFAULT_PUBLIC_KEY}` },
        body: JSON.stringify({ name: `Replicated ${i}`, email: "r@example.org", message: `Lead ${i}` }),
      });
      if (res.status === 201) acked.push(String(((await res.json()) as { id: string }).id));
    }
    // Replicated within about a second: waited for by restoring the replica (the host's Litestream
    // binary, from the folder the container writes) until it holds every acknowledged lead.
    const litestream = join(root, `node_modules/@flydotio/litestream-${process.platform}-${process.arch}/litestream`);
    const inReplica = () => {
      const folder = mkdtempSync(join(tmpdir(), "deploy-ls-copy-"));
      try {
        const copy = join(folder, "copy.sqlite");
        const restored = spawnSync(litestream, ["restore", "-o", copy, `file://${replica}`], { encoding: "utf8" });
        if (restored.error) throw restored.error;
        if (restored.status !== 0) return { count: 0, why: restored.stderr.trim().split("\n").at(-1) ?? "" };
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
    spawnSync("podman", [...PODMAN, "rm", "-f", "teton-litestream"]);
    const fresh = mkdtempSync(join(tmpdir(), "deploy-ls-new-disk-"));
    chownSync(fresh, 1000, 1000);
    run("teton-litestream", lsPort, lsEnv, fresh, withReplica);
    await waitReady(lsUrl);
    const stats = podman("exec", "teton-litestream", "node", "scripts/inquiries.ts", "list", "--json");
    const back = new Set((JSON.parse(stats) as Array<{ id: string }>).map((r) => r.id));
    check(
      "Litestream in the image: a new disk is restored from the replica before the server answers",
      acked.length === 10 && acked.every((id) => back.has(id)),
      `${acked.filter((id) => back.has(id)).length} of ${acked.length} acknowledged leads back`,
    );
  } finally {
    spawnSync("podman", [...PODMAN, "rm", "-f", "teton-litestream"]);
  }

  // Two containers, one PostgreSQL server, a real SMTP server; one killed mid-run.
  const pg = await startPostgres();
  const smtp = await new TestSmtp().start();
  const ports = [await freePort(), await freePort()];
  const env = {
    DATABASE_URL: pg.url,
    SMTP_URL: smtp.url,
    SPAM_FILTER: "off",
    OUTBOX_POLL_MS: "100",
    // A killed container's claims expire after the lease; short here, so the survivor takes them over in the test's time.
    OUTBOX_LEASE_MS: "5000",
    RATE_LIMIT_PER_MINUTE: "100000",
    RATE_LIMIT_PER_DAY: "100000",
    RATE_LIMIT_NETWORK_PER_MINUTE: "100000",
  };
  try {
    for (const [i, p] of ports.entries()) run(`teton-pg-${i}`, p, env);
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
          body: JSON.stringify({ name: `Replica Test ${i}`, email: "r@example.org", message: `Lead ${i}` }),
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
    const delivered = () => new Set(smtp.received.map((m) => String(m.mail.headers.get("x-inquiry-id"))));
    while ([...acked].some((id) => !delivered().has(id)) && Date.now() < deadline) await sleep(250);
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
    const restoredIds = new Set((await reader.query("SELECT id FROM inquiries")).rows.map((r) => String(r.id)));
    await reader.end();
    check(
      "pg_dump and pg_restore bring back every acknowledged inquiry",
      [...acked].every((id) => restoredIds.has(id)),
      `${restoredIds.size} inquiries restored`,
    );
  } finally {
    for (let i = 0; i < 2; i++) spawnSync("podman", [...PODMAN, "rm", "-f", `teton-pg-${i}`]);
    await smtp.stop();
    pg.stop();
  }
  await behindTlsProxy();
  for (const [status, what] of results) console.log(`${status.padEnd(6)} ${what}`);
  const failed = results.filter(([s]) => s !== "ok").length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
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

const recipients = (m: { mail: { to?: unknown } } | undefined) => {
  const to = m?.mail.to as { text?: string } | undefined;
  return to?.text ?? "";
};

/**
 * The deployment docs/deployment.md describes, as an operator follows it: an `.env` made from
 * `.env.example`, handed to each instance whole (compose's `env_file`; `podman run --env-file`
 * here, where no compose tool runs) with compose.yaml's own `environment` on top; two instances on
 * PostgreSQL behind `deploy/nginx.conf` with TLS; a person's lead typed in Chromium through the proxy
 * reaches the SMTP server exactly once, whichever instance served the page and took the post. Then,
 * while a browser keeps submitting through the proxy, a rolling restart of both instances that also
 * makes them accept the next public key (the first step of a key rotation, docs/deployment.md):
 * every submission acknowledged and delivered once, no page load failed, the next key accepted.
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
  const ports = [await freePort(), await freePort()];
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  try {
    // The operator's .env, from .env.example as docs/deployment.md says.
    const dotenv = `${readFileSync(join(root, ".env.example"), "utf8")}
SITE_URL=https://www.example.com
POSTGRES_PASSWORD=unused-here
SMTP_URL=${smtp.url}
CONTACT_TO=sales@example.com
`;
    writeFileSync(join(dir, ".env"), dotenv);
    // compose.yaml's environment for the site, on top of the .env (DATABASE_URL: the test's server).
    const compose = YAML.parse(readFileSync(join(root, "compose.yaml"), "utf8")) as {
      services: { site: { env_file: string; environment: Record<string, string> } };
    };
    const site = compose.services.site;
    check("compose.yaml hands the site every variable of .env (env_file)", site.env_file === ".env");
    const vars = Object.fromEntries(
      dotenv.split("\n").flatMap((l) => (/^([A-Z_]+)=(.*)$/.exec(l) ? [[RegExp.$1, RegExp.$2]] : [])),
    );
    const interpolate = (v: string) =>
      v.replace(/\$\{([A-Z_]+)(?::[-?]([^}]*))?\}/g, (_m, name: string, fallback = "") => vars[name] ?? fallback);
    const env = Object.fromEntries(Object.entries(site.environment).map(([k, v]) => [k, interpolate(String(v))]));
    env.DATABASE_URL = pg.url;
    // The browser below submits one message after another from one address, at machine speed.
    Object.assign(env, {
      RATE_LIMIT_PER_MINUTE: "1000",
      RATE_LIMIT_PER_DAY: "100000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
      SPAM_FILTER: "off",
    });
    const start = (i: number, extra: Record<string, string> = {}) =>
      run(`teton-proxied-${i}`, ports[i] ?? 0, { ...env, HOST: "127.0.0.1", ...extra }, undefined, [
        "--env-file",
        join(dir, ".env"),
      ]);
    for (const i of [0, 1]) start(i);
    for (const p of ports) await waitReady(`http://127.0.0.1:${p}`);
    // deploy/nginx.conf as written, its ports, upstreams and certificate pointed at this test's.
    execFileSync("openssl", [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=www.example.com"],
      ...["-addext", "subjectAltName=DNS:www.example.com"],
      ...["-keyout", join(dir, "privkey.pem"), "-out", join(dir, "fullchain.pem")],
    ]);
    const example = readFileSync(join(root, "deploy/nginx.conf"), "utf8")
      .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
      .replace("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
      .replace(/server 127\.0\.0\.1:3000\b/, `server 127.0.0.1:${ports[0]}`)
      .replace(/server 127\.0\.0\.1:3001\b/, `server 127.0.0.1:${ports[1]}`)
      .replaceAll("/etc/ssl/teton/", `${dir}/`)
      .replaceAll("/var/log/nginx/", `${dir}/`);
    writeFileSync(
      join(dir, "nginx.conf"),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n${example}\n}\n`,
    );
    const nginx = spawn(nginxBin, ["-c", join(dir, "nginx.conf"), "-p", dir, "-g", "daemon off;"], {
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
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [...chromiumArgs, "--host-resolver-rules=MAP www.example.com 127.0.0.1", "--ignore-certificate-errors"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`https://www.example.com:${httpsPort}/contact`);
      await page.getByLabel("Full Name").pressSequentially("Proxied Visitor", { delay: 40 });
      await page.getByLabel("Email Address").pressSequentially("proxied@example.org", { delay: 40 });
      await page
        .getByRole("textbox", { name: "Message" })
        .pressSequentially("Hello through the TLS proxy.", { delay: 40 });
      await sleep(3_000); // a person's pause: the form's minimum fill time
      await page.getByRole("button", { name: "Send Message" }).click();
      await page.getByRole("dialog", { name: "Message Sent Successfully!" }).waitFor({ timeout: 15_000 });

      // A visitor after another, through the proxy, while both instances restart one after the other.
      const site = `https://www.example.com:${httpsPort}`;
      const sent: string[] = [];
      const failures: string[] = [];
      // Set once both instances are back: that many visitors in all, a few more than so far.
      let visitorsInAll = Number.POSITIVE_INFINITY;
      const visitors = (async () => {
        const p = await browser.newPage();
        for (let n = 0; n < visitorsInAll; n++) {
          const name = `Rolling Visitor ${n}`;
          try {
            await p.goto(`${site}/contact`);
            await p.getByLabel("Full Name").fill(name);
            await p.getByLabel("Email Address").fill("rolling@example.org");
            await p.getByRole("textbox", { name: "Message" }).fill(`Question number ${n} during a restart.`);
            await p.getByRole("button", { name: "Send Message" }).click();
            await p.getByRole("dialog", { name: "Message Sent Successfully!" }).waitFor({ timeout: 70_000 });
            sent.push(name);
          } catch (err) {
            failures.push(`${name}: ${(err as Error).message.split("\n")[0]}`);
          }
        }
      })();
      const NEXT_KEY = "pk_public_next_rotation_0001";
      for (const i of [0, 1]) {
        const until = Date.now() + 120_000;
        while (sent.length < 3 * (i + 1) && Date.now() < until) await sleep(100);
        podman("stop", "-t", "15", `teton-proxied-${i}`);
        start(i, { CONTACT_PUBLIC_KEY_PREVIOUS: NEXT_KEY });
        await waitReady(`http://127.0.0.1:${ports[i]}`);
      }
      visitorsInAll = sent.length + failures.length + 3;
      await visitors;
      const deliveredOnce = () =>
        sent.every((name) => smtp.received.filter((m) => m.mail.subject?.endsWith(`— ${name}`)).length === 1);
      for (let i = 0; i < 120 && !deliveredOnce(); i++) await sleep(250);
      check(
        "a rolling restart of both instances behind the proxy while a browser submits: every submission acknowledged and delivered once, no page failed",
        failures.length === 0 && sent.length >= 8 && deliveredOnce(),
        `${sent.length} sent, ${failures.length} failed${failures.length ? `: ${failures.join("; ")}` : ""}`,
      );
      // Both instances now accept the next key (step 1 of a rotation): a page built with it is not refused.
      const nextKeyAnswers: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await p2(site, NEXT_KEY, i);
        nextKeyAnswers.push(res);
      }
      check(
        "after that restart, the next public key is accepted through the proxy (rotation, step 1)",
        nextKeyAnswers.every((s) => s === 201),
        nextKeyAnswers.join(" "),
      );
    } finally {
      await browser.close();
    }
    const leads = () => smtp.received.filter((m) => m.mail.subject?.includes("Proxied Visitor"));
    for (let i = 0; i < 60 && leads().length === 0; i++) await sleep(250);
    await sleep(2_000);
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
    const accessLog = readFileSync(join(dir, "teton.access.log"), "utf8");
    check(
      "the proxy's access log keeps no client address and no query string (the privacy notice)",
      accessLog.includes('"GET /lead"') && !/token-in-the-query|127\.0\.0\.1|\?/.test(accessLog),
      accessLog.split("\n").slice(-3).join(" | "),
    );
  } finally {
    for (const child of children) child.kill("SIGTERM");
    for (let i = 0; i < 2; i++) spawnSync("podman", [...PODMAN, "rm", "-f", `teton-proxied-${i}`]);
    await smtp.stop();
    pg.stop();
  }
}

await main();
