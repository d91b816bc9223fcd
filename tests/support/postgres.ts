import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

/**
 * A throwaway PostgreSQL 15 server for the tests: its own data folder and socket folder, bound to
 * 127.0.0.1 on a free port, stopped by its PID file when the tests end. As root (CI here), initdb
 * must run as the `postgres` user.
 */

const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export async function startPostgres(): Promise<{ url: string; dataDir: string; stop: () => void }> {
  if (!existsSync(join(BIN, "initdb"))) {
    throw new Error(
      `PostgreSQL server binaries not found in ${BIN}: install Debian's postgresql package, or set TEST_DATABASE_URL.`,
    );
  }
  const root = mkdtempSync(join(tmpdir(), "pg-test-"));
  const data = join(root, "data");
  const log = join(root, "server.log");
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  // The real clock, in a test run under faketime: libfaketime keeps its lock_timeout from ever
  // firing, and the application takes no time from the database.
  const preload = (process.env.LD_PRELOAD ?? "").split(/[: ]/).filter((lib) => lib && !lib.includes("libfaketime"));
  const env = { ...process.env, LD_PRELOAD: preload.join(":") };
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", join(BIN, cmd), ...args], { stdio: "pipe", env })
      : execFileSync(join(BIN, cmd), args, { stdio: "pipe", env });
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(root, uid, gid);
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
