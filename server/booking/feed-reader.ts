import { setPriority } from "node:os";
import { busyOf } from "./calendar.ts";

/**
 * A feed's events read in a process of their own (feeds.ts forks it, one per read, and ends it): a
 * feed that needs more memory than the process may have ends this process, never the server's (a
 * worker thread past its heap limit can take the whole server down with it).
 */
// The lowest priority: the server's own process answers first.
setPriority(19);
process.once("message", (m) => {
  const { text, from, to, office } = m as {
    text: string;
    from: number;
    to: number;
    office: string;
  };
  // A feed it refuses (too many occurrences) is said in words, as the reason it was not read.
  let answer: { read: ReturnType<typeof busyOf> } | { refused: string };
  try {
    answer = { read: busyOf(text, from, to, office) };
  } catch (err) {
    answer = { refused: (err as Error).message };
  }
  process.send?.(answer, () => process.disconnect());
});
