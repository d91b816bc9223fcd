import { createRequire } from "node:module";
import type client from "prom-client";
import { CHANNEL_NAMES } from "./delivery/channels.ts";
import type { Promised } from "./review/promise.ts";
import { replyFigures } from "./review/reply-figures.ts";
import type { Sql } from "./storage/database.ts";
import { pending } from "./storage/outbox.ts";

/**
 * The pipeline's health for Prometheus (prom-client): what arrives and what becomes of it, what waits
 * and for how long, delivery latency per channel. Only behind METRICS_TOKEN.
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

export type ContactMetrics = {
  registry: client.Registry;
  inquiry(source: string, outcome: InquiryOutcome): void;
  delivered(channel: string, latencySeconds: number): void;
  retried(channel: string): void;
  failed(channel: string): void;
  /** A reminder of a lead nobody took went (review/reminders.ts). */
  reminded(): void;
  /** Where the pending gauges read from (set once the database is open). */
  watchOutbox(db: Sql): void;
};

/**
 * `facts`: the reply promise's calendar and hours (default: the company's, app/config/site.ts).
 * prom-client (and the OpenTelemetry API it loads, some 80 modules) is loaded at the first use,
 * not before the first page: every series is registered then, before anything can read it.
 */
export function createMetrics(opts: { facts?: Promised } = {}): ContactMetrics {
  let made: ContactMetrics | null = null;
  const get = () => {
    made ??= makeMetrics(opts);
    return made;
  };
  return {
    get registry() {
      return get().registry;
    },
    inquiry: (source, outcome) => get().inquiry(source, outcome),
    delivered: (channel, seconds) => get().delivered(channel, seconds),
    retried: (channel) => get().retried(channel),
    failed: (channel) => get().failed(channel),
    reminded: () => get().reminded(),
    watchOutbox: (db) => get().watchOutbox(db),
  };
}

function makeMetrics(opts: { facts?: Promised }): ContactMetrics {
  const client = createRequire(import.meta.url)("prom-client") as typeof import("prom-client");
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const inquiries = new client.Counter({
    name: "contact_inquiries_total",
    help: "Contact submissions by door (api, form) and outcome.",
    labelNames: ["source", "outcome"],
    registers: [registry],
  });
  const deliveries = new client.Counter({
    name: "contact_deliveries_total",
    help: "Delivery attempts by channel and outcome (delivered, retry, failed).",
    labelNames: ["channel", "outcome"],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: "contact_delivery_latency_seconds",
    help: "From receiving an inquiry to delivering it, by channel.",
    labelNames: ["channel"],
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
    registers: [registry],
  });
  let db: Sql | null = null;
  const readPending = async () => (db ? await pending(db, Date.now()).catch(() => null) : null);
  type Pending = { count: number; oldestAgeMs: number };
  const pendingGauge = (name: string, help: string, value: (p: Pending) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ["channel"],
      registers: [registry],
      async collect() {
        const read = await readPending();
        this.reset();
        // Storage that does not answer: no sample ("unknown"), never 0, which would clear a stuck alert.
        if (read === null) return;
        for (const channel of CHANNEL_NAMES) this.set({ channel }, 0);
        for (const p of read) this.set({ channel: p.channel }, value(p));
      },
    });
  new client.Gauge({
    name: "contact_storage_up",
    help: "1 when the contact storage answered this scrape, 0 when it did not (the pending gauges then have no sample).",
    registers: [registry],
    async collect() {
      this.set((await readPending()) === null ? 0 : 1);
    },
  });
  pendingGauge(
    "contact_deliveries_pending",
    "Deliveries not yet done (pending or being sent), by channel.",
    (p) => p.count,
  );
  pendingGauge(
    "contact_delivery_oldest_pending_seconds",
    "Age of the oldest delivery not yet done, by channel (0: none waiting).",
    (p) => p.oldestAgeMs / 1000,
  );
  // The reply promise (ADR 0020), read from the database at each scrape: the same on every instance.
  const REPLY_WINDOW_MS = 30 * 86_400_000;
  const readReply = async () =>
    db ? await replyFigures(db, Date.now() - REPLY_WINDOW_MS, Date.now(), opts.facts).catch(() => null) : null;
  type Reply = NonNullable<Awaited<ReturnType<typeof readReply>>>;
  const replyGauge = (name: string, help: string, value: (r: Reply) => number | null) => {
    let known = false;
    const gauge = new client.Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const read = await readReply();
        const v = read === null ? null : value(read);
        known = v !== null;
        this.set(v ?? 0);
      },
    });
    // No figure (storage down, or a median of no takes): no sample, where prom-client's unlabelled gauge would say 0.
    const get = gauge.get.bind(gauge);
    gauge.get = async () => {
      const metric = await get();
      return known ? metric : { ...metric, values: [] };
    };
  };
  replyGauge(
    "contact_leads_waiting",
    'Leads (not held) of the last 30 days nobody has taken ("I\'m on it") yet.',
    (r) => r.waiting,
  );
  replyGauge(
    "contact_leads_overdue",
    "Leads nobody has taken yet past the reply promise (business hours).",
    (r) => r.overdue,
  );
  replyGauge(
    "contact_leads_missed_promise",
    "Leads of the last 30 days not taken within the reply promise (business hours), taken since or not.",
    (r) => r.missed,
  );
  replyGauge(
    "contact_lead_take_median_business_seconds",
    'Median business time from receipt to the first "I\'m on it", leads of the last 30 days (no sample: none taken).',
    (r) => (r.takeMedianMs === null ? null : r.takeMedianMs / 1000),
  );
  replyGauge(
    "contact_lead_take_p90_business_seconds",
    '90th percentile of the business time from receipt to the first "I\'m on it", leads of the last 30 days.',
    (r) => (r.takeP90Ms === null ? null : r.takeP90Ms / 1000),
  );
  const reminders = new client.Counter({
    name: "contact_lead_reminders_total",
    help: "Reminders sent by this instance for leads nobody took within the reply promise.",
    registers: [registry],
  });
  reminders.inc(0);
  // Every series exists from the start at 0, so an alert on increase(…[15m]) sees the first failure
  // after a restart, and "nothing waiting" reads 0, not "no data".
  for (const source of ["api", "form"]) for (const outcome of INQUIRY_OUTCOMES) inquiries.inc({ source, outcome }, 0);
  for (const channel of CHANNEL_NAMES) {
    for (const outcome of ["delivered", "retry", "failed"]) deliveries.inc({ channel, outcome }, 0);
    latency.zero({ channel });
  }
  return {
    registry,
    inquiry: (source, outcome) => inquiries.inc({ source, outcome }),
    delivered(channel, seconds) {
      deliveries.inc({ channel, outcome: "delivered" });
      latency.observe({ channel }, Math.max(0, seconds));
    },
    retried: (channel) => deliveries.inc({ channel, outcome: "retry" }),
    failed: (channel) => deliveries.inc({ channel, outcome: "failed" }),
    reminded: () => reminders.inc(),
    watchOutbox(outbox) {
      db = outbox;
    },
  };
}
