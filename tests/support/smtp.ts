import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./ports.ts";

/**
 * A real SMTP server in the test process (smtp-server), bound to 127.0.0.1. It records every message
 * it accepts, can answer "try again later" (451) for a while, or be stopped to look like a dead relay.
 */

/** A message the relay took, and when (Date.now() at its end of data). */
export type Received = { raw: string; mail: ParsedMail; messageId: string; at: number };

export class TestSmtp {
  readonly received: Received[] = [];
  /** Message-IDs of the deliveries answered with 451. */
  readonly rejected: string[] = [];
  /** Answer 451 to this many deliveries before accepting again. */
  rejectNext = 0;
  /** Hold each message this long before answering it (a slow relay: a send stays in flight). */
  answerAfterMs = 0;
  /** Recipients this relay does not know: RCPT TO is answered 550 (a permanent "no"). */
  readonly unknownRecipients = new Set<string>();
  port = 0;
  private server: SMTPServer | null = null;
  /** Also write each accepted message to this folder (for test processes other than this one). */
  private readonly saveTo?: string;
  /** Require AUTH (PLAIN or LOGIN) with this user and password, as a provider's relay does. */
  private readonly auth?: { user: string; pass: string };

  constructor(opts: { saveTo?: string; auth?: { user: string; pass: string } } = {}) {
    this.saveTo = opts.saveTo;
    this.auth = opts.auth;
    if (this.saveTo) mkdirSync(this.saveTo, { recursive: true });
  }

  async start(port?: number): Promise<this> {
    this.port = port ?? (this.port || (await freePort()));
    this.server = new SMTPServer({
      ...(this.auth
        ? {
            authOptional: false,
            allowInsecureAuth: true,
            disabledCommands: ["STARTTLS"],
            onAuth: (auth, _session, callback) => {
              const ok = auth.username === this.auth?.user && auth.password === this.auth?.pass;
              callback(
                ok ? null : new Error("Invalid username or password"),
                ok ? { user: auth.username } : undefined,
              );
            },
          }
        : { authOptional: true, disabledCommands: ["STARTTLS", "AUTH"] }),
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (!this.unknownRecipients.has(address.address)) return callback();
        const err = new Error(
          `5.1.1 <${address.address}>: Recipient address rejected: User unknown`,
        );
        callback(Object.assign(err, { responseCode: 550 }));
      },
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", async () => {
          if (this.answerAfterMs > 0) await new Promise((r) => setTimeout(r, this.answerAfterMs));
          if (this.rejectNext > 0) {
            this.rejectNext -= 1;
            this.rejected.push((await simpleParser(Buffer.concat(chunks))).messageId ?? "");
            const err = Object.assign(new Error("Mailbox busy, try again later"), {
              responseCode: 451,
            });
            return callback(err);
          }
          const raw = Buffer.concat(chunks).toString("utf8");
          const mail = await simpleParser(raw);
          this.received.push({ raw, mail, messageId: mail.messageId ?? "", at: Date.now() });
          if (this.saveTo) writeFileSync(join(this.saveTo, `${this.received.length}.eml`), raw);
          callback();
        });
      },
    });
    // A client that goes away while it is being answered (a container killed mid-send) is an error
    // of that connection, not of the relay: it goes on serving the others.
    this.server.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(this.port, "127.0.0.1", () => resolve());
    });
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /**
   * Close every client connection, as a relay does with idle ones; the server goes on listening.
   * Resolves once each is closed on both sides (the client has seen it).
   */
  async dropConnections(): Promise<void> {
    type Connection = { close: () => void; _socket?: import("node:net").Socket };
    const open = (this.server as unknown as { connections?: Set<Connection> } | null)?.connections;
    const closed = [...(open ?? [])].map((connection) => {
      const socket = connection._socket;
      const done = socket && !socket.destroyed ? once(socket, "close") : Promise.resolve();
      connection.close();
      return done;
    });
    await Promise.all(closed);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
