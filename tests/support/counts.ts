import type { Store } from "../../server/contact/storage/store.ts";

/** How many inquiries are stored, and how many deliveries have a status, as `inquiries stats` reads them. */
export async function counts(store: Store) {
  const { inquiries, deliveries } = await store.operator.stats(0);
  const of = (status: string) => deliveries.filter((d) => d.status === status).reduce((n, d) => n + d.count, 0);
  return { inquiries: inquiries.total, sent: of("sent"), pending: of("pending") };
}
