import type { ContactConfig } from "../config.ts";
import type { ChannelName } from "../storage/records.ts";

/**
 * Leads routed by service line (CONTACT_ROUTES): each service (or "none", no service chosen) may
 * have its own email recipients, Slack and webhook receivers; anything it does not name goes to the
 * general ones. A delivery's target is the email recipients, or the route whose receiver it uses.
 */

export type Target = { channel: ChannelName; target: string };
/** The targets of a lead, per route key ("default", a service, "none"): what the server records for `release`. */
export type Routing = Record<string, Target[]>;

export function routingOf(config: Pick<ContactConfig, "mailTo" | "routes" | "slack" | "webhook">): Routing {
  const targets = (key: string): Target[] => {
    const route = config.routes[key];
    const list: Target[] = [{ channel: "email", target: route?.to ?? config.mailTo }];
    if (route?.webhook || config.webhook) list.push({ channel: "webhook", target: route?.webhook ? key : "default" });
    if (route?.slack || config.slack) list.push({ channel: "slack", target: route?.slack ? key : "default" });
    return list;
  };
  return Object.fromEntries(["default", ...Object.keys(config.routes)].map((key) => [key, targets(key)]));
}

/** Where a lead for `service` goes ("" is no service chosen). */
export const targetsFor = (routing: Routing, service: string): Target[] =>
  routing[service || "none"] ?? routing.default ?? [];

/** The URL of a route's own Slack or webhook receiver, else the general one (`default`, or an old row's null). */
export function receiverFor(
  config: Pick<ContactConfig, "routes" | "slack" | "webhook">,
  channel: "slack" | "webhook",
  target: string | null,
): string | undefined {
  const own = target && target !== "default" ? config.routes[target]?.[channel] : undefined;
  return own ?? config[channel]?.url;
}
