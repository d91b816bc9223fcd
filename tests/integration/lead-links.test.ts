import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_LABEL } from "../../app/contact/lead.ts";
import { TUNING, type Tuning } from "../../server/config.ts";
import { ContentModel, seedCorpus } from "../../server/contact/intake/content-filter.ts";
import { KeyRing } from "../../server/contact/keys.ts";
import { officeTime, replyBy } from "../../server/contact/review/clock.ts";
import { leadLinks } from "../../server/contact/review/links.ts";
import { ACTIONS_PER_WINDOW } from "../../server/contact/review/page.ts";
import { promiseDueAt } from "../../server/contact/review/promise.ts";
import { openDatabase } from "../../server/contact/storage/open.ts";
import { launchChromium } from "../support/chromium.ts";
import { engineEnv } from "../support/engines.ts";
import { attachedTestKeys } from "../support/keys.ts";
import { freePort } from "../support/ports.ts";
import { Receiver } from "../support/receiver.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { type Received, TestSmtp } from "../support/smtp.ts";

/**
 * The lead loop in the inbox, on the production server with a real SMTP server, a Slack-like and a
 * webhook receiver, and Chromium: the signed links in what they receive, followed as a person does
 * (with JavaScript off and on), teach the filter and stop or start deliveries; a forged or expired
 * link changes nothing; a possible-spam lead says so everywhere; and on PostgreSQL a mark made
 * through one instance is seen by the other within seconds.
 */

const root = new URL("../../", import.meta.url).pathname;
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const { SPAM_SUSPECT_SCORE, SPAM_HOLD_SCORE } = TUNING;
const model = new ContentModel(seedCorpus());
let ip = 0;
const nextIp = () => `198.18.${Math.floor(ip / 250) % 250}.${(ip++ % 250) + 1}`;

type Site = {
  server: RunningServer;
  cli: (...args: string[]) => ReturnType<typeof spawnSync>;
  show: (id: string) => Record<string, unknown>;
};

async function startSite(env: Record<string, string>, tuning: Partial<Tuning> = {}): Promise<Site> {
  const port = await freePort();
  const server = await startServer(
    {
      SITE_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: "1000",
      RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
      TRUST_PROXY: "loopback",
      ...env,
    },
    port,
    { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0, ...tuning },
  );
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["server/cli.ts", ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: env.DATABASE_URL ?? "" },
      encoding: "utf8",
    });
  const show = (id: string) =>
    JSON.parse(String(cli("show", id, "--json").stdout)) as Record<string, unknown>;
  return { server, cli, show };
}

/** A lead sent as the contact page's script sends it: the page's form token, from a visitor's address. */
async function send(
  site: Site,
  name: string,
  message: string,
  opts: { token?: boolean } = {},
): Promise<string> {
  const fields = { name, email: "visitor@example.org", message };
  const res = await sendAsPage(site.server.url, fields, {
    headers: { "x-forwarded-for": nextIp() },
    ...opts,
  });
  expect(res.status).toBe(201);
  return String(((await res.json()) as { id: string }).id);
}

/** The link a received email gives for `label`, as a person would copy it from the text. */
function linkIn(mail: Received, label: string): string {
  const text = mail.mail.text ?? "";
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const url = new RegExp(
    `^\\s*(?:- )?${escaped}(?: \\([^)]*\\))?:\\s*\\n?\\s*(http\\S+)`,
    "m",
  ).exec(text)?.[1];
  if (!url) throw new Error(`no "${label}" link in:\n${text}`);
  return url;
}

