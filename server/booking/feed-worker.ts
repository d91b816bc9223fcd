import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { busyOf } from "./calendar.ts";

/** A feed's events read apart from the server's event loop (feeds.ts starts it, one per read, and ends it). */
// The lowest priority: Linux keeps a nice value per thread, so the server's own thread answers first.
setPriority(19);
const { text, from, to, office } = workerData as { text: string; from: number; to: number; office: string };
parentPort?.postMessage(busyOf(text, from, to, office));
