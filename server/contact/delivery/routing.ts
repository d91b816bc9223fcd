import { site } from "../../../app/config/site.ts";
import type { Config } from "../../config.ts";
import { isLoopbackHost } from "../../guards.ts";
import { timeOrderedId } from "../intake/ids.ts";
import { promiseMs } from "../review/promise.ts";
import type { Sql } from "../storage/database.ts";
import type { NewDelivery } from "../storage/records.ts";
import { readSetting, writeSetting } from "../storage/settings.ts";
import { CHANNELS, channelNamed } from "./channels.ts";

/**
 * Leads routed by service line (CONTACT_ROUTES, "none" when no service is chosen); what a route does
 * not name goes to the general recipients. The privacy notice names who receives leads and the hosts
 * each uses (site.privacy.processors): a configuration that would send a lead to a channel or host it
 * does not name is refused at start, in one line (a loopback host is ours). A reminder is due when the
 * promise may be up (business time never runs faster than the clock); the worker puts it off to then.
 */

type Destination = { channel: string; target: string };
export type Routing = Record<string, Destination[]>;

export function routingOf(config: Config): Routing {
  const destinations = (key: string): Destination[] =>
    CHANNELS.flatMap((c) => {
      const target = c.targetFor(config, key);
      return target ? [{ channel: c.name, target }] : [];
    });
  return Object.fromEntries(
    ["default", ...Object.keys(config.routes)].map((key) => [key, destinations(key)]),
  );
}

/**
 * The server reads its routing from its configuration alone, and records it in the database at
 * start for the CLI, which may run from a shell without the server's settings: "Not spam" from any
 * shell queues what the server would.
 */
export const recordRouting = (sql: Sql, routing: Routing) =>
  writeSetting(sql, "routing", JSON.stringify(routing));
export async function recordedRouting(sql: Sql): Promise<Routing | null> {
  const recorded = await readSetting(sql, "routing");
  return recorded ? (JSON.parse(recorded) as Routing) : null;
}

export const channelsOf = (routing: Routing) => [
  ...new Set(Object.values(routing).flatMap((ds) => ds.map((d) => d.channel))),
];

type NamedProcessor = { name: string; hosts: readonly string[] };

export function hostNamed(host: string, hosts: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return hosts.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith("*.") ? h.endsWith(e.slice(1)) && h.length > e.length - 1 : h === e;
  });
}

export function unnamedProcessors(
  config: Config,
  named: Record<string, NamedProcessor>,
): string | undefined {
  const used = channelsOf(routingOf(config));
  const unnamed = used.filter((c) => !Object.hasOwn(named, c));
  if (unnamed.length > 0)
    return `The privacy notice does not name who receives leads through ${unnamed.join(", ")}: add ${unnamed.map((c) => `privacy.processors.${c}`).join(", ")} to app/config/site.ts and rebuild, or leave that channel unset`;
  for (const c of used) {
    const processor = named[c] as NamedProcessor;
    for (const { host, setting } of channelNamed(c)?.hostsOf(config) ?? []) {
      if (isLoopbackHost(host) || hostNamed(host, processor.hosts)) continue;
      return `${setting} sends leads to ${host}, a host the privacy notice does not name for ${c} (${processor.name}: ${processor.hosts.join(", ")}): if ${host} is theirs, add it to privacy.processors.${c}.hosts in app/config/site.ts; if it is another provider's, name that provider there; then rebuild. Or point ${setting} at a named host`;
    }
  }
  return undefined;
}

export const destinationsFor = (routing: Routing, service: string): Destination[] =>
  routing[service || "none"] ?? routing.default ?? [];

export function newDeliveries(
  routing: Routing,
  inquiry: { id: string; receivedAt: number; service: string },
  config: Config,
  now: number,
): NewDelivery[] {
  const destinations = destinationsFor(routing, inquiry.service);
  const leads = destinations.map(
    ({ channel, target }): NewDelivery => ({
      id: timeOrderedId(now),
      channel,
      target,
      messageId: channelNamed(channel)?.deliveryId?.(inquiry.id, config) ?? `msg_${inquiry.id}`,
    }),
  );
  // The at-risk warning to the route's people, where they read (reminders.ts puts it off to its time).
  const atRisk = destinations
    .filter((d) => d.channel === "email" || d.channel === "slack")
    .map(
      ({ channel, target }): NewDelivery => ({
        id: timeOrderedId(now),
        kind: "at-risk",
        channel,
        target,
        messageId: `at-risk-${inquiry.id}`,
        at: inquiry.receivedAt + site.response.atRiskShare * promiseMs(),
      }),
    );
  const email = destinations.find((d) => d.channel === "email");
  if (!email) return [...leads, ...atRisk];
  const messageId = `<reminder-${inquiry.id}@${config.siteHost}>`;
  const at = inquiry.receivedAt + promiseMs();
  return [
    ...leads,
    ...atRisk,
    {
      id: timeOrderedId(now),
      kind: "reminder",
      channel: "email",
      target: email.target,
      messageId,
      at,
    },
  ];
}