const waitFor = async <T>(what: () => T | undefined, ms = 15_000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("the links in a lead, on one server", { timeout: 60_000 }, () => {
  let site: Site;
  let smtp: TestSmtp;
  let slack: Receiver;
  let hook: Receiver;
  let browser: Browser;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    smtp = await new TestSmtp().start();
    slack = await new Receiver().start("/slack");
    hook = await new Receiver().start("/hook");
    const engine = await engineEnv("sqlite", "lead-links");
    cleanup = engine.cleanup;
    site = await startSite(
      {
        ...engine.env,
        SMTP_URL: smtp.url,
        SLACK_WEBHOOK_URL: slack.url,
        WEBHOOK_URL: hook.url,
        WEBHOOK_SECRET,
      },
      { HOUSEKEEPING_TURN_MS: 2_000 },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.server.stop();
    await Promise.all([smtp?.stop(), slack?.stop(), hook?.stop()]);
    await cleanup?.();
  });

  const leadMail = (id: string) =>
    smtp.received.find(
      (m) => m.mail.headers.get("x-inquiry-id") === id && /New inquiry/.test(m.mail.subject ?? ""),
    );
  const slackFor = (name: string) => slack.received.filter((r) => r.body.includes(name));

  for (const javaScript of [false, true]) {
    it(`"Spam" from the email, JavaScript ${javaScript ? "on" : "off"}: the filter learns, Slack's delivery stops, and undo brings it back`, async () => {
      // Slack is down: its delivery waits for a retry while the email arrives.
      slack.respond = () => ({ status: 503, headers: { "retry-after": "1" } });
      const name = `Pat ${javaScript ? "On" : "Off"}`;
      // Pitches of a kind the corpus lacks: delivered (clean) until someone says otherwise.
      const message = javaScript
        ? "Hi, we plow snow for office parking lots in Gillette. Should we add your lot to our route?"
        : "Hello, we clean gutters and roofs for commercial buildings in Riverton. Should we look at yours before winter?";
      const id = await send(site, name, message);
      const mail = await waitFor(() => leadMail(id));
      await waitFor(() => (slackFor(name).length > 0 ? true : undefined));
      const before = site.show(id);
      expect(before.verdict).toBe("clean");

      const context = await browser.newContext({ javaScriptEnabled: javaScript });
      const page = await context.newPage();
      // Opening the link (what a mail scanner does too) changes nothing.
      const opened = await page.goto(linkIn(mail, "Spam"));
      expect(opened?.status()).toBe(200);
      expect(opened?.headers()["cache-control"]).toBe("no-store");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
        "Is this message spam?",
      );
      expect(await page.locator("main").textContent()).toContain(name);
      expect(site.show(id).verdict).toBe(before.verdict);
      expect(JSON.parse(String(site.cli("training", "--json").stdout))).not.toContainEqual(
        expect.objectContaining({ inquiryId: id }),
      );

      await page.getByRole("button", { name: "Spam", exact: true }).click();
      await page.waitForURL(/\/lead$/);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Marked as spam");
      expect(await page.getByRole("status").textContent()).toContain("Cancelled: slack");
      // A person pressed it, and the page says so, on the office's clock; not "held as suspected spam".
      const marked = JSON.parse(String(site.cli("training", "--json").stdout)).find(
        (m: { inquiryId: string }) => m.inquiryId === id,
      ) as { markedAt: number };
      const main = await page.locator("main").textContent();
      expect(main).toContain(
        `Marked as spam by you at ${officeTime(marked.markedAt)}; future deliveries are cancelled`,
      );
      expect(main).not.toMatch(/suspected spam|out of the inbox/);
      // Its "I'm on it" link now offers "Not spam", never "I'm on it"; opening it changes nothing.
      const other = await context.newPage();
      await other.goto(linkIn(mail, "I'm on it"));
      expect(await other.getByRole("heading", { level: 1 }).textContent()).toBe(
        "Is this message not spam?",
      );
      expect(await other.getByRole("button", { name: "Not spam" }).count()).toBe(1);
      expect(await other.getByRole("button", { name: "I'm on it" }).count()).toBe(0);
      await other.close();
      // The filter learned it, it is held, and Slack's waiting delivery is gone: Slack back up, nothing comes.
      const after = site.show(id) as { verdict: string; deliveries: Array<{ channel: string }> };
      expect(after.verdict).toBe("held");
      expect(after.deliveries.map((d) => d.channel).sort()).toEqual(["email", "webhook"]);
      expect(JSON.parse(String(site.cli("training", "--json").stdout))).toContainEqual(
        expect.objectContaining({ inquiryId: id, label: "spam" }),
      );
      // Nothing is left in the outbox for Slack, so nothing can come once it is back up.
      const tried = slackFor(name).length;
      slack.respond = () => ({ status: 200 });
      // The next message like it is caught by its words.
      const similar = await send(site, `${name} Two`, message.replace("?", " this month?"));
      expect(site.show(similar).spamScore as number).toBeGreaterThan(before.spamScore as number);
      expect(site.show(similar).verdict).not.toBe("clean");

      // Undo, from the result page: as it was (no mark at all, not a "genuine" one), delivered again
      // where it was cancelled (Slack), never twice by email.
      await page.getByRole("button", { name: "Undo" }).click();
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Undone");
      await waitFor(() => (slackFor(name).length > tried ? true : undefined));
      expect(site.show(id)).toMatchObject({ verdict: before.verdict, heldReason: null });
      expect(JSON.parse(String(site.cli("training", "--json").stdout))).not.toContainEqual(
        expect.objectContaining({ inquiryId: id }),
      );
      expect(smtp.received.filter((m) => m.mail.headers.get("x-inquiry-id") === id)).toHaveLength(
        1,
      );
      await context.close();
    });
  }

  it(`"I'm on it" from the email and from Slack: the first press is recorded with its time and name, the second says plainly who was first`, async () => {
    slack.respond = () => ({ status: 200 });
    const name = "Robin Answered";
    const id = await send(
      site,
      name,
      "Could you look at our office network before the move in March?",
    );
    const mail = await waitFor(() => leadMail(id));
    const posted = JSON.parse((await waitFor(() => slackFor(name)[0])).body) as {
      blocks: Array<{ type: string; elements?: Array<{ url?: string; text?: { text: string } }> }>;
    };
    const fromSlack = posted.blocks.find((b) => b.type === "actions")?.elements?.[0];
    expect(fromSlack?.text?.text).toBe("I'm on it");
    // Every time a person reads, on the office's clock, and the deadline in each; machines keep ISO UTC.
    const { receivedAt } = site.show(id) as { receivedAt: number };
    const deadline = replyBy(promiseDueAt(receivedAt)) ?? "";
    expect(deadline).toMatch(
      /^Reply by \w{3}, \w{3} \d+, \d+:\d\d [AP]M M[SD]T \(4 business hours\)$/,
    );
    expect(mail.mail.text).toContain(`Received: ${officeTime(receivedAt)}\n`);
    expect(mail.mail.text).toContain(`${deadline}.`);
    expect(mail.mail.html).toContain(`${deadline}.`);
    expect(JSON.stringify(posted.blocks)).toContain(`Received: ${officeTime(receivedAt)}`);
    expect(JSON.stringify(posted.blocks)).toContain(deadline);
    for (const words of [mail.mail.text ?? "", JSON.stringify(posted.blocks)])
      expect(words).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d|UTC/);
    const event = JSON.parse(
      (await waitFor(() => hook.received.find((r) => r.body.includes(id)))).body,
    ) as {
      data: { receivedAt: string; reply: { dueAt: string; replyBy: string } };
    };
    expect(event.data.receivedAt).toBe(new Date(receivedAt).toISOString());
    expect(event.data.reply).toMatchObject({
      dueAt: new Date(promiseDueAt(receivedAt) ?? 0).toISOString(),
      replyBy: deadline,
    });

    // Dana, from the email, JavaScript off: opening shows who has it (nobody) and asks for a name.
    const dana = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await dana.goto(linkIn(mail, "I'm on it"));
    expect(await dana.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Are you answering this lead?",
    );
    expect(await dana.locator("main").textContent()).toContain("Nobody has taken it yet");
    // The page: received and due on the office's clock, and how much of the promise is left.
    const page = (await dana.locator("main").textContent()) ?? "";
    expect(page).toContain(`Received${officeTime(receivedAt)}`);
    expect(page).toContain(`Reply by${deadline.replace(/^Reply by /, "")}`);
    expect(page).toMatch(/Promise(\d+ h( \d+ min)?|\d+ min) of business time left/);
    expect(site.show(id).takenAt).toBeNull();
    await dana.getByLabel(/Your name/).fill("Dana Partner");
    await dana.getByRole("button", { name: "I'm on it" }).click();
    expect(await dana.getByRole("heading", { level: 1 }).textContent()).toBe("You are on it");
    expect(await dana.getByRole("status").textContent()).toMatch(
      /^Taken by Dana Partner at \w{3}, \w{3} \d+, \d+:\d\d [AP]M M[SD]T\./,
    );
    const taken = site.show(id) as { takenAt: number; takenBy: string };
    expect(taken.takenBy).toBe("Dana Partner");
    expect(Math.abs(taken.takenAt - Date.now())).toBeLessThan(60_000);

    // Sam, from Slack's button a moment later: told before pressing, and after; nothing changes.
    const sam = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await sam.goto(fromSlack?.url ?? "");
    expect(await sam.locator("main").textContent()).toContain("Taken by Dana Partner at");
    await sam.getByLabel(/Your name/).fill("Sam");
    await sam.getByRole("button", { name: "I'm on it" }).click();
    expect(await sam.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Someone is already on it",
    );
    expect(await sam.getByRole("status").textContent()).toMatch(
      /^Taken by Dana Partner at .*\. Nothing changed\.$/,
    );
    expect(site.show(id)).toMatchObject({ takenBy: "Dana Partner", takenAt: taken.takenAt });
    // The CLI lists who took it.
    expect(String(site.cli("list").stdout)).toContain("Dana Partner");
    expect(site.server.output()).toContain(`"inquiryId":"${id}","action":"take","first":false`);
    await dana.context().close();
    await sam.context().close();
  });

  it('"Spam" while an attempt is under way: that attempt is not retried, and the page says where the lead had gone', async () => {
    const name = "Alex Inflight";
    // Slack holds this lead's request open until the test lets it go, then fails it (a retry, normally).
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    slack.respond = (r) => (r.body.includes(name) ? { status: 500, after: gate } : { status: 200 });
    const id = await send(site, name, "Could you set up backups for our three office laptops?");
    const mail = await waitFor(() => leadMail(id));
    await waitFor(() => (slackFor(name).length > 0 ? true : undefined));
    type Shown = { deliveries: Array<{ channel: string; status: string }> };
    const statusOf = (channel: string) =>
      (site.show(id) as Shown).deliveries.find((d) => d.channel === channel)?.status;
    await waitFor(() =>
      statusOf("email") === "sent" && statusOf("webhook") === "sent" ? true : undefined,
    );
    expect(statusOf("slack")).toBe("sending");

    const t = new URL(linkIn(mail, "Spam")).searchParams.get("t") ?? "";
    const pressed = await fetch(`${site.server.url}/lead`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: site.server.url },
      body: new URLSearchParams({ t }),
    });
    expect(pressed.status).toBe(200);
    const html = await pressed.text();
    expect(html).toContain(
      "Being sent as you pressed: slack (if that attempt fails, it is not tried again).",
    );
    expect(html).toContain("Already delivered before you pressed: email, webhook.");

    // Slack fails the attempt that was under way: it is cancelled, not retried, and nobody is alerted.
    letGo();
    await waitFor(() => (statusOf("slack") === undefined ? true : undefined));
    // The CLI (spawnSync) held this process while the server wrote its line: read until it is in.
    const cancelled = '"msg":"inquiry delivery cancelled: marked spam while under way';
    await waitFor(() => (site.server.output().includes(cancelled) ? true : undefined));
    const lines = site.server
      .output()
      .split("\n")
      .filter((l) => l.includes(id));
    expect(lines.filter((l) => l.includes("will retry"))).toEqual([]);
    expect(slackFor(name)).toHaveLength(1);
    expect(site.show(id).verdict).toBe("held");
    slack.respond = () => ({ status: 200 });
  });

  it("a reply to the lead email never reaches the visitor; answering them is one click, without the links", async () => {
    slack.respond = () => ({ status: 200 });
    const id = await send(
      site,
      "Jo Reply",
      "Can you look after the laptops of our six-person office?",
    );
    const { mail } = await waitFor(() => leadMail(id));
    const recipients = (mail.to && "value" in mail.to ? mail.to.value : []).map((a) => a.address);
    // Reply (or Reply all): the mail client answers Reply-To, which is the email's own recipients.
    const replyGoesTo = (mail.replyTo?.value ?? mail.from?.value ?? []).map((a) => a.address);
    expect(replyGoesTo).toEqual(recipients);
    expect(replyGoesTo).not.toContain("visitor@example.org");
    expect(mail.headerLines.map((h) => h.line).join("\n")).not.toContain("visitor@example.org");
    // "Reply to Jo Reply": a new message to the visitor with a "Re: " subject and nothing of the lead's links.
    const href =
      /<a [^>]*href="(mailto:[^"]+)"[^>]*>Reply to Jo Reply<\/a>/.exec(String(mail.html))?.[1] ??
      "";
    const answer = new URL(href.replaceAll("&amp;", "&"));
    expect(decodeURIComponent(answer.pathname)).toBe("visitor@example.org");
    expect(answer.searchParams.get("subject")).toMatch(/^Re: /);
    expect([...answer.searchParams.keys()]).toEqual(["subject"]);
    expect(mail.text).toContain(
      `Reply to Jo Reply (a new message to them, without this email's links):\n${href}`,
    );
  });

  it("a held message's link on the digest's overview page delivers it as a new lead, and the filter learns it as genuine", async () => {
    slack.respond = () => ({ status: 200 });
    const name = "Robin Held";
    // No form token from a page of our own (a script, say): held, and listed on the overview page.
    const id = await send(site, name, "Can you quote a network for our new office in Cody?", {
      token: false,
    });
    expect(site.show(id).verdict).toBe("held");
    // The overview link a morning digest carries, signed with the server's own key as it signs it.
    const db = openDatabase({ dataDir: site.server.dataDir });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const overview = leadLinks(ring, {
      SITE_URL: site.server.url,
      INQUIRY_LINK_DAYS: 30,
    }).overview().url;
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(overview);
    const listed = page.getByRole("listitem").filter({ hasText: name });
    expect(await listed.getByRole("link").allTextContents()).toEqual(["Not spam"]);
    await listed.getByRole("link", { name: "Not spam" }).click();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Is this message not spam?",
    );
    await page.getByRole("button", { name: "Not spam" }).click();
    expect(await page.getByRole("status").textContent()).toContain(
      "Queued for delivery: email, webhook, slack",
    );
    await waitFor(() => leadMail(id));
    await waitFor(() => (slackFor(name).length > 0 ? true : undefined));
    expect(JSON.parse(String(site.cli("training", "--json").stdout))).toContainEqual(
      expect.objectContaining({ inquiryId: id, label: "genuine" }),
    );
    // Opened again (Back: the page is never stored, so it is asked for again) it shows the state now,
    // and pressed again (a second person) nothing more happens.
    await page.goBack();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Is this message not spam?",
    );
    await page.getByRole("button", { name: "Not spam" }).click();
    expect(await page.getByRole("status").textContent()).toContain("already");
    // Nothing more queued: one delivery per channel, the one email already received.
    const deliveries = (site.show(id) as { deliveries: Array<{ channel: string }> }).deliveries;
    expect(deliveries.map((d) => d.channel).sort()).toEqual(["email", "slack", "webhook"]);
    expect(smtp.received.filter((m) => m.mail.headers.get("x-inquiry-id") === id)).toHaveLength(1);
    await context.close();
  });

  it("a lead's own links never open the overview page: each action's token is refused there", async () => {
    slack.respond = () => ({ status: 200 });
    const name = "Lou Scoped";
    const id = await send(
      site,
      name,
      "Could you set up backups for the laptops of our small office?",
    );
    const mail = await waitFor(() => leadMail(id));
    // The links its email carries, and one for every action, signed with the server's own key.
    const db = openDatabase({ dataDir: site.server.dataDir });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const links = leadLinks(ring, { SITE_URL: site.server.url, INQUIRY_LINK_DAYS: 30 });
    const tokens = [
      ...["I'm on it", "Spam"].map(
        (label) => new URL(linkIn(mail, label)).searchParams.get("t") ?? "",
      ),
      ...Object.keys(ACTION_LABEL).map((action) => links.token(id, action)),
    ];
    for (const t of tokens) {
      const opened = await fetch(`${site.server.url}/overview?t=${encodeURIComponent(t)}`);
      expect(opened.status, t).toBe(400);
      const page = await opened.text();
      expect(page, t).toContain("This link is not valid");
      expect(page, t).not.toContain(name);
    }
  });

  it("a possible-spam lead says so in the email, in Slack and in the webhook, with both links", async () => {
    slack.respond = () => ({ status: 200 });
    const message = "We have a proposal for your company. Who is the right person to talk to?";
    const score = model.score({ company: "", message });
    expect(score).toBeGreaterThanOrEqual(SPAM_SUSPECT_SCORE);
    expect(score).toBeLessThan(SPAM_HOLD_SCORE);
    const name = "Sam Band";
    const id = await send(site, name, message);
    const mail = await waitFor(() => leadMail(id));
    expect(mail.mail.subject).toMatch(/^\[Possible spam\] New inquiry: /);
    expect(linkIn(mail, "Spam")).toMatch(/\/lead\?t=/);
    expect(linkIn(mail, "Not spam")).toMatch(/\/lead\?t=/);
    const posted = JSON.parse((await waitFor(() => slackFor(name)[0])).body) as {
      text: string;
      blocks: Array<{ type: string; elements?: Array<{ url?: string; text?: { text: string } }> }>;
    };
    expect(posted.text).toMatch(/^\[Possible spam\]/);
    const buttons = posted.blocks.find((b) => b.type === "actions")?.elements ?? [];
    expect(buttons.map((b) => b.text?.text)).toEqual(["I'm on it", "Spam", "Not spam"]);
    const payload = JSON.parse(
      (await waitFor(() => hook.received.find((r) => r.body.includes(id)))).body,
    ) as {
      data: { spam: { verdict: string; score: number }; links: Record<string, string> };
    };
    // The server's model has learned the marks of the tests before: its own score, in the band.
    expect(payload.data.spam.verdict).toBe("suspect");
    expect(payload.data.spam.score).toBeGreaterThanOrEqual(SPAM_SUSPECT_SCORE);
    expect(payload.data.spam.score).toBeLessThan(SPAM_HOLD_SCORE);
    expect(Object.keys(payload.data.links)).toEqual(["take", "spam", "not-spam"]);
    // The CLI says the same, in the field the issue names.
    const listed = JSON.parse(String(site.cli("list", "--json").stdout)) as Array<{
      id: string;
      verdict: string;
    }>;
    expect(listed.find((r) => r.id === id)?.verdict).toBe("suspect");
    expect(String(site.cli("show", id).stdout)).toMatch(/Verdict: +suspect \(score 0\.\d{3}\)/);
    // "Not spam", from the Slack button's link (a GET, then the page's POST): the filter learns it as genuine.
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(payload.data.links["not-spam"] ?? "");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Is this message not spam?",
    );
    await page.getByRole("button", { name: "Not spam" }).click();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Marked as not spam");
    expect(JSON.parse(String(site.cli("training", "--json").stdout))).toContainEqual(
      expect.objectContaining({ inquiryId: id, label: "genuine" }),
    );
    await context.close();
  });

  it("a forged, altered or expired link gets a clear 4xx page and changes nothing; the pages are private", async () => {
    slack.respond = () => ({ status: 200 });
    const id = await send(site, "Lee Forged", "Do you support Mac computers in a small office?");
    const mail = await waitFor(() => leadMail(id));
    const link = new URL(linkIn(mail, "Spam"));
    const token = link.searchParams.get("t") ?? "";
    // The server's own keys, read from its database as another instance would.
    const db = openDatabase({ dataDir: site.server.dataDir });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const config = { SITE_URL: site.server.url, INQUIRY_LINK_DAYS: 30 };
    const made31DaysAgo = leadLinks(ring, config).token(id, "spam", Date.now() - 31 * 86_400_000);
    const otherKey = leadLinks((await attachedTestKeys()).ring, config);
    const cases: Array<[string, string, number, string]> = [
      [
        "altered signature",
        `${token.slice(0, -2)}${token.endsWith("A") ? "BB" : "AA"}`,
        400,
        "This link is not valid",
      ],
      ["another inquiry", token.replace(/^[0-9a-f]{8}/, "00000000"), 400, "This link is not valid"],
      ["another action", token.replace(".spam.", ".lead."), 400, "This link is not valid"],
      ["signed with another key", otherKey.token(id, "spam"), 400, "This link is not valid"],
      ["expired", made31DaysAgo, 410, "This link has expired"],
      [
        "naming a key never made",
        otherKey.token(id, "spam").replace(".k1.", ".k9."),
        400,
        "This link is not valid",
      ],
      ["not a token", "hello", 400, "This link is not valid"],
    ];
    // Signed by this server for an inquiry its database does not hold (deleted, or newer than the
    // backup it was restored from): the page says only that, never that it was deleted.
    const absent = await fetch(
      `${site.server.url}/lead?t=${encodeURIComponent(leadLinks(ring, config).token(id.replace(/^[0-9a-f]{8}/, "00000000"), "spam"))}`,
    );
    expect(absent.status).toBe(404);
    const absentPage = await absent.text();
    expect(absentPage).toContain("This inquiry is not in our records");
    expect(absentPage).toContain(
      "if the database was restored from a backup, it may be newer than that backup",
    );
    expect(absentPage).not.toMatch(/It was deleted|no longer here/);
    for (const [what, t, status, title] of cases) {
      const get = await fetch(`${site.server.url}/lead?t=${encodeURIComponent(t)}`);
      expect(get.status, what).toBe(status);
      const page = await get.text();
      expect(page, what).toContain(title);
      // What to do instead, without a shell, and no command or variable name for the company's people.
      expect(page, what).toContain("ask whoever runs this website");
      expect(page, what).not.toMatch(/npm run|INQUIRY_LINK_DAYS|--by/);
      const post = await fetch(`${site.server.url}/lead`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: site.server.url },
        body: new URLSearchParams({ t }),
      });
      expect(post.status, what).toBe(status);
    }
    // One action each, whatever the page: a lead's links open no booking page, where they would
    // confirm or decline its time, and the visitor's booking link opens no lead page.
    for (const action of ["spam", "take", "not-spam"]) {
      const t = leadLinks(ring, config).token(id, action);
      const onBook = await fetch(`${site.server.url}/book?t=${encodeURIComponent(t)}`);
      expect(onBook.status, action).toBe(400);
      expect(await onBook.text(), action).toContain("This link is not valid");
    }
    const booking = leadLinks(ring, config).token(id, "book");
    const onLead = await fetch(`${site.server.url}/lead?t=${encodeURIComponent(booking)}`);
    expect(onLead.status).toBe(400);
    expect(await onLead.text()).toContain("This link is not valid");
    expect(site.show(id).verdict).toBe("clean");
    expect(JSON.parse(String(site.cli("training", "--json").stdout))).not.toContainEqual(
      expect.objectContaining({ inquiryId: id }),
    );
    // Private: not stored, not indexed, no referrer; the strict policy (no script at all).
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'none'");
    const html = await page.text();
    expect(html).toContain('<meta name="robots" content="noindex, nofollow"/>');
    expect(html).not.toMatch(/<script(?![^>]*application\/ld\+json)/);
    // The log names the inquiry and the action, never the token.
    expect(site.server.output()).not.toContain(token);
    expect(site.server.output()).toContain('"msg":"lead link refused: expired (used)"');
    // Other methods are refused without a 5xx.
    const put = await fetch(`${site.server.url}/lead`, { method: "PUT" });
    expect(put.status).toBe(405);
  });

  it("Undo expires with the link it came from: pressed after that link's expiry, it changes nothing", async () => {
    const id = await send(
      site,
      "Max Expiring",
      "Could you check why our office printer drops off the network?",
    );
    await waitFor(() => leadMail(id));
    // A Spam link sent 30 days ago, less four seconds: it works now, and stops working in four seconds.
    const db = openDatabase({ dataDir: site.server.dataDir });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const links = leadLinks(ring, { SITE_URL: site.server.url, INQUIRY_LINK_DAYS: 30 });
    const t = links.token(id, "spam", Date.now() - 30 * 86_400_000 + 4_000);
    const expiresAt = Number.parseInt(t.split(".")[2] ?? "", 36) * 1000;
    const press = (fields: Record<string, string>) =>
      fetch(`${site.server.url}/lead`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: site.server.url },
        body: new URLSearchParams({ t, ...fields }),
      });
    const done = await press({});
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain("Marked as spam");
    // The Undo button carries that same link, not a fresh one with 30 days of its own.
    const tokens = [...html.matchAll(/name="t" value="([^"]+)"/g)].map((m) => m[1]);
    expect(tokens).toEqual([t]);
    await waitFor(() => (Date.now() > expiresAt ? true : undefined));
    const undo = await press({ undo: "1" });
    expect(undo.status).toBe(410);
    expect(await undo.text()).toContain("This link has expired");
    expect(site.show(id).verdict).toBe("held");
    expect(JSON.parse(String(site.cli("training", "--json").stdout))).toContainEqual(
      expect.objectContaining({ inquiryId: id, label: "spam" }),
    );
  });

  it("is rate-limited per address: a script pressing the button over and over is stopped with 429", async () => {
    const id = await send(site, "Kim Limit", "Can you help us move our files to the cloud?");
    const mail = await waitFor(() => leadMail(id));
    const t = new URL(linkIn(mail, "Spam")).searchParams.get("t") ?? "";
    const from = nextIp();
    const press = () =>
      fetch(`${site.server.url}/lead`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: site.server.url,
          "x-forwarded-for": from,
        },
        body: new URLSearchParams({ t }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < ACTIONS_PER_WINDOW + 1; i++) statuses.push((await press()).status);
    expect(statuses.slice(0, ACTIONS_PER_WINDOW).every((s) => s === 200)).toBe(true);
    const last = await press();
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    // Idempotent: thirty presses, one mark.
    expect(
      (
        JSON.parse(String(site.cli("training", "--json").stdout)) as Array<{ inquiryId: string }>
      ).filter((m) => m.inquiryId === id),
    ).toHaveLength(1);
  });
});

