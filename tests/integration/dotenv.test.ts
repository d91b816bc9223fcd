import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * `.env` means the same thing to the build as to the server, and the documented
 * production command says in one line what it needs on an old Node. On a copy of the repository
 * (its tracked files, this node_modules), as a new user would run it.
 */

const root = new URL("../../", import.meta.url).pathname;
const copy = mkdtempSync(join(tmpdir(), "dotenv-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe("configuration that means what it says", () => {
  it("SITE_URL in .env reaches the canonical links, the sitemap and the social images of the build", () => {
    // The files git tracks, and new ones it does not ignore: the working tree as a clone would have it.
    const files = execFileSync(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      {
        cwd: root,
        encoding: "utf8",
      },
    )
      .split("\0")
      .filter((f) => f && existsSync(join(root, f)));
    for (const f of files) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      copyFileSync(join(root, f), join(copy, f));
    }
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    writeFileSync(
      join(copy, ".env"),
      "# as .env.example invites\nSITE_URL=https://www.teton-dotenv.test\n",
    );
    const env = { ...process.env };
    delete env.SITE_URL;
    const build = spawnSync("npm", ["run", "build"], {
      cwd: copy,
      env,
      encoding: "utf8",
      timeout: 180_000,
    });
    expect(build.status, build.stderr.slice(-2000)).toBe(0);
    const home = readFileSync(join(copy, "build/client/index.html"), "utf8");
    expect(home).toContain('<link rel="canonical" href="https://www.teton-dotenv.test/"');
    expect(home).toContain('content="https://www.teton-dotenv.test/social/');
    expect(home).not.toContain("https://www.example.com");
    expect(readFileSync(join(copy, "build/client/sitemap.xml"), "utf8")).toContain(
      "<loc>https://www.teton-dotenv.test/services</loc>",
    );
  }, 240_000);
});
