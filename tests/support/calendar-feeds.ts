import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { freePort } from "./ports.ts";

/**
 * Calendars published over HTTP as the company's calendar services publish them, for the tests and
 * `npm run bench:feed`: each at `/<name>.ics`, its body replaced at will (`publish`). The fixtures are
 * in tests/fixtures/calendars/; the hostile feeds below are made to cost a reader what the red team's did.
 */
export class CalendarFeeds {
  private bodies = new Map<string, string>();
  private server: Server | null = null;
  private base = "";
  reads = new Map<string, number>();

  async start() {
    const port = await freePort();
    this.server = createServer((req, res) => {
      const name = /^\/([\w-]+)\.ics$/.exec(req.url ?? "")?.[1] ?? "";
      const body = this.bodies.get(name);
      this.reads.set(name, (this.reads.get(name) ?? 0) + 1);
      if (body === undefined) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/calendar; charset=utf-8" }).end(body);
    });
    await new Promise<void>((r) => this.server?.listen(port, "127.0.0.1", r));
    this.base = `http://127.0.0.1:${port}`;
    return this;
  }

  /** Publishes `body` at `name`'s address and returns that address. */
  publish(name: string, body: string): string {
    this.bodies.set(name, body);
    return this.url(name);
  }

  url = (name: string) => `${this.base}/${name}.ics`;
  stop = () => new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
}

export const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/calendars/${name}.ics`, import.meta.url), "utf8");

const calendar = (inner: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Red team//Hostile week//EN\r\n${inner}END:VCALENDAR\r\n`;

/** `n` daily events with no end, since 2000: more occurrences in the days read than a feed may have. */
export const endlessDaily = (n: number) =>
  calendar(
    Array.from(
      { length: n },
      (_, i) =>
        `BEGIN:VEVENT\r\nUID:endless-${i}@red-team\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20000101T${String(i % 24).padStart(2, "0")}0000Z\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Endless ${i}\r\nEND:VEVENT\r\n`,
    ).join(""),
  );

/** One event of some 4.9 MB of empty properties: small to send, over a reader's memory to parse. */
export const emptyLines = () =>
  calendar(
    `BEGIN:VEVENT\r\nUID:heavy@red-team\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20261222T170000Z\r\nDURATION:PT1H\r\n${"X:\r\n".repeat(1_225_000)}END:VEVENT\r\n`,
  );

/** A rule no day matches (February 30th): ical.js looks for its next occurrence forever. */
export const neverMatching = () =>
  calendar(
    "BEGIN:VEVENT\r\nUID:never@red-team\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20260101T170000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\n",
  );
