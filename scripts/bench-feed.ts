import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { CalendarFeeds, emptyLines, endlessDaily } from "../tests/support/calendar-feeds.ts";
import { type RunningServer, startServer } from "../tests/support/server.ts";

/**
 * The home page's latency while the server reads hostile calendar feeds, beside a run without feeds,
 * in the same run on this machine (the build must exist: `npm run build`):
 *   npm run bench:feed [-- --seconds 10 --connections 32]
 * The feeds: 400 daily events with no end since 2000 (too many occurrences to read), and 4.9 MB of
 * empty properties (over a reader's memory), each read every 3 s (housekeeping every 200 ms).
 * Prints requests per second, p99 and worst latency of `/`, and how many reads ran meanwhile.
 */

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
  },
});

const feeds = await new CalendarFeeds().start();
const served = () => [...feeds.reads.values()].reduce((a, b) => a + b, 0);

async function measure(server: RunningServer) {
  const reads = served();
  const result = await autocannon({
    url: `${server.url}/`,
    connections: Number(opts.connections),
    duration: Number(opts.seconds),
    headers: { "accept-encoding": "gzip" },
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    "req/s": Math.round(result.requests.average),
    "p99 ms": result.latency.p99,
    "worst ms": result.latency.max,
    "feed reads begun meanwhile": served() - reads,
  };
}

async function run(name: string, env: Record<string, string>, reading: boolean) {
  const server = await startServer({ SPAM_FILTER: "off", ...env }, undefined, {
    HOUSEKEEPING_TURN_MS: 200,
  });
  try {
    // Measured once a read has begun (its log line), after a warm-up of its own length.
    while (reading && !server.output().includes("calendar feed fetched"))
      await new Promise((r) => setTimeout(r, 50));
    await measure(server);
    return { run: name, ...(await measure(server)) };
  } finally {
    await server.stop();
  }
}

try {
  const urls = [feeds.publish("endless", endlessDaily(400)), feeds.publish("heavy", emptyLines())];
  const rows = [
    await run("no feeds", {}, false),
    await run("hostile feeds", { BOOKING_FEEDS: urls.join(" ") }, true),
  ];
  const description = `autocannon on /, ${opts.seconds} s at ${opts.connections} connections after a warm-up as long; the hostile run reads 400 endless daily events and 4.9 MB of empty properties, each every 3 s, in reader processes.`;
  console.log(description);
  console.table(rows);
  mkdirSync("bench", { recursive: true });
  writeFileSync(
    "bench/feed.json",
    `${JSON.stringify({ measuredAt: new Date().toISOString(), description, rows }, null, 2)}\n`,
  );
} finally {
  await feeds.stop();
}
