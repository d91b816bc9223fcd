import { createRequire } from "node:module";
import { DAY_MS } from "../time.ts";
import { CHANNEL_NAMES } from "./delivery/channels.ts";
import type { Promised } from "./review/promise.ts";
import {
  PROMISE_WINDOWS,
  type PromiseLine,
  promiseByService,
  type ReplyFigures,
  replyFigures,
} from "./review/reply-figures.ts";
import type { Sql } from "./storage/database.ts";
import { pending } from "./storage/outbox.ts";

/**
 * The pipeline's health for Prometheus. The gauges read the database at each scrape, so every instance
 * says the same. prom-client (and the some 80 modules it loads) is loaded at the first use, not before
 * the first page.
 */

const INQUIRY_OUTCOMES = [
  "stored",
  "held",
  "invalid",
  "rate_limited",
  "unauthorized",
  "refused",
  "unavailable",
] as const;
export type InquiryOutcome = (typeof INQUIRY_OUTCOMES)[number];

export type ContactMetrics = ReturnType<typeof makeMetrics>;

type Pending = { count: number; oldestAgeMs: number };
const PENDING_GAUGES: Record<string, [help: string, value: (p: Pending) => number]> = {
  contact_deliveries_pending: [
    "Deliveries not yet done (pending or being sent), by channel.",
    (p) => p.count,
  ],
  contact_delivery_oldest_pending_seconds: [
    "Age of the oldest delivery not yet done, by channel (0: none waiting).",
    (p) => p.oldestAgeMs / 1000,
  ],
};
const REPLY_WINDOW_MS = 30 * DAY_MS;
const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
const REPLY_GAUGES: Record<string, [help: string, value: (r: ReplyFigures) => number | null]> = {
  contact_leads_waiting: [
    'Leads (not held) of the last 30 days nobody has taken ("I\'m on it") yet.',
    (r) => r.waiting,
  ],
  contact_leads_overdue: [
    "Leads nobody has taken yet past the reply promise (business hours).",
    (r) => r.overdue,
  ],
  contact_leads_missed_promise: [
    "Leads of the last 30 days not taken within the reply promise (business hours), taken since or not.",
    (r) => r.missed,
  ],
  contact_lead_take_median_business_seconds: [
    'Median business time from receipt to the first "I\'m on it", leads of the last 30 days (no sample: none taken).',
    (r) => seconds(r.takeMedianMs),
  ],
  contact_lead_take_p90_business_seconds: [
    '90th percentile of the business time from receipt to the first "I\'m on it", leads of the last 30 days.',
    (r) => seconds(r.takeP90Ms),
  ],
};

// The promise by window and service line, as the digest says it; a line with no lead has no sample.
const PROMISE_GAUGES: Record<string, [help: string, value: (l: PromiseLine) => number | null]> = {
  contact_promise_leads: ["Leads (not held) by window (days) and service line.", (l) => l.leads],
  contact_promise_taken_in_time: [
    'Leads taken ("I\'m on it" or a confirmed consultation) within the reply promise.',
    (l) => l.inTime,
  ],
  contact_promise_at_risk: [
    "Leads nobody took by the at-risk share of the promise (missed ones included).",
    (l) => l.atRisk,
  ],
  contact_promise_missed: ["Leads not taken within the reply promise.", (l) => l.missed],
  contact_promise_take_median_business_seconds: [
    'Median business time to the first "I\'m on it" (no sample: none taken).',
    (l) => seconds(l.takeMedianMs),
  ],
};
// The promise's figures read the window's leads: once a scrape interval, not once per gauge.
const PROMISE_READ_MS = 30_000;

export function createMetrics(opts: { facts?: Promised } = {}): ContactMetrics {
  let made: ContactMetrics | undefined;
  const get = () => {
    made ??= makeMetrics(opts);
    return made;
  };
  return new Proxy({} as ContactMetrics, { get: (_, key) => get()[key as keyof ContactMetrics] });
}

