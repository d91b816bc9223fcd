import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { copyOfProject, editFile } from "../support/project-copy.ts";

/**
 * A company publishing its site cannot contradict itself by accident (issue 55): on a copy of the
 * project, `npm run build` for a public SITE_URL stops before anything is built on the spec's facts
 * that disagree, naming each; once the company writes them to agree (or leaves the hour lines to be
 * made from the office hours), the same check lets the build go on. The local build of the spec's
 * own content, as given, is tests/integration/editing.test.ts's.
 */

const _root = process.cwd();
const PUBLIC = "https://www.tetondigital.com";
const copies: string[] = [];

/** A copy of the project with the company's own contact details: only the facts that disagree are left to refuse. */
/** The project with its contact details the company's own: only the facts said twice disagree. */
function copy(): string {
  const dir = copyOfProject("public-facts-");
  copies.push(dir);
  editFile(dir, "app/config/site.ts", 'usPhone("(307) 555-0142")', 'usPhone("(307) 634-0100")');
  editFile(dir, "app/config/site.ts", '"hello@example.com"', '"hello@tetondigital.com"');
  editFile(dir, "app/config/site.ts", '"security@example.com"', '"security@tetondigital.com"');
  return dir;
}

/** A command in the copy, in an editor's shell with the deployment's SITE_URL. */
function run(dir: string, command: string, args: string[]) {
  const { NODE_ENV: _, ...inherited } = process.env;
  const r = spawnSync(command, args, {
    cwd: dir,
    env: { ...inherited, SITE_URL: PUBLIC },
    encoding: "utf8",
    timeout: 120_000,
    killSignal: "SIGKILL",
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

afterAll(() => {
  for (const d of copies) rmSync(d, { recursive: true, force: true });
});

describe("a build for the public site", { timeout: 180_000 }, () => {
  it("refuses the spec's facts that disagree, naming each pair and how to make them agree", () => {
    const r = run(copy(), "npm", ["run", "build"]);
    expect(r.status).toBe(1);
    expect(r.output).toMatch(/The site was not built: 5 mistakes to correct\./);
    for (const line of [
      /^ {2}app\/config\/site\.ts, line \d+, response\.dialogMessage says "within 24 hours", response\.promiseBusinessHours \(the promise the server keeps and reminds by\) is 4: write "within 4 hours" there, or change promiseBusinessHours/m,
      /^ {2}app\/config\/site\.ts, line \d+, phone\.hours says "Monday to Friday 9:00 AM to 5:00 PM MDT", officeHours say Monday – Friday 9:00 AM – 6:00 PM, Saturday 10:00 AM – 2:00 PM: write the hours officeHours say, or leave phone\.hours out/m,
      /^ {2}app\/config\/site\.ts, line \d+, phone\.hours says "MDT", which America\/Denver \(timeZone\) is called only part of the year \(MST the rest of it\), and the line is shown all year: write "MT" or "Mountain Time"/m,
      /^ {2}app\/config\/site\.ts, line \d+, imprint\.supportHours says "Monday to Friday, 9:00 AM to 5:00 PM EST", officeHours say/m,
      /^ {2}app\/config\/site\.ts, line \d+, imprint\.supportHours says "EST", while timeZone is America\/Denver \(Mountain Time\)/m,
    ])
      expect(r.output).toMatch(line);
    expect(r.output).not.toMatch(/^\s+at /m);
    // Stopped before the bundler: nothing was built.
    expect(r.output).not.toMatch(/building|transformed/i);
  });

  it("goes on once they agree: the reply time said as promised, the hour lines left to the office hours", () => {
    const dir = copy();
    editFile(
      dir,
      "app/config/site.ts",
      "We'll get back to you within 24 hours during business days.",
      "We'll get back to you within 4 hours during business days.",
    );
    editFile(dir, "app/config/site.ts", ', hours: "Monday to Friday 9:00 AM to 5:00 PM MDT"', "");
    editFile(
      dir,
      "app/config/site.ts",
      'supportHours: "Monday to Friday, 9:00 AM to 5:00 PM EST",',
      "",
    );
    // The build's own check, as `npm run build` runs it first; then the facts the build reads.
    const checked = run(dir, "npx", ["node", "scripts/content-check.ts"]);
    expect(checked.output).not.toMatch(/not built|disagree/);
    expect(checked.status).toBe(0);
    const r = run(dir, "npx", [
      "node",
      "--input-type=module",
      "-e",
      `const { site } = await import("./app/config/site.ts");
       console.log(JSON.stringify([site.phone.hours, site.imprint.supportHours]));`,
    ]);
    expect(r.output).not.toMatch(/not built|disagree/);
    expect(r.status).toBe(0);
    const line =
      "Monday to Friday 9:00 AM to 6:00 PM and Saturday 10:00 AM to 2:00 PM (Mountain Time)";
    expect(r.output).toContain(JSON.stringify([line, line]));
  });
});