describe("on PostgreSQL with two instances", { timeout: 60_000 }, () => {
  let a: Site;
  let b: Site;
  let smtp: TestSmtp;
  let browser: Browser;
  let cleanup: () => Promise<void>;
  let databaseUrl = "";

  beforeAll(async () => {
    smtp = await new TestSmtp().start();
    const engine = await engineEnv("postgres", "lead_links");
    cleanup = engine.cleanup;
    databaseUrl = engine.env.DATABASE_URL ?? "";
    // A narrow band (possible spam from 0.9), so "before" is plainly clean and "after" plainly caught.
    a = await startSite({ ...engine.env, SMTP_URL: smtp.url }, { SPAM_SUSPECT_SCORE: 0.9 });
    b = await startSite({ ...engine.env, SMTP_URL: smtp.url }, { SPAM_SUSPECT_SCORE: 0.9 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.server.stop(), b?.server.stop()]);
    await smtp?.stop();
    await cleanup?.();
  });

  it("a second press, through the other instance or at the same moment, answers as one instance does", async () => {
    const press = (site: Site, t: string) =>
      fetch(`${site.server.url}/lead`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: site.server.url,
          "x-forwarded-for": nextIp(),
        },
        body: new URLSearchParams({ t }),
      }).then(async (r) => ({ status: r.status, text: await r.text() }));
    // The instances share the keys in their database (ADR 0017): read them as a third instance would.
    const db = openDatabase({ dataDir: a.server.dataDir, DATABASE_URL: databaseUrl });
    const ring = new KeyRing();
    await ring.attach(db);
    await db.close();
    const links = leadLinks(ring, { SITE_URL: a.server.url, INQUIRY_LINK_DAYS: 30 });
    for (const action of ["spam", "not-spam"] as const) {
      // One after the other: A, then B.
      const first = await send(
        a,
        `Twice ${action}`,
        "Could you quote a backup plan for our two offices?",
      );
      const t1 = links.token(first, action);
      const one = await press(a, t1);
      const two = await press(b, t1);
      expect([one.status, two.status], action).toEqual([200, 200]);
      expect(two.text, action).toContain("It was already marked so");
      // At the same moment, one through each.
      const second = await send(
        b,
        `Together ${action}`,
        "Could you quote a backup plan for our three offices?",
      );
      const t2 = links.token(second, action);
      const both = await Promise.all([press(a, t2), press(b, t2), press(a, t2), press(b, t2)]);
      expect(
        both.map((r) => r.status),
        action,
      ).toEqual([200, 200, 200, 200]);
      expect(
        both.filter((r) => r.text.includes("It was already marked so")).length,
        action,
      ).toBeGreaterThanOrEqual(3);
      expect(a.show(second).verdict, action).toBe(action === "spam" ? "held" : "clean");
    }
  });

  it("a mark through one instance's link is seen by the other within seconds", async () => {
    // A kind the corpus lacks, scored clean by both instances before any mark.
    const pitch = (who: string) =>
      `Hello, we tune up bicycles for commuters at their workplace in Laramie. Should we come by your building on Friday? Best, ${who}`;
    const first = await send(b, "Pod One", pitch("Ana"));
    expect(b.show(first).verdict).toBe("clean");
    // Marked spam through instance A's link (the email came from whichever instance sent it).
    const mail = await waitFor(() =>
      smtp.received.find((m) => m.mail.headers.get("x-inquiry-id") === first),
    );
    const link = new URL(linkIn(mail, "Spam"));
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${a.server.url}${link.pathname}${link.search}`);
    await page.getByRole("button", { name: "Spam", exact: true }).click();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Marked as spam");
    await context.close();
    const markedAt = Date.now();
    // Instance B catches the next one by its words as soon as it looks (within RELEARN_CHECK_MS).
    let caught = false;
    let n = 0;
    while (!caught && Date.now() - markedAt < 5_000) {
      const id = await send(b, `Pod ${++n}`, pitch(`Bo ${n}`));
      caught = b.show(id).verdict !== "clean";
      if (!caught) await new Promise((r) => setTimeout(r, 500));
    }
    expect(caught).toBe(true);
    expect(Date.now() - markedAt).toBeLessThan(5_000);
  });
});

/**
 * The overview page hands out each open lead's links: they expire with the digest's link that opened
 * it, so a forwarded overview gives no more than its own days. The server's clock is Debian's
 * faketime (it starts at the given UTC time and runs); the server restarts on its DATA_DIR later on.
 */
describe("the links on the overview page, on the server's clock", { timeout: 120_000 }, () => {
  it("expire when the overview link that opened the page does; the lead's own email keeps its 30 days", async () => {
    const smtp = await new TestSmtp().start();
    const dataDir = mkdtempSync(join(tmpdir(), "overview-expiry-"));
    let server: RunningServer | undefined;
    const startAt = async (ms: number) => {
      const port = await freePort();
      return startServer(
        {
          SITE_URL: `http://127.0.0.1:${port}`,
          SMTP_URL: smtp.url,
          SPAM_FILTER: "off",
          DATA_DIR: dataDir,
          TZ: "UTC",
          LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
          FAKETIME: `@${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}`,
          FAKETIME_DONT_RESET: "1",
        },
        port,
        // The overview link comes in the morning digest: this test's servers send it.
        {
          OUTBOX_POLL_MS: 50,
          SPAM_MIN_FILL_MS: 0,
          HOUSEKEEPING_TURN_MS: 200,
          SCHEDULE: ["digest"],
        },
      );
    };
    // The same path on the server running now (its port is new at each start).
    const onServer = (link: string) => {
      const url = new URL(link);
      return `${server?.url}${url.pathname}${url.search}`;
    };
    const field = (html: string) => /name="t" value="([^"]+)"/.exec(html)?.[1] ?? "";
    try {
      // Monday 30 November 2026, 9:05 AM MST, just after opening: a lead, then the morning digest.
      server = await startAt(Date.parse("2026-11-30T16:05:00Z"));
      const name = "Noor Forwarded";
      const sent = await sendAsPage(server.url, {
        name,
        email: "noor@example.org",
        message: "Could you move our shared files to the cloud before the new year?",
      });
      expect(sent.status).toBe(201);
      const id = String(((await sent.json()) as { id: string }).id);
      const mail = await waitFor(
        () => smtp.received.find((m) => m.mail.headers.get("x-inquiry-id") === id),
        30_000,
      );
      const digest = await waitFor(
        () => smtp.received.find((m) => m.mail.headers.get("x-alert") === "digest"),
        30_000,
      );
      const overview = /^(http\S+\/overview\?t=\S+)$/m.exec(digest.mail.text ?? "")?.[1] ?? "";
      const expires =
        Number.parseInt(new URL(overview).searchParams.get("t")?.split(".")[1] ?? "", 36) * 1000;
      expect(expires).toBeGreaterThan(Date.parse("2026-12-05T16:05:00Z"));

      const page = await (await fetch(overview)).text();
      expect(page).toContain(name);
      const onPage = [...page.matchAll(/href="([^"]*\/lead\?t=[^"]+)"/g)].map((m) =>
        (m[1] ?? "").replaceAll("&amp;", "&"),
      );
      expect(onPage).toHaveLength(2);
      const [take = "", spam = ""] = onPage;
      // They work now: marked spam through the page's link, the lead is held, and its "I'm on it"
      // link opens a page whose button is "Not spam", carrying a link of its own.
      const marked = await fetch(`${server.url}/lead`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
        body: new URLSearchParams({ t: new URL(spam).searchParams.get("t") ?? "" }),
      });
      expect(await marked.text()).toContain("Marked as spam");
      const swapped = await (await fetch(take)).text();
      expect(swapped).toContain("Is this message not spam?");
      const notSpam = field(swapped);
      expect(notSpam).not.toBe(new URL(take).searchParams.get("t"));
      await server.stop();

      // One second after the overview link's expiry (Saturday, before opening: no digest to wait for).
      server = await startAt(expires + 1_000);
      const refused = [overview, take, spam, `${server.url}/lead?t=${encodeURIComponent(notSpam)}`];
      for (const link of refused) {
        const opened = await fetch(onServer(link));
        expect(opened.status, link).toBe(410);
        const html = await opened.text();
        expect(html, link).toContain("This link has expired");
        expect(html, link).not.toContain(name);
      }
      // The lead's email, which only the people who get leads have, works its 30 days.
      const own = await fetch(onServer(linkIn(mail, "I'm on it")));
      expect(own.status).toBe(200);
      expect(await own.text()).toContain(name);
    } finally {
      await server?.stop();
      await smtp.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
