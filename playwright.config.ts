import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests in Debian's Chromium (Playwright cannot download browsers here) against the
 * production build served by server.js, with a real SMTP server receiving the contact emails. The
 * global setup starts both (tests/e2e/site-and-smtp-setup.ts). `npm test` builds first.
 */
export const PORT = Number(process.env.E2E_PORT ?? 4173);
// Set once in the runner; the global setup and the test workers inherit them.
process.env.E2E_SMTP_PORT ??= String(PORT + 1);
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "e2e-"));
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: "list",
  timeout: 30_000,
  use: {
    baseURL: BASE_URL,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: chromiumArgs,
    },
  },
  globalSetup: "./tests/e2e/site-and-smtp-setup.ts",
});
