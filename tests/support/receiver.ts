import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP receiver for webhook and Slack deliveries: records every request, and answers each
 * as `respond` says (status, headers, an optional delay to play a slow receiver, or a promise it
 * answers after: a request held open until the test lets it go).
 */
export type Received = { headers: IncomingHttpHeaders; body: string; at: number };
export type Answer = {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  after?: Promise<unknown>;
};

export class Receiver {
  readonly received: Received[] = [];
  private server: Server | null = null;
  url = "";
  respond: (req: Received, n: number) => Answer = () => ({ status: 200 });

  async start(path = "/hook"): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        const r = { headers: req.headers, body, at: Date.now() };
        this.received.push(r);
        const a = this.respond(r, this.received.length);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(a.status, { "content-type": "text/plain", ...a.headers }).end("ok");
        };
        if (a.after) void a.after.then(send);
        else if (a.delayMs) setTimeout(send, a.delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
