import { describe, expect, it } from "vitest";
import { timeOrderedId } from "../../server/contact/intake/ids.ts";

/** Inquiry and delivery ids (server/contact/intake/ids.ts): UUID version 7, in the order they were made. */

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("timeOrderedId", () => {
  it("is a version 7 UUID (RFC 9562) that carries its time in milliseconds", () => {
    const at = Date.UTC(2026, 10, 22, 20, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(V7);
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(at);
  });

  it("sorts as text in the order of time, across the pool of random bytes it draws from", () => {
    const start = Date.now();
    const ids = Array.from({ length: 2000 }, (_, i) => timeOrderedId(start + i));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => V7.test(id))).toBe(true);
  });

  it("never repeats, even within one millisecond", () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 100_000 }, () => timeOrderedId(at)));
    expect(ids.size).toBe(100_000);
  });
});
