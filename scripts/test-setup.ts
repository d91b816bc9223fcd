import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * What `npm test` needs from the system, checked before it starts (the `pretest` script): npm brings
 * Node, the rest of the JavaScript and PostgreSQL's server (tests/support/postgres.ts); these come from
 * Debian's packages. As root on Debian or Ubuntu the missing ones are installed with apt-get; otherwise
 * one line names them. Nothing is run when all are there. The one list of the tests' system packages
 * (`.ci/run` adds only what `npm run test:deploy` needs).
 */

const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const needs = [
  // The end-to-end tests and the browser in the integration tests (Playwright cannot download its own here).
  {
    name: "Chromium",
    pkg: "chromium",
    there: () => executable(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
  },
  // The W3C Nu HTML Checker (vnu-jar) that validates every built page.
  { name: "Java", pkg: "default-jre-headless", there: () => onPath("java") },
  // The backup recipe of docs/deployment.md, run as written (tests/integration/recovery.test.ts, test:deploy).
  {
    name: "PostgreSQL's client tools",
    pkg: "postgresql-client-15",
    there: () =>
      ["pg_dump", "pg_restore", "createdb"].every((tool) => executable(join(pgBin, tool))),
  },
  // A controlled clock for the server and the CLI (the booking, digest, editing and lead-link tests preload it).
  {
    name: "faketime",
    pkg: "faketime",
    there: () => existsSync("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
  },
  // `convert` makes the test photos (tests/unit/photos.test.ts, tests/integration/editing.test.ts).
  { name: "ImageMagick", pkg: "imagemagick", there: () => onPath("convert") },
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .some((dir) => dir !== "" && executable(join(dir, command)));
}

function apt(args: string[]): void {
  const run = spawnSync("apt-get", args, {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (run.status !== 0)
    throw new Error(`apt-get ${args.join(" ")} failed (${run.status ?? run.signal})`);
}

let missing = needs.filter((need) => !need.there());
if (missing.length > 0 && process.getuid?.() === 0 && executable("/usr/bin/apt-get")) {
  console.log(
    `Installing what the tests need: ${missing.map((need) => need.pkg).join(" ")} (apt-get)`,
  );
  apt(["update", "-qq"]);
  apt(["install", "-y", "-qq", ...missing.map((need) => need.pkg)]);
  missing = missing.filter((need) => !need.there());
}
if (missing.length > 0) {
  const names = missing.map((need) => need.name);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  const sudo = process.getuid?.() === 0 ? "" : "sudo ";
  console.error(
    `The tests need ${list}: ${sudo}apt-get install ${missing.map((need) => need.pkg).join(" ")}`,
  );
  process.exit(1);
}