function makeMetrics(opts: { facts?: Promised }) {
  const client = createRequire(import.meta.url)("prom-client") as typeof import("prom-client");
  const registry = new client.Registry();
  const registers = [registry];
  client.collectDefaultMetrics({ register: registry });
  const inquiries = new client.Counter({
    name: "contact_inquiries_total",
    help: "Contact submissions by door (api, form) and outcome.",
    labelNames: ["source", "outcome"],
    registers,
  });
  const deliveries = new client.Counter({
    name: "contact_deliveries_total",
    help: "Delivery attempts by channel and outcome (delivered, retry, failed).",
    labelNames: ["channel", "outcome"],
    registers,
  });
  const latency = new client.Histogram({
    name: "contact_delivery_latency_seconds",
    help: "From receiving an inquiry to delivering it, by channel.",
    labelNames: ["channel"],
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
    registers,
  });
  const reminders = new client.Counter({
    name: "contact_lead_reminders_total",
    help: "Reminders sent by this instance for leads nobody took within the reply promise.",
    registers,
  });
  let db: Sql | null = null;
  const readPending = async () => (db ? await pending(db, Date.now()).catch(() => null) : null);
  const readReply = async () =>
    db
      ? await replyFigures(db, Date.now() - REPLY_WINDOW_MS, Date.now(), opts.facts).catch(
          () => null,
        )
      : null;
  let promiseRead: { at: number; lines: Promise<Array<[number, PromiseLine[]]> | null> } | null =
    null;
  const readPromise = () => {
    const now = Date.now();
    if (!promiseRead || now - promiseRead.at > PROMISE_READ_MS) {
      const sql = db;
      promiseRead = {
        at: now,
        lines: sql
          ? Promise.all(
              PROMISE_WINDOWS.map(
                async (days): Promise<[number, PromiseLine[]]> => [
                  days,
                  await promiseByService(sql, days, now, opts.facts),
                ],
              ),
            ).catch(() => null)
          : Promise.resolve(null),
      };
    }
    return promiseRead.lines;
  };
  for (const [name, [help, value]] of Object.entries(PROMISE_GAUGES)) {
    new client.Gauge({
      name,
      help,
      labelNames: ["window", "service"],
      registers,
      async collect() {
        const read = await readPromise();
        this.reset();
        for (const [days, lines] of read ?? [])
          for (const l of lines) {
            const v = value(l);
            if (v !== null) this.set({ window: `${days}d`, service: l.service }, v);
          }
      },
    });
  }
  new client.Gauge({
    name: "contact_storage_up",
    help: "1 when the contact storage answered this scrape, 0 when it did not (the pending gauges then have no sample).",
    registers,
    async collect() {
      this.set((await readPending()) === null ? 0 : 1);
    },
  });
  // Storage that does not answer, or a median of no takes: no sample ("unknown"), never 0, which would
  // clear a stuck alert.
  for (const [name, [help, value]] of Object.entries(PENDING_GAUGES)) {
    new client.Gauge({
      name,
      help,
      labelNames: ["channel"],
      registers,
      async collect() {
        const read = await readPending();
        this.reset();
        if (read === null) return;
        for (const channel of CHANNEL_NAMES) this.set({ channel }, 0);
        for (const p of read) this.set({ channel: p.channel }, value(p));
      },
    });
  }
  for (const [name, [help, value]] of Object.entries(REPLY_GAUGES)) {
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        const read = await readReply();
        const v = read === null ? null : value(read);
        if (v === null) this.remove();
        else this.set(v);
      },
    });
  }
  // Every series exists from the start at 0: an alert on increase(…[15m]) sees the first failure
  // after a restart, and "nothing waiting" reads 0, not "no data".
  reminders.inc(0);
  for (const source of ["api", "form"])
    for (const outcome of INQUIRY_OUTCOMES) inquiries.inc({ source, outcome }, 0);
  for (const channel of CHANNEL_NAMES) {
    for (const outcome of ["delivered", "retry", "failed"]) deliveries.inc({ channel, outcome }, 0);
    latency.zero({ channel });
  }
  return {
    registry,
    inquiry: (source: string, outcome: InquiryOutcome) => inquiries.inc({ source, outcome }),
    delivered(channel: string, latencySeconds: number) {
      deliveries.inc({ channel, outcome: "delivered" });
      latency.observe({ channel }, Math.max(0, latencySeconds));
    },
    retried: (channel: string) => deliveries.inc({ channel, outcome: "retry" }),
    failed: (channel: string) => deliveries.inc({ channel, outcome: "failed" }),
    reminded: () => reminders.inc(),
    watchOutbox(outbox: Sql) {
      db = outbox;
    },
  };
}
