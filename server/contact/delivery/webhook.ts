import { Webhook } from "standardwebhooks";
import { z } from "zod";
import {
  type Attempt,
  type ChannelDefinition,
  inquiryPayload,
  receiver,
  receiverUrl,
} from "./channel.ts";

/** Standard Webhooks' envelope (type, timestamp of the event, data), signed with every secret set (two while rotating). */
const webhookReceiver = receiver("webhook", "WEBHOOK_URL");
const variables = {
  WEBHOOK_URL: receiverUrl.optional(),
  WEBHOOK_SECRET: z
    .string()
    .regex(
      /^whsec_[A-Za-z0-9+/]{32,}={0,2}( whsec_[A-Za-z0-9+/]{32,}={0,2})?$/,
      "a Standard Webhooks secret: whsec_ and at least 24 bytes in base64 (two, space-separated, while rotating)",
    )
    .optional(),
};

export const webhook: ChannelDefinition<typeof variables> = {
  name: "webhook",
  variables,
  check: (env) =>
    (env.WEBHOOK_URL || Object.values(env.CONTACT_ROUTES ?? {}).some((r) => r.webhook)) &&
    !env.WEBHOOK_SECRET
      ? "WEBHOOK_SECRET: required with WEBHOOK_URL or a route's webhook (whsec_…, see docs/configuration.md)"
      : undefined,
  ...webhookReceiver,
  create(config, links) {
    const signers = config.WEBHOOK_SECRET?.split(" ").map((s) => new Webhook(s)) ?? [];
    const send = (target: string, id: string, payload: object): Promise<Attempt> => {
      const body = JSON.stringify(payload);
      const timestamp = new Date();
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(+timestamp / 1000)),
        "webhook-signature": signers.map((s) => s.sign(id, timestamp, body)).join(" "),
      };
      return webhookReceiver.post(config, target, body, headers);
    };
    return {
      name: "webhook",
      deliver({ messageId, inquiry, target }) {
        return send(target, messageId, {
          type: "inquiry.received",
          timestamp: new Date(inquiry.receivedAt).toISOString(),
          data: inquiryPayload(inquiry, links),
        });
      },
      report: (target, event, id) => send(target, id, event),
      notify: (kind, { subject, text }, id) =>
        send("default", id, {
          type: kind === "delivery-failed" ? "delivery.failed" : "inquiries.held",
          timestamp: new Date().toISOString(),
          data: { subject, text },
        }),
      describe: () =>
        config.WEBHOOK_URL
          ? `webhook ${new URL(config.WEBHOOK_URL).origin}`
          : "webhook (routed leads only)",
    };
  },
};
