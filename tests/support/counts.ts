import type { Sql } from "../../server/contact/storage/database.ts";
import * as inquiries from "../../server/contact/storage/inquiries.ts";

/** How many inquiries are stored, and how many deliveries have a status, as `inquiries stats` reads them. */
export async function counts(db: Sql) {
  const stats = await inquiries.stats(db, 0);
  const of = (status: string) =>
    stats.deliveries.filter((d) => d.status === status).reduce((n, d) => n + d.count, 0);
  return { inquiries: stats.inquiries.total, sent: of("sent"), pending: of("pending") };
}
