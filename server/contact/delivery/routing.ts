import type { Config } from "../../config.ts";
import { timeOrderedId } from "../intake/ids.ts";
import type { NewDelivery } from "../storage/records.ts";
import { CHANNELS, channelNamed } from "./channels.ts";

/**
 * Leads routed by service line (CONTACT_ROUTES): each service (or "none", no service chosen) may
 * have its own email recipients and receivers; anything it does not name goes to the general ones.
 * A delivery's target is what its channel says (delivery/channel.ts: `targetFor`).
 */

/** One channel's share of a lead: the channel, and its target there. */
export type Destination = { channel: string; target: string };
/** The destinations of a lead, per route key ("default", a service, "none"): what the server records for `release`. */
export type Routing = Record<string, Destination[]>;

export function routingOf(config: Config): Routing {
  const destinations = (key: string): Destination[] =>
    CHANNELS.flatMap((c) => {
      const target = c.targetFor(config, key);
      return target ? [{ channel: c.name, target }] : [];
    });
  return Object.fromEntries(["default", ...Object.keys(config.routes)].map((key) => [key, destinations(key)]));
}

/** The channels a routing sends leads through. */
export const channelsOf = (routing: Routing) => [
  ...new Set(Object.values(routing).flatMap((ds) => ds.map((d) => d.channel))),
];

/**
 * The privacy notice names who receives leads (site.privacy.processors, by channel): what this
 * configuration would send through a channel it does not name, one line; nothing when all is named.
 */
export function unnamedProcessors(config: Config, named: Record<string, unknown>): string | undefined {
  const unnamed = channelsOf(routingOf(config)).filter((c) => !Object.hasOwn(named, c));
  if (unnamed.length === 0) return undefined;
  return `The privacy notice does not name who receives leads through ${unnamed.join(", ")}: add ${unnamed.map((c) => `privacy.processors.${c}`).join(", ")} to app/config/site.ts and rebuild, or leave that channel unset`;
}

/** Where a lead for `service` goes ("" is no service chosen). */
export const destinationsFor = (routing: Routing, service: string): Destination[] =>
  routing[service || "none"] ?? routing.default ?? [];

/** An inquiry's deliveries, one per destination, each with the id it carries on every attempt. */
export function newDeliveries(destinations: Destination[], inquiryId: string, config: Config, now = Date.now()) {
  return destinations.map(
    ({ channel, target }): NewDelivery => ({
      id: timeOrderedId(now),
      channel,
      target,
      messageId: channelNamed(channel)?.deliveryId?.(inquiryId, config) ?? `msg_${inquiryId}`,
    }),
  );
}
