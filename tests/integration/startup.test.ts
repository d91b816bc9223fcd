import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import pino from "pino";
import type { ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { createMetrics } from "../../server/contact/metrics.ts";
import { BUILD_TIME } from "../../server/env.ts";
import { testKeys } from "../support/keys.ts";
import { freePort } from "../support/ports.ts";
import { json, lines, nextIp, storedCount, valid } from "../support/requests";
import { serverArgs, startServer } from "../support/server";

const root = new URL("../../", import.meta.url).pathname;

/**
 * A deployment as docs/deployment.md lists it: `server.js`, `build/` (but for the part `lacking`)
 * and the sources the server reads beside it.
 */
function deployedCopy(prefix: string, lacking?: string): string {
  const app = mkdtempSync(join(tmpdir(), prefix));
  for (const name of ["app", "server", "db", "node_modules", "package.json"])
    symlinkSync(join(root, name), join(app, name));
  cpSync(join(root, "server.js"), join(app, "server.js"));
  for (const part of ["build/client", "build/server", "build/server-main"].filter(
    (p) => p !== lacking,
  ))
    cpSync(join(root, part), join(app, part), { recursive: true });
  return app;
}

/**
 * `npm start`'s prestart in `app`, with `build` standing in for `npm run build`, and a package.json
 * older than the build: what makes it build is the build's own state.
 */
function withStandInBuild(app: string, build: string) {
  mkdirSync(join(app, "scripts"));
  cpSync(join(root, "scripts/ensure-build.js"), join(app, "scripts/ensure-build.js"));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  pkg.scripts.build = build;
  rmSync(join(app, "package.json")); // the project's own, linked: never written through
  writeFileSync(join(app, "package.json"), JSON.stringify(pkg));
  const older = new Date(Date.now() - 600_000);
  utimesSync(join(app, "package.json"), older, older);
}

/** `node server.js` in `app`: were it to start, it would be somewhere harmless, and not for long. */
const runServerJs = async (app: string) =>
  spawnSync(process.execPath, ["server.js"], {
    cwd: app,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      DATA_DIR: join(app, "data"),
    },
    encoding: "utf8",
    timeout: 10_000,
    killSignal: "SIGKILL",
  });

/** Start-up: what stops it (a busy port, a bad variable) is one log line and a non-zero exit. */

