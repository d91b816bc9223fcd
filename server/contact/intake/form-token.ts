import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The form token written into every /contact page served (a hidden input; enhance.ts sends it as
 * X-Form-Token): signed, it proves the message comes from a page we served, and when. No cookie,
 * no puzzle (docs/decisions/0007-spam-defence.md).
 */

export type TokenCheck = { ok: true; ageMs: number } | { ok: false; reason: string };

export function formTokens(secret: string) {
  const key = createHmac("sha256", secret).update("form-token:v1").digest();
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url").slice(0, 32);
  return {
    issue(now = Date.now()): string {
      const payload = `v1.${now.toString(36)}.${randomBytes(9).toString("base64url")}`;
      return `${payload}.${sign(payload)}`;
    },
    verify(token: string | undefined, now = Date.now()): TokenCheck {
      if (!token) return { ok: false, reason: "no form token" };
      const parts = token.split(".");
      if (parts.length !== 4 || parts[0] !== "v1") return { ok: false, reason: "malformed form token" };
      const payload = parts.slice(0, 3).join(".");
      const given = Buffer.from(parts[3] ?? "");
      const expected = Buffer.from(sign(payload));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { ok: false, reason: "forged form token" };
      }
      const issued = Number.parseInt(parts[1] ?? "", 36);
      if (!Number.isFinite(issued) || issued > now + 60_000) return { ok: false, reason: "form token from the future" };
      return { ok: true, ageMs: now - issued };
    },
  };
}

export type FormTokens = ReturnType<typeof formTokens>;
