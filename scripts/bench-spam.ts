import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { launchChromium } from "../tests/support/chromium.ts";
import { startServer } from "../tests/support/server.ts";
import { TestSmtp } from "../tests/support/smtp.ts";

/**
 * The spam defence against the bot corpus (bench/spam-corpus.json) and against people, on the
 * production server with its default settings and a real SMTP server as the company inbox:
 *   npm run bench:spam [-- --n 40]
 * Prints, per class, how many were sent, answered (2xx/3xx, as a person is), and reached the inbox.
 * Needs a build (`npm run build`) and Debian's Chromium.
 */

const { values: opts } = parseArgs({ options: { n: { type: "string", default: "40" } } });
const N = Number(opts.n);
const corpus = JSON.parse(readFileSync(new URL("../bench/spam-corpus.json", import.meta.url), "utf8")) as {
  senders: Array<{ name: string; email: string; company: string }>;
  messages: string[];
  linkStuffed: string[];
};

type Row = { class: string; kind: "bot" | "person"; sent: number; answered: number; inbox: number; markers: string[] };
const rows: Row[] = [];
let seq = 0;

/** One HTTP request from a chosen loopback source address (127.0.0.0/8). */
function send(
  url: string,
  opts: { method?: string; path: string; headers: Record<string, string>; body: string; from?: string },
): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? "POST",
        path: opts.path,
        localAddress: opts.from,
        headers: { ...opts.headers, "content-length": String(Buffer.byteLength(opts.body)) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(opts.body);
  });
}

function bot(i: number) {
  const s = corpus.senders[i % corpus.senders.length] ?? { name: "Bot", email: "bot@example.com", company: "" };
  const marker = `Z${(seq++).toString(36)}`;
  return {
    marker,
    fields: {
      name: `${s.name} ${marker}`,
      email: s.email,
      company: s.company,
      service: "",
      message: corpus.messages[i % corpus.messages.length] ?? "",
    },
  };
}

const answered = (status: number) => status >= 200 && status < 400;

