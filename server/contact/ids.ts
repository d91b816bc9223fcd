import { randomFillSync } from "node:crypto";

/**
 * Identifiers for inquiries and deliveries: UUID version 7 (RFC 9562 §5.7), the creation time in
 * milliseconds in the first 48 bits and 74 random bits after it. Rows made one after another get
 * ids that sort after one another, so each one lands on the last page of its primary-key index
 * (SQLite and PostgreSQL), where random (version 4) ids wrote a page anywhere in the index for every
 * row. The time in an id is no secret: the visitor who gets it back knows when they sent the form.
 */
const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

export function timeOrderedId(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const b = pool.subarray(offset, offset + 16);
  offset += 16;
  b.writeUIntBE(now, 0, 6);
  b[6] = ((b[6] as number) & 0x0f) | 0x70;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
