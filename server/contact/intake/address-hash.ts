import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../../config.ts";
import { clientKeys } from "../../guards.ts";
import { leadLinks } from "../review/links.ts";
import { formTokens } from "./form-token.ts";

/**
 * Client addresses are never stored, only an HMAC of them with a key the database does not hold
 * (IP_HASH_KEY, or a key file under DATA_DIR), so a copy of the database cannot be reversed. The key
 * changes every calendar month, so hashes from different months cannot be linked.
 */

export const KEY_FILE = "secrets/ip-hash.key";

/** The secret from IP_HASH_KEY, else from DATA_DIR/secrets/ip-hash.key (made, mode 0600, at first use). */
export function loadAddressSecret(opts: { IP_HASH_KEY?: string; dataDir: string }): string {
  if (opts.IP_HASH_KEY) return opts.IP_HASH_KEY;
  const file = join(opts.dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
  }
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 32) throw new Error(`${file}: the key must be at least 32 characters`);
  return secret;
}

const period = (now: number) => new Date(now).toISOString().slice(0, 7); // "2026-11"

export type AddressHasher = {
  /** The hashes an address is stored and limited by: its own, and its network's. Null without an address. */
  hashes(ip: string | undefined, now?: number): { address: string; network: string } | null;
};

export function addressHasher(secret: string): AddressHasher {
  return {
    hashes(ip, now = Date.now()) {
      const keys = ip ? clientKeys(ip) : null;
      if (!keys) return null;
      const key = createHmac("sha256", secret)
        .update(`ip-hash:${period(now)}`)
        .digest();
      const mac = (s: string) => createHmac("sha256", key).update(s).digest("hex");
      return { address: mac(`a:${keys.address}`), network: mac(`n:${keys.network}`) };
    },
  };
}

/** What the secret keys: client addresses' hashes, the contact page's form tokens (form-token.ts), the links in a lead (review/links.ts). */
export const secretKeys = (secret: string, config: Pick<Config, "SITE_URL" | "INQUIRY_LINK_DAYS">) => ({
  hasher: addressHasher(secret),
  tokens: formTokens(secret),
  links: leadLinks(secret, config),
});
export type SecretKeys = ReturnType<typeof secretKeys>;
