import { execFile } from "node:child_process";
import { promisify } from "node:util";

const root = new URL("../../", import.meta.url).pathname;
const run = promisify(execFile);

/** `npm run inquiries -- …` as an operator runs it (server/cli.ts), with `env` over this process's: what it printed and its exit code. */
export async function inquiriesCli(env: Record<string, string>, ...args: string[]) {
  const r = await run(process.execPath, ["server/cli.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  }).then(
    (ok) => ({ ...ok, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => e,
  );
  return { out: r.stdout, err: r.stderr, code: r.code };
}
