import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { KeyRing } from "../keys.ts";

/**
 * The form token written into every /contact page served (a hidden input; enhance.ts sends it as
 * X-Form-Token): signed, it proves the message comes from a page we served, and when. No cookie,
 * no puzzle (ADR 0007).
 */

type TokenCheck = { ok: true; ageMs: number } | { ok: false; reason: string };

const sign = (key: Buffer, payload: string) =>
  createHmac("sha256", key).update(payload).digest("base64url").slice(0, 32);

export function formTokens(ring: KeyRing) {
  return {
    issue(now = Date.now()) {
      const key = ring.signing("form");
      const payload = `${key.id}.${now.toString(36)}.${randomBytes(9).toString("base64url")}`;
      return `${payload}.${sign(key.secret, payload)}`;
    },
    async verify(token: string | undefined, now = Date.now()): Promise<TokenCheck> {
      if (!token) return { ok: false, reason: "no form token" };
      const parts = token.split(".");
      const [keyId = "", at = "", , signature = ""] = parts;
      if (parts.length !== 4 || !/^[a-z0-9]{1,16}$/.test(keyId))
        return { ok: false, reason: "malformed form token" };
      const key = await ring.find("form", keyId, now);
      if (!key)
        return { ok: false, reason: "form token signed with a key this server no longer has" };
      const given = Buffer.from(signature);
      const expected = Buffer.from(sign(key, parts.slice(0, 3).join(".")));
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { ok: false, reason: "forged form token" };
      const issued = Number.parseInt(at, 36);
      if (!Number.isFinite(issued) || issued > now + 60_000)
        return { ok: false, reason: "form token from the future" };
      return { ok: true, ageMs: now - issued };
    },
  };
}

export type FormTokens = ReturnType<typeof formTokens>;
