import { defineConfig } from "vitest/config";
import { CONTACT_API_PATH } from "./app/contact/api.ts";

// The operator CLI the tests run (server/cli.ts, over a hundred times) strips and compiles the same
// TypeScript each time: Node's compile cache, the one server.js enables for itself, does it once.
// Set here, every worker and every process it starts inherits it.
process.env.NODE_COMPILE_CACHE ??= new URL(
  "node_modules/.cache/node-compile/",
  import.meta.url,
).pathname;

/**
 * Two projects: `unit` (no server, no database: `npm run test:unit`, seconds) and `integration`
 * (the production server, a real PostgreSQL server the global setup starts — or
 * TEST_DATABASE_URL — a real SMTP server, Chromium: `npm run test:integration`). `npm test` runs both.
 */
export default defineConfig({
  define: {
    __SITE_URL__: JSON.stringify("https://www.example.com"),
    __CONTACT_ENDPOINT__: JSON.stringify(CONTACT_API_PATH),
    __CONTACT_PUBLIC_KEY__: JSON.stringify(""),
  },
  test: {
    environment: "node",
    // Vitest's default on 2 cores is one file at a time; integration files mostly wait on the servers,
    // databases and browsers they start: two at once took the integration run from 614 s to 363-495 s here.
    maxWorkers: 2,
    testTimeout: 30_000,
    // A hook stops servers and drops databases: on a machine whose cores are all busy that outlasts 10 s.
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          globalSetup: [
            "tests/support/server-bundle-setup.ts",
            "tests/support/integration-postgres-setup.ts",
          ],
        },
      },
    ],
  },
});
