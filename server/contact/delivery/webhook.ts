import { Webhook } from "standardwebhooks";
import { type Attempt, type Channel, inquiryPayload, post } from "./channel.ts";

/**
 * A JSON POST to WEBHOOK_URL, signed per Standard Webhooks (`standardwebhooks`), with a `webhook-id`
 * that stays the same across retries so the receiver can de-duplicate.
 */
export function webhookChannel(opts: {
  /** The receiver for a delivery's target (delivery/routing.ts). */
  urlFor: (target: string | null) => string | undefined;
  secret: string;
  timeoutMs: number;
}): Channel {
  const signer = new Webhook(opts.secret);
  const send = (url: string | undefined, id: string, payload: object): Promise<Attempt> => {
    if (!url) return Promise.resolve({ kind: "permanent", reason: "no webhook URL for this route on this server" });
    const body = JSON.stringify(payload);
    const timestamp = new Date();
    const signature = signer.sign(id, timestamp, body);
    const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(+timestamp / 1000)) };
    return post(url, body, { ...headers, "webhook-signature": signature }, opts.timeoutMs);
  };
  return {
    name: "webhook",
    deliver({ messageId, inquiry, target }) {
      // Standard Webhooks' envelope: type, timestamp (of the event), data. Same id on every attempt.
      return send(opts.urlFor(target), messageId, {
        type: "inquiry.received",
        timestamp: new Date(inquiry.receivedAt).toISOString(),
        data: inquiryPayload(inquiry),
      });
    },
    async notify(subject, text) {
      const outcome = await send(opts.urlFor("default"), `alert_${Date.now()}_${Math.random().toString(36).slice(2)}`, {
        type: "delivery.failed",
        timestamp: new Date().toISOString(),
        data: { subject, text },
      });
      if (outcome.kind !== "delivered") throw new Error(outcome.reason);
    },
    describe: () => {
      const general = opts.urlFor("default");
      return general ? `webhook ${new URL(general).origin}` : "webhook (routed leads only)";
    },
  };
}
