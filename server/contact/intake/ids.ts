import { randomBytes } from "node:crypto";

// UUID version 7 (RFC 9562 §5.7): ids sort in the order rows were made. The time in one is no
// secret: the visitor who gets it back knows when they sent the form.
export function timeOrderedId(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = ((b[6] as number) & 0x0f) | 0x70;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