describe("a start that cannot succeed says so in one line", () => {
  it("a second instance on a busy port exits non-zero with one line", async () => {
    const first = await startServer();
    try {
      const second = spawn(process.execPath, ["server.js"], {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: "production",
          SITE_URL: "https://www.example.com",
          PORT: String(first.port),
          HOST: "127.0.0.1",
          // A folder of its own: one in use would refuse first (recovery.test.ts).
          DATA_DIR: mkdtempSync(join(tmpdir(), "busy-port-")),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      second.stdout.on("data", (d) => {
        out += d;
      });
      second.stderr.on("data", (d) => {
        out += d;
      });
      const code = await new Promise<number | null>((r) => second.on("exit", r));
      expect(code).toBe(1);
      const fatal = lines(out).filter((l) => l.level === "fatal");
      expect(fatal).toHaveLength(1);
      expect(fatal[0]?.msg).toMatch(/already in use/);
      expect(out).not.toMatch(/server started/);
      expect(out).not.toMatch(/^\s+at /m);
    } finally {
      await first.stop();
    }
  });

  /** A start that must fail: it exits 1, and its output and fatal lines. */
  const refusedStart = async (env: Record<string, string>) => {
    const err = await startServer(env).then(
      (started) => started.stop().then(() => null),
      (e: Error) => e.message,
    );
    expect(err).toMatch(/server exited \(1\)/);
    const fatal = lines(String(err).replace(/^server exited \(1\):\n/, "")).filter(
      (l) => l.level === "fatal",
    );
    return { err: String(err), fatal };
  };

  it.each([
    ["PORT", "eighty", "PORT: "],
    ["SITE_URL", "www.example.com", "SITE_URL: an http:// or https:// URL"],
  ])("%s=%s stops the start with one line naming the variable", async (name, value, message) => {
    const { err, fatal } = await refusedStart({ [name]: value });
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toMatch(/^Invalid environment: /);
    expect(fatal[0]?.msg).toContain(message);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it.each([
    ["not set, with a relay", "", /^SITE_URL: not set; the links in a lead point at it/],
    [
      "with a path",
      "https://www.teton.test/site",
      /^SITE_URL: has a path, query or fragment \(\/site\)/,
    ],
    ["with user:password", "https://ops:secret@www.teton.test", /^SITE_URL: has user:password/],
    ["over http", "http://www.teton.test", /^SITE_URL: http:\/\/ would send the links in a lead/],
  ])("SITE_URL %s stops the start with one line saying why", async (_what, value, said) => {
    // A relay: the links leave this machine.
    const { err, fatal } = await refusedStart({
      SITE_URL: value,
      SMTP_URL: "smtp://127.0.0.1:2525",
    });
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toMatch(said);
    expect(err).not.toMatch(/server started/);
  });

  it("SITE_URL over http to this machine (localhost, 127.0.0.1, ::1) starts; unset, so does `npm start` on a laptop, whose leads stay in DATA_DIR/mail", async () => {
    for (const value of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]", ""]) {
      const started = await startServer({
        SITE_URL: value,
        SMTP_URL: value ? "smtp://127.0.0.1:2525" : "",
      });
      expect(started.output(), value).toContain("server started");
      await started.stop();
    }
  });

  it("`node server.js` on an old Node says in one line what it needs", async () => {
    // This Node 24, told it is Node 20 before server.js runs: the check reads process.versions.
    const claim20 =
      'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.19.0"})';
    const run = spawnSync(process.execPath, ["--import", claim20, "server.js"], {
      cwd: root,
      // Were the check to let it through, the server would start: somewhere harmless, and not for long.
      env: {
        ...process.env,
        HOST: "127.0.0.1",
        PORT: String(await freePort()),
        DATA_DIR: mkdtempSync(join(tmpdir(), "old-node-")),
      },
      encoding: "utf8",
      timeout: 5_000,
      killSignal: "SIGKILL",
    });
    expect(run.status).toBe(1);
    const said = run.stderr.trim().split("\n");
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /needs Node 24 or newer; this is Node 20\.19\.0\. Run it with `npm start`/,
    );
    expect(run.stdout).toBe("");
  });

  it("a server without either part of its build (the pages' server build, its own bundle) says so in one line", async () => {
    for (const lacking of ["build/server", "build/server-main"]) {
      const app = deployedCopy("no-build-", lacking);
      const run = await runServerJs(app);
      expect(run.status, lacking).toBe(1);
      expect(run.stderr.trim().split("\n"), lacking).toEqual([
        `No complete build (${lacking}/files.json missing): run \`npm run build\` first (npm start does it for you).`,
      ]);
      expect(run.stdout, lacking).toBe("");
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("a build missing a chunk, with one cut short, or stopped before its list is written is refused in one line, before anything starts; `npm start` builds it again", async () => {
    const app = deployedCopy("half-built-");
    const bundle = join(app, "build/server-main");
    // A chunk loaded only after the first page (the contact pipeline's): unchecked, the server would
    // say "server started", then die.
    const chunk =
      Object.keys(JSON.parse(readFileSync(join(bundle, "files.json"), "utf8"))).find((f) =>
        f.startsWith("pipeline-"),
      ) ?? "";
    expect(chunk).not.toBe("");
    const whole = (file: string) => cpSync(join(root, file), join(app, file));
    const cases: Array<[string, () => void, string, string]> = [
      [
        "a chunk missing",
        () => rmSync(join(bundle, chunk)),
        `build/server-main/${chunk} missing`,
        `build/server-main/${chunk}`,
      ],
      [
        "a chunk cut short",
        () => truncateSync(join(bundle, chunk), 100),
        `build/server-main/${chunk} not as built`,
        `build/server-main/${chunk}`,
      ],
      [
        "no list of the pages' server build",
        () => rmSync(join(app, "build/server/files.json")),
        "build/server/files.json missing",
        "build/server/files.json",
      ],
    ];
    for (const [what, breakIt, said, file] of cases) {
      breakIt();
      const run = await runServerJs(app);
      expect(run.status, what).toBe(1);
      expect(run.stderr.trim().split("\n"), what).toEqual([
        `No complete build (${said}): run \`npm run build\` first (npm start does it for you).`,
      ]);
      expect(run.stdout, what).toBe("");
      whole(file);
    }

    // `npm start` on it, the chunk gone: its prestart builds again (here: puts the build back), and it starts.
    rmSync(join(bundle, chunk));
    // Only the build's state can make it build.
    withStandInBuild(
      app,
      `node -e 'require("fs").cpSync(${JSON.stringify(join(root, "build/server-main"))}, "build/server-main", { recursive: true }); console.log("BUILT")'`,
    );
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      cwd: app,
      env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: join(app, "data") },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: npm and the server it starts are stopped together.
      detached: true,
    });
    let out = "";
    const started = new Promise<boolean>((resolve) => {
      const read = (d: Buffer) => {
        out += d;
        if (out.includes("server started")) resolve(true);
      };
      npm.stdout.on("data", read);
      npm.stderr.on("data", read);
      npm.once("exit", () => resolve(false));
    });
    const exited = new Promise((r) => npm.once("exit", r));
    try {
      expect(await started, out).toBe(true);
      expect(out).toContain(`No complete build (build/server-main/${chunk} missing): building…`);
      expect(out).toMatch(/building…\n[\s\S]*\nBUILT\n[\s\S]*server started/);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      if (npm.exitCode === null) process.kill(-(npm.pid ?? 0), "SIGTERM");
      await exited;
      // npm may go first: the server, in the same process group, exits before its DATA_DIR goes.
      const groupAlive = () => {
        try {
          return process.kill(-(npm.pid ?? 0), 0);
        } catch {
          return false;
        }
      };
      await expect.poll(groupAlive, { timeout: 20_000 }).toBe(false);
      rmSync(app, { recursive: true, force: true });
    }
  }, 120_000);

  it("a build whose entry does not hand over the contact context stops the start (the no-JavaScript form would fail)", async () => {
    const build = (await import(join(root, "build/server/index.js"))) as ServerBuild;
    const make = (entry: ServerBuild["entry"]) => () =>
      createApp({
        config: loadConfig({}),
        log: pino({ level: "silent" }),
        build: Promise.resolve({ ...build, entry }),
        files: new Map(),
        notFound: [],
        tokens: testKeys().tokens,
        links: testKeys().links,
        metrics: createMetrics(),
        runtime: {
          submit: async () => ({ kind: "key-reused" }),
          pipeline: () => {
            throw new Error("no pipeline in this test");
          },
          leaveRotation: () => {},
          readiness: async () => ({ ready: true }),
          close: async () => {},
        },
      });
    // The real build hands it over (app/entry.server.tsx exports it): the app is made.
    expect("contactContext" in build.entry.module).toBe(true);
    await expect(make(build.entry)().ready).resolves.toBeUndefined();
    // Without that export, the start is refused with one line that says where it belongs.
    const { contactContext: _, ...withoutKey } = build.entry.module as unknown as Record<
      string,
      unknown
    >;
    await expect(
      make({ module: withoutKey as unknown as ServerBuild["entry"]["module"] })().ready,
    ).rejects.toThrow(/contactContext from app\/entry\.server\.tsx/);
  });
});

/**
 * The contact pipeline starts once the first answer is out (or the server has listened idle a
 * moment, here turned long): a message sent before that waits for the start instead of a 503.
 */
it("a message sent before the contact pipeline has started waits for it and is stored", async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "first-post-"));
  const child = spawn(process.execPath, serverArgs({ START_WHEN_IDLE_MS: 600_000 }), {
    cwd: root,
    env: {
      ...process.env,
      SITE_URL: "https://www.example.com",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const exited = new Promise((r) => child.once("exit", r));
  try {
    await expect.poll(() => out, { timeout: 20_000 }).toContain("server started");
    // The first request the server gets.
    const sent = fetch(`http://127.0.0.1:${port}/functions/v1/send-email`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": nextIp() },
      body: JSON.stringify(valid),
    });
    let status: number | null = null;
    sent.then(
      (r) => {
        status = r.status;
      },
      () => undefined,
    );
    await expect
      .poll(() => (status === null ? out : `answered ${status} at once`), { timeout: 20_000 })
      .toContain("a message waits for the contact pipeline to start");
    expect(out).not.toContain("contact pipeline ready");
    // A page answered: the pipeline starts, and the waiting message goes in.
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    const res = await sent;
    expect(res.status).toBe(201);
    expect(out.indexOf("contact pipeline ready")).toBeGreaterThan(out.indexOf("a message waits"));
    expect(storedCount(dataDir)).toBe(1);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}, 60_000);

/**
 * `npm start` runs scripts/ensure-build.js first: it builds when the server's build is missing, not
 * whole (what server.js refuses), or older than what it is made of, the locked dependencies included
 * (the server's bundle carries them: a patched dependency installed from package-lock.json alone must
 * reach it).
 */
it("npm start builds first when the build is missing, partial, or older than the sources or the lockfile", () => {
  const project = mkdtempSync(join(tmpdir(), "ensure-build-"));
  mkdirSync(join(project, "scripts"));
  cpSync(join(root, "scripts/ensure-build.js"), join(project, "scripts/ensure-build.js"));
  cpSync(join(root, "server.js"), join(project, "server.js"));
  // A build that writes both parts, each with its list of files, and the record of the build-time
  // variables it read (none), and says so.
  writeFileSync(
    join(project, "fake-build.js"),
    `import { mkdirSync, writeFileSync } from "node:fs";
for (const [part, files] of Object.entries({ "build/server": { "index.js": "x" }, "build/server-main": { "main.js": "x", "chunk-a.js": "xy" } })) {
  mkdirSync(part, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(\`\${part}/\${name}\`, text);
  writeFileSync(\`\${part}/files.json\`, JSON.stringify(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, t.length]))));
}
writeFileSync("build/server/build-time.json", "{}");
console.log("BUILT");
`,
  );
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ type: "module", scripts: { build: "node fake-build.js" } }),
  );
  writeFileSync(join(project, "package-lock.json"), "{}");
  mkdirSync(join(project, "server"));
  writeFileSync(join(project, "server/main.ts"), "");
  const start = () => {
    const r = spawnSync(process.execPath, ["scripts/ensure-build.js"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.includes("BUILT");
  };
  // Every source made long ago; one of them, or the lockfile, edited after the build. On the clock
  // that dates the build's outputs, the file system's: this process's may be another (faketime).
  const now = () => {
    writeFileSync(join(project, "now"), "");
    return statSync(join(project, "now")).mtimeMs;
  };
  const at = (file: string, ms: number) =>
    utimesSync(join(project, file), new Date(ms), new Date(ms));
  const sources = ["package.json", "package-lock.json", "server/main.ts", "server"];
  for (const file of sources) at(file, now() - 120_000);
  const editedAfterTheBuild = (file: string) => {
    at(file, now() + 60_000);
    const built = start();
    at(file, now() - 120_000);
    return built;
  };
  expect(start()).toBe(true);
  expect(start()).toBe(false);
  expect(editedAfterTheBuild("server/main.ts")).toBe(true);
  expect(start()).toBe(false);
  expect(editedAfterTheBuild("package-lock.json")).toBe(true);
  expect(start()).toBe(false);
  // Half a build: the server's bundle gone, a chunk of it gone or cut short, a part's list not
  // written (the build stopped before its end). Built again, not started without it.
  const halfBuilt = [
    () => rmSync(join(project, "build/server-main"), { recursive: true }),
    () => rmSync(join(project, "build/server-main/chunk-a.js")),
    () => truncateSync(join(project, "build/server-main/chunk-a.js"), 1),
    () => rmSync(join(project, "build/server/files.json")),
  ];
  for (const [i, breakIt] of halfBuilt.entries()) {
    breakIt();
    expect(start(), `half built, case ${i}`).toBe(true);
    expect(start(), `half built, case ${i}, then whole`).toBe(false);
  }
  rmSync(project, { recursive: true, force: true });
});

/**
 * Only the build-time variables (server/env.ts BUILD_TIME) are baked into the build: `npm start`
 * compares what the build read of them (build/server/build-time.json, written by scripts/postbuild.js)
 * with `.env` and the environment now, so a changed relay is a restart, never a build while nothing serves.
 */
it("npm start builds again when a build-time variable changed (SITE_URL), not for another line of .env (SMTP_URL)", () => {
  const app = deployedCopy("build-time-");
  // Only the build-time variables can make it build.
  withStandInBuild(app, "echo BUILT");
  // What this project's `npm run build` read, now written in .env; the environment sets none of it.
  const recorded = JSON.parse(
    readFileSync(join(app, "build/server/build-time.json"), "utf8"),
  ) as Record<string, string | null>;
  expect(Object.keys(recorded).sort()).toEqual([...BUILD_TIME].sort());
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in recorded)));
  const start = (dotenv: Record<string, string | null>) => {
    const lines = Object.entries({ ...recorded, ...dotenv }).filter(([, v]) => v !== null);
    writeFileSync(join(app, ".env"), lines.map(([k, v]) => `${k}=${v}\n`).join(""));
    const r = spawnSync(process.execPath, ["scripts/ensure-build.js"], {
      cwd: app,
      env,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  try {
    expect(start({ SMTP_URL: "smtp://relay-a.example.com:587" })).toBe("");
    expect(
      start({ SMTP_URL: "smtp://relay-b.example.com:587", CONTACT_TO: "sales@example.com" }),
    ).toBe("");
    const built = start({
      SMTP_URL: "smtp://relay-b.example.com:587",
      SITE_URL: "https://www.changed.test",
    });
    expect(built).toMatch(/^SITE_URL changed since the last build: building…\n[\s\S]*BUILT/);
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
});

it("a start on SQLite whose leads leave the machine warns in one line when DATA_DIR is relative (a release's own folder)", async () => {
  // Relative to the project's folder, yet a fresh folder of this test's.
  const relativeDir = () => relative(root, mkdtempSync(join(tmpdir(), "relative-data-")));
  const relay = { SMTP_URL: "smtp://127.0.0.1:2525" };
  const warned = async (env: Record<string, string>) => {
    const started = await startServer(env);
    try {
      return lines(await started.logged()).filter(
        (l) => l.level === "warn" && /DATA_DIR is relative/.test(String(l.msg)),
      );
    } finally {
      await started.stop();
    }
  };
  const dir = relativeDir();
  const said = await warned({ ...relay, DATA_DIR: dir });
  expect(said).toHaveLength(1);
  expect(said[0]?.msg).toContain(`DATA_DIR is relative (${dir})`);
  expect(said[0]?.msg).toContain("/var/lib/teton");
  // An absolute folder (the image's /data), or leads that stay on this machine (a laptop's npm start): no word.
  expect(
    await warned({ ...relay, DATA_DIR: mkdtempSync(join(tmpdir(), "absolute-data-")) }),
  ).toHaveLength(0);
  expect(await warned({ SMTP_URL: "", DATA_DIR: relativeDir() })).toHaveLength(0);
}, 120_000);
