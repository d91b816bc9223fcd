import { v7 } from "uuid";

// UUID version 7 (RFC 9562 §5.7): ids sort in the order rows were made. The time in one is no
// secret: the visitor who gets it back knows when they sent the form.
export const timeOrderedId = (now = Date.now()): string => v7({ msecs: now });
