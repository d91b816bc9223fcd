import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests in Debian's Chromium (Playwright cannot download browsers here) against the
 * production build served by server.js. `npm test` builds first.
 */
export const PORT = Number(process.env.E2E_PORT ?? 4173);
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
  reporter: process.env.CI ? [["list"]] : [["list"]],
  timeout: 30_000,
  use: {
    baseURL: BASE_URL,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: chromiumArgs },
  },
  webServer: {
    command: "node server.js",
    url: `${BASE_URL}/healthz`,
    reuseExistingServer: false,
    timeout: 30_000,
    env: { PORT: String(PORT), HOST: "127.0.0.1", NODE_ENV: "production", DATA_DIR: "build/e2e-data" },
    stdout: "ignore",
    stderr: "pipe",
  },
});