async function main() {
  const smtp = await new TestSmtp().start();
  const server = await startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100" });
  const tokenOf = async () =>
    /name="form_token" value="([^"]+)"/.exec(await (await fetch(`${server.url}/contact`)).text())?.[1] ?? "";
  const json = (fields: object, headers: Record<string, string>, from?: string) =>
    send(server.url, {
      path: CONTACT_API_PATH,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(fields),
      from,
    });
  const form = (fields: Record<string, string>, from?: string) =>
    send(server.url, {
      path: "/contact",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      from,
    });
  const run = async (name: string, kind: Row["kind"], count: number, one: (i: number) => Promise<[string, number]>) => {
    const row: Row = { class: name, kind, sent: 0, answered: 0, inbox: 0, markers: [] };
    for (let i = 0; i < count; i++) {
      const [marker, status] = await one(i);
      row.sent += 1;
      if (answered(status)) row.answered += 1;
      row.markers.push(marker);
    }
    rows.push(row);
  };
  const addr = (i: number) => `127.${1 + ((i >> 16) & 127)}.${(i >> 8) & 255}.${i & 255 || 1}`;

  try {
    await run("JSON to the endpoint, no key", "bot", N, async (i) => {
      const b = bot(i);
      return [b.marker, await json(b.fields, {}, addr(1000 + i))];
    });
    await run("JSON to the endpoint, public key and Origin", "bot", N, async (i) => {
      const b = bot(i);
      return [
        b.marker,
        await json(b.fields, { authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`, origin: server.url }, addr(2000 + i)),
      ];
    });
    await run("form post filling every input", "bot", N, async (i) => {
      const b = bot(i);
      return [b.marker, await form({ ...b.fields, website: "https://seo.example", form_token: "x" }, addr(3000 + i))];
    });
    await run("form post skipping hidden inputs", "bot", N, async (i) => {
      const b = bot(i);
      return [b.marker, await form(b.fields, addr(4000 + i))];
    });
    await run("link-stuffed, with a scraped page token", "bot", Math.min(N, 12), async (i) => {
      const b = bot(i);
      const token = await tokenOf();
      await new Promise((r) => setTimeout(r, 3_200));
      const message = corpus.linkStuffed[i % corpus.linkStuffed.length] ?? "";
      return [
        b.marker,
        await json(
          { ...b.fields, message },
          { authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`, "x-form-token": token },
          addr(5000 + i),
        ),
      ];
    });
    await run("flood from many addresses (127.0.0.0/8)", "bot", N * 5, async (i) => {
      const b = bot(i);
      return [
        b.marker,
        await json(
          b.fields,
          { authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`, origin: server.url },
          addr(70_000 + i * 97),
        ),
      ];
    });

    const browser = await launchChromium();
    const submitted = async (page: Page) => {
      await Promise.race([
        page.getByRole("dialog", { name: "Message Sent Successfully!" }).waitFor(),
        page.waitForURL(/\/contact\/sent$/),
      ]);
      return 201;
    };
    await run("headless browser at machine speed", "bot", 5, async (i) => {
      const b = bot(i);
      // Each browser from an address of its own (through the trusted local proxy header), so the
      // rate limits do not decide the figure.
      const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${10 + i}` } });
      const page = await context.newPage();
      await page.goto(`${server.url}/contact`);
      await page.getByLabel("Full Name").fill(b.fields.name);
      await page.getByLabel("Email Address").fill(b.fields.email);
      await page.getByRole("textbox", { name: "Message" }).fill(b.fields.message);
      await page.getByRole("button", { name: "Send Message" }).click();
      const status = await submitted(page);
      await context.close();
      return [b.marker, status];
    });
    for (const js of [true, false]) {
      await run(`person in Chromium, JavaScript ${js ? "on" : "off"}`, "person", 3, async (i) => {
        const marker = `P${(seq++).toString(36)}`;
        const context = await browser.newContext({
          javaScriptEnabled: js,
          extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${(js ? 10 : 20) + i}` },
        });
        const page = await context.newPage();
        await page.goto(`${server.url}/contact`);
        await page.getByLabel("Full Name").pressSequentially(`Dana Rivera ${marker}`, { delay: 60 });
        await page.getByLabel("Email Address").pressSequentially(`dana${i}@example.org`, { delay: 40 });
        await page.getByLabel("Service Interest").selectOption("IT Consulting");
        await page
          .getByRole("textbox", { name: "Message" })
          .pressSequentially(`We need help planning a server refresh (${marker}).`, { delay: 25 });
        await page.getByRole("button", { name: "Send Message" }).click();
        const status = await submitted(page);
        await context.close();
        return [marker, status];
      });
    }
    await browser.close();

    // Let the outbox deliver what it will, then count the inbox per class.
    await new Promise((r) => setTimeout(r, 5_000));
    const inbox = smtp.received.filter((m) => m.mail.subject?.startsWith("New inquiry")).map((m) => m.raw);
    for (const row of rows) row.inbox = row.markers.filter((m) => inbox.some((raw) => raw.includes(m))).length;

    const table = rows.map((r) => ({
      class: r.class,
      kind: r.kind,
      sent: r.sent,
      answered: r.answered,
      "reached inbox": r.inbox,
      "inbox %": Number(((100 * r.inbox) / Math.max(1, r.sent)).toFixed(1)),
    }));
    console.table(table);
    const scripted = rows.filter((r) => r.kind === "bot" && !r.class.startsWith("headless"));
    const scriptedSent = scripted.reduce((n, r) => n + r.sent, 0);
    const scriptedInbox = scripted.reduce((n, r) => n + r.inbox, 0);
    const people = rows.filter((r) => r.kind === "person");
    const peopleSent = people.reduce((n, r) => n + r.sent, 0);
    const peopleInbox = people.reduce((n, r) => n + r.inbox, 0);
    console.log(
      `Scripted bots: ${scriptedInbox} of ${scriptedSent} reached the inbox (${((100 * scriptedInbox) / scriptedSent).toFixed(1)}%, bar ≤ 5%). People: ${peopleInbox} of ${peopleSent} (bar 100%).`,
    );
    writeFileSync(
      "bench/spam.json",
      `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), rows: table }, null, 2)}\n`,
    );
    if (scriptedInbox / scriptedSent > 0.05 || peopleInbox < peopleSent) process.exitCode = 1;
  } finally {
    await server.stop();
    await smtp.stop();
  }
}

await main();
