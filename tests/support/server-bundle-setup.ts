import { execFileSync } from "node:child_process";

/** The server the tests start is the build's bundle (ADR 0030): bundled again from the sources under test. */
export default function setup() {
  const root = new URL("../../", import.meta.url).pathname;
  const vite = `${root}node_modules/vite/bin/vite.js`;
  execFileSync(
    process.execPath,
    [vite, "build", "--config", "vite.server.config.ts", "--logLevel", "warn"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
}
