import { v7 } from "uuid";

// UUID version 7 (RFC 9562 §5.7): ids sort in the order rows were made. The time in one is no
// secret: the visitor who gets it back knows when they sent the form.
export const timeOrderedId = (now = Date.now()): string => v7({ msecs: now });

/** The instant an id of timeOrderedId was made: its first 48 bits (RFC 9562 §5.7). */
export const timeOfId = (id: string): number =>
  Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
