import { randomUUID } from "node:crypto";
import type autocannon from "autocannon";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";

/**
 * The submission the benchmarks send (bench:contact, bench:start): through the JSON endpoint as the
 * contact page sends it, each from its own visitor at its own address on its own /24 (an X-Forwarded-For
 * the server trusts from loopback), with its own Idempotency-Key. Each acknowledged id goes into `acked`.
 */
let visitor = 0;
const nextAddress = (i: number) => `10.${i & 255}.${(i >> 8) & 255}.${((i >> 16) & 255) + 1}`;

export function submissionRequest(
  acked: Set<string>,
  onAck: (acked: number) => void = () => {},
): autocannon.Request {
  return {
    method: "POST",
    path: CONTACT_API_PATH,
    setupRequest(req) {
      const i = visitor++;
      return {
        ...req,
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
          "idempotency-key": randomUUID(),
          "x-forwarded-for": nextAddress(i),
        },
        body: JSON.stringify({
          name: `Bench Visitor ${i}`,
          email: `visitor${i}@example.org`,
          company: "Load Test Inc",
          service: "General Inquiry",
          message: `Benchmark submission ${i}: ${"x".repeat(200)}`,
        }),
      };
    },
    onResponse(status, body) {
      if (status !== 201) return;
      acked.add((JSON.parse(body) as { id: string }).id);
      onAck(acked.size);
    },
  };
}
