import type { ReviewAction } from "../../../app/contact/lead.ts";
import type { Config } from "../../config.ts";
import { destinationsFor, newDeliveries, type Routing } from "../delivery/routing.ts";
import type { Database } from "../storage/database.ts";
import { type Marked, markSpam, notSpam, type Taken, take, undo } from "../storage/inquiries.ts";
import type { Inquiry } from "../storage/records.ts";
import { readSetting } from "../storage/settings.ts";
import { reportOf } from "./reminders.ts";

/**
 * The company's actions on an inquiry, one implementation for the signed links in a lead (page.ts)
 * and for the CLI. All are idempotent: done twice, the second changes nothing (`changed: false`; a
 * take says who was first). Undo puts back exactly what the last Spam or Not spam changed; a take
 * has no undo (the others may already have read who is on it). Where a lead goes is where the server
 * sends each service's leads (it records that at start), not this process's environment.
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
  if (action === "spam" && !opts.undo) {
    const marked = await markSpam(db, id, now);
    return marked ? { kind: "done", marked } : { kind: "unknown" };
  }
  const recorded = await readSetting(db, "routing");
  const routing = recorded ? (JSON.parse(recorded) as Routing) : null;
  if (action === "take") {
    const reports = (i: Inquiry) => (routing ? reportOf("inquiry.taken", i, routing, now) : []);
    const taken = await take(db, id, opts.by ?? null, now, reports);
    return taken ? { kind: "taken", taken } : { kind: "unknown" };
  }
  if (!routing) return { kind: "no-routing" };
  const destinations = (inquiry: { id: string; service: string; receivedAt: number }) =>
    newDeliveries(destinationsFor(routing, inquiry.service), inquiry, config, now);
  const marked = opts.undo ? await undo(db, id, action, destinations, now) : await notSpam(db, id, destinations, now);
  return marked ? { kind: "done", marked } : { kind: "unknown" };
}
