import type { TestProject } from "vitest/node";
import { startPostgres } from "./postgres.ts";

/** One PostgreSQL server for the whole run (or the one TEST_DATABASE_URL names). */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide("pgAdminUrl", process.env.TEST_DATABASE_URL);
    return;
  }
  const pg = await startPostgres();
  project.provide("pgAdminUrl", pg.url);
  return () => pg.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}
