import type { ReviewAction } from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { destinationsFor, newDeliveries, type Routing } from "../delivery/routing.ts";
import type { Database } from "../storage/database.ts";
import { type Marked, markSpam, release, undo } from "../storage/inquiries.ts";
import { readSetting } from "../storage/settings.ts";
import { type Taken, take } from "../storage/taken.ts";

/**
 * The company's two actions on an inquiry, one implementation for the signed links in a lead
 * (page.ts) and for the CLI (`inquiries spam ID`, `release ID`):
 * - "spam": the filter learns it as spam; held from now on; deliveries not made yet are cancelled.
 * - "release" (not spam): the filter learns it is not spam; a held one is delivered as its
 *   service's leads are routed now (to channels that have not had it).
 * - "take" ("I'm on it"): records who (the name given, if any) and when; its reminder no longer goes.
 * All are idempotent: done twice, the second changes nothing (`changed: false`; a take says who was first).
 * Undo puts back exactly what the last Spam or Not spam changed (the mark as it was: none if there was
 * none); a take has no undo (the others may already have read who is on it).
 */

export type ActionResult =
  | { kind: "done"; marked: Marked }
  | { kind: "taken"; taken: Taken }
  | { kind: "unknown" }
  | { kind: "no-routing" };

export async function performAction(
  db: Database,
  config: Config,
  action: ReviewAction,
  id: string,
  now = Date.now(),
  opts: { undo?: boolean; by?: string | null } = {},
): Promise<ActionResult> {
  if (action === "take") {
    const taken = await take(db, id, opts.by ?? null, now);
    return taken ? { kind: "taken", taken } : { kind: "unknown" };
  }
  if (action === "spam" && !opts.undo) {
    const marked = await markSpam(db, id, now);
    return marked ? { kind: "done", marked } : { kind: "unknown" };
  }
  // Where the server sends each service's leads (it records that at start), not this process's environment.
  const recorded = await readSetting(db, "routing");
  const routing = recorded ? (JSON.parse(recorded) as Routing) : null;
  if (!routing) return { kind: "no-routing" };
  const destinations = (inquiry: { service: string }) =>
    newDeliveries(destinationsFor(routing, inquiry.service), id, config, now);
  const marked = opts.undo ? await undo(db, id, action, destinations, now) : await release(db, id, destinations, now);
  return marked ? { kind: "done", marked } : { kind: "unknown" };
}
