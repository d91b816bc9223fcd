import type { ChannelDefinition } from "./channel.ts";
import { email } from "./email.ts";
import { slack } from "./slack.ts";
import { webhook } from "./webhook.ts";

/** Every delivery channel, declared once: a new channel is its module and a row here (docs/pages-and-content.md). */
export const CHANNELS = [email, webhook, slack] as const;

type Variables = (typeof CHANNELS)[number]["variables"];
type All<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
export const channelVariables = Object.assign(
  {},
  ...CHANNELS.map((c) => c.variables),
) as All<Variables>;

export const CHANNEL_NAMES: readonly string[] = CHANNELS.map((c) => c.name);

export const channelNamed = (name: string): ChannelDefinition | undefined =>
  CHANNELS.find((c) => c.name === name);
