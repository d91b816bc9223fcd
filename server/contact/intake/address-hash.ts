import { createHmac } from "node:crypto";
import type { Config } from "../../config.ts";
import { clientKeys } from "../../guards.ts";
import type { KeyRing } from "../keys.ts";
import { leadLinks } from "../review/links.ts";
import { formTokens } from "./form-token.ts";

/**
 * Client addresses are never stored, only an HMAC of them with this month's address key: a random
 * key made for the month, kept in the database and deleted once the month is over (keys.ts,
 * storage/keys.ts), so after that nobody, the company included, can tell which address made a hash.
 */

export async function addressHashes(ring: KeyRing, ip: string | undefined, now: number) {
  const keys = ip ? clientKeys(ip) : null;
  const key = keys && (await ring.addressKey(now));
  if (!keys || !key) return null;
  const mac = (s: string) => createHmac("sha256", key).update(s).digest("hex");
  return { address: mac(`a:${keys.address}`), network: mac(`n:${keys.network}`) };
}

export const secretKeys = (
  ring: KeyRing,
  config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">,
) => ({
  ring,
  tokens: formTokens(ring),
  links: leadLinks(ring, config),
});
export type SecretKeys = ReturnType<typeof secretKeys>;
