import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { TUNING } from "../server/config.ts";
import {
  ContentModel,
  type Example,
  seedCorpus,
  WORDS_TRUST,
} from "../server/contact/intake/content-filter.ts";
import { NO_TOKEN_LOG2_ODDS } from "../server/contact/intake/spam.ts";
import { launchChromium } from "../tests/support/chromium.ts";
import { startServer } from "../tests/support/server.ts";
import { TestSmtp } from "../tests/support/smtp.ts";
import {
  type Bounds,
  corpusKinds,
  evalKinds,
  learning,
  leaveOneKindOut,
  margin,
  newKind,
  newKindWindows,
  summary,
  trustSweep,
  withoutNewKind,
  writeCorpus,
} from "./spam-kinds.ts";
import { spamSection } from "./spam-section.ts";

/**
 * The spam defence against the bot corpus (bench/spam-corpus.json), against marketing written by
 * people, and against people, on the production server with its default settings and a real SMTP
 * server as the company inbox:
 *   npm run bench:spam [-- --n 40 --paced 0]
 * Prints, per class, how many were sent, answered (2xx/3xx, as a person is), and reached the inbox.
 * The content filter is trained on four fifths of the seed corpus (TUNING.SPAM_CORPUS_DIR) and the fifth it
 * never saw is typed in Chromium at a person's pace (`--paced N`: at most N of each kind; 0: all).
 * The browsers stand for visitors behind a proxy, each with an X-Forwarded-For of its own (the
 * server trusts the loopback proxy; bots without the header are their socket's address).
 * Then: a 5-fold cross-validation of the whole corpus with the same model code, the learning curve
 * on a kind of spam taken out of the corpus first (bench/spam-new-kind.tsv, marked with
 * `inquiries spam ID`), leave-one-kind-out over the corpus's kinds (scripts/spam-kinds.ts, with the
 * band's bounds swept), the evaluation set (bench/spam-eval/), and the cost of scoring one message.
 * Needs a build (`npm run build`) and Debian's Chromium.
 */

const { values: opts } = parseArgs({
  options: { n: { type: "string", default: "40" }, paced: { type: "string", default: "0" } },
});
const N = Number(opts.n);
const PACED = Number(opts.paced) || Number.POSITIVE_INFINITY;
const FOLDS = 5;
/** The server's band of possible spam, and the hold (intake/content-filter.ts). */
const BOUNDS: Bounds = { suspect: TUNING.SPAM_SUSPECT_SCORE, hold: TUNING.SPAM_HOLD_SCORE };

/**
 * The seed corpus split: every fifth message of each label held out, the rest written where the
 * server reads it, without the learning curve's kind (podcast guest booking).
 */
function splitCorpus(): { dir: string; heldOut: Example[] } {
  const heldOut: Example[] = [];
  const train: Example[] = [];
  for (const label of ["spam", "genuine"] as const) {
    const all = withoutNewKind(seedCorpus()).filter((e) => e.label === label);
    train.push(...all.filter((_, i) => i % FOLDS !== 0));
    heldOut.push(...all.filter((_, i) => i % FOLDS === 0));
  }
  return { dir: writeCorpus(train), heldOut };
}

/** Every message scored by a model trained on the other four fifths (the server's own model code). */
function crossValidate() {
  const all = seedCorpus();
  const held = { spam: 0, spamCaught: 0, spamTotal: 0, genuineDelivered: 0, genuineTotal: 0 };
  for (let k = 0; k < FOLDS; k++) {
    const model = new ContentModel(all.filter((_, i) => i % FOLDS !== k));
    for (const e of all.filter((_, i) => i % FOLDS === k)) {
      const score = model.score(e);
      const isHeld = score >= BOUNDS.hold;
      if (e.label === "spam") {
        held.spamTotal += 1;
        if (isHeld) held.spam += 1;
        if (score >= BOUNDS.suspect) held.spamCaught += 1;
      } else {
        held.genuineTotal += 1;
        if (!isHeld) held.genuineDelivered += 1;
      }
    }
  }
  return held;
}

/**
 * The corpus in kinds, each scored by a model that never saw it (leave-one-kind-out); the band's
 * lower bound swept, to choose its default; a missing form token from an allowed origin weighed in;
 * the learning from three marks of each kind; and the learning curve's kind, window by window.
 */
function kindsFigures() {
  const seed = seedCorpus();
  const kinds = corpusKinds(seed);
  const loko = leaveOneKindOut(seed, kinds);
  const sweep = [0.1, 0.2, 0.25, 0.3, 0.4, 0.45, 0.5].map((suspect) => {
    const l = summary(kinds, loko, { suspect, hold: BOUNDS.hold });
    return { suspect, spamUnmarkedPct: l.spamUnmarkedPct, genuineMarkedPct: l.genuineMarkedPct };
  });
  return {
    kinds: kinds.map((k) => ({ kind: k.name, messages: k.examples.length })),
    bounds: BOUNDS,
    trust: {
      chosen: WORDS_TRUST,
      sweep: trustSweep(seed, kinds, [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.5]),
    },
    leaveOneKindOut: summary(kinds, loko, BOUNDS),
    margin: margin(kinds, loko, BOUNDS.hold),
    tokenlessFromAllowedOrigin: summary(
      kinds,
      leaveOneKindOut(seed, kinds, NO_TOKEN_LOG2_ODDS),
      BOUNDS,
    ),
    sweep,
    learning: learning(seed, kinds, BOUNDS),
    newKindWindows: newKindWindows(seed, BOUNDS),
  };
}

/**
 * The evaluation set (bench/spam-eval/), never tuned on: scored by the model as shipped (the seed
 * corpus), as the server scores a message. Reported in aggregate, and per kind.
 */
function evaluation() {
  const kinds = evalKinds();
  const model = new ContentModel(seedCorpus());
  const scores = new Map(kinds.map((k) => [k.name, k.examples.map((e) => model.score(e))]));
  const s = summary(kinds, scores, BOUNDS);
  return { kinds: kinds.length, ...s, margin: margin(kinds, scores, BOUNDS.hold) };
}

/** Microseconds to score one message, over the whole corpus many times. */
function scoringCost(): number {
  const all = seedCorpus();
  const model = new ContentModel(all);
  const rounds = 5;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) for (const e of all) model.score(e);
  return Math.round(((performance.now() - started) * 1000) / (rounds * all.length));
}
const pct = (n: number, of: number) => Number(((100 * n) / Math.max(1, of)).toFixed(1));
const corpus = JSON.parse(
  readFileSync(new URL("../bench/spam-corpus.json", import.meta.url), "utf8"),
) as {
  senders: Array<{ name: string; email: string; company: string }>;
  messages: string[];
  linkStuffed: string[];
};

type Row = {
  class: string;
  kind: "bot" | "person" | "paced spam" | "paced genuine";
  sent: number;
  answered: number;
  inbox: number;
  /** Of those, how many marked possible spam. */
  marked: number;
  markers: string[];
};
const rows: Row[] = [];
let seq = 0;

/** One HTTP request from a chosen loopback source address (127.0.0.0/8). */
function send(
  url: string,
  opts: {
    method?: string;
    path: string;
    headers: Record<string, string>;
    body: string;
    from?: string;
  },
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
  const s = corpus.senders[i % corpus.senders.length] ?? {
    name: "Bot",
    email: "bot@example.com",
    company: "",
  };
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
  const split = splitCorpus();
  // The browsers stand for visitors behind the proxy: each context's X-Forwarded-For is its address.
  // Untrusted, every page would come from 127.0.0.1 and meet RATE_LIMIT_PER_DAY (50) after about 60.
  const server = await startServer({ SMTP_URL: smtp.url, TRUST_PROXY: "loopback" }, undefined, {
    OUTBOX_POLL_MS: 100,
    SPAM_CORPUS_DIR: split.dir,
  });
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["server/cli.ts", ...args], {
      env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "" },
      encoding: "utf8",
    });
  const tokenOf = async () =>
    /name="form_token" value="([^"]+)"/.exec(
      await (await fetch(`${server.url}/contact`)).text(),
    )?.[1] ?? "";
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
  const run = async (
    name: string,
    kind: Row["kind"],
    count: number,
    one: (i: number) => Promise<[string, number]>,
  ) => {
    const row: Row = { class: name, kind, sent: 0, answered: 0, inbox: 0, marked: 0, markers: [] };
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
        await json(
          b.fields,
          { authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`, origin: server.url },
          addr(2000 + i),
        ),
      ];
    });
    await run("form post filling every input", "bot", N, async (i) => {
      const b = bot(i);
      return [
        b.marker,
        await form(
          { ...b.fields, website: "https://seo.example", form_token: "x" },
          addr(3000 + i),
        ),
      ];
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
    // Each visitor's own context; a machine shared with other work gets two minutes per step.
    const newContext = async (options: Parameters<typeof browser.newContext>[0]) => {
      const context = await browser.newContext(options);
      context.setDefaultTimeout(120_000);
      return context;
    };
    // Sent: the dialog (JavaScript on) or the sent page (off). The one that does not come must not
    // fail the run when it times out, and a loaded machine gets two minutes.
    const submitted = async (page: Page) => {
      const waits = [
        page
          .getByRole("dialog", { name: "Message Sent Successfully!" })
          .waitFor({ timeout: 45_000 }),
        page.waitForURL(/\/contact\/sent\?t=/, { timeout: 45_000 }),
      ];
      for (const w of waits) w.catch(() => undefined);
      // Neither: counted as not answered (the row says so), not a crash of the whole run.
      return Promise.any(waits).then(
        () => 201,
        () => 0,
      );
    };
    await run("headless browser at machine speed", "bot", 5, async (i) => {
      const b = bot(i);
      // Each browser from an address of its own (through the trusted local proxy header), so the
      // rate limits do not decide the figure.
      const context = await newContext({
        extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${10 + i}` },
      });
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
        const context = await newContext({
          javaScriptEnabled: js,
          extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${(js ? 10 : 20) + i}` },
        });
        const page = await context.newPage();
        await page.goto(`${server.url}/contact`);
        await page
          .getByLabel("Full Name")
          .pressSequentially(`Dana Rivera ${marker}`, { delay: 60 });
        await page
          .getByLabel("Email Address")
          .pressSequentially(`dana${i}@example.org`, { delay: 40 });
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
    // Marketing and genuine messages the filter never saw, typed at a person's pace.
    const paced = async (page: Page, e: Example, marker: string) => {
      const started = Date.now();
      await page.goto(`${server.url}/contact`);
      await page.getByLabel("Full Name").pressSequentially(`Jordan Lee ${marker}`, { delay: 30 });
      await page.getByLabel("Email Address").pressSequentially("jordan@example.org", { delay: 20 });
      if (e.company) await page.getByLabel("Company").pressSequentially(e.company, { delay: 20 });
      await page
        .getByRole("textbox", { name: "Message" })
        .pressSequentially(e.message, { delay: 4 });
      // A person reads it over before sending: never sooner than 4 s after the page.
      await page.waitForTimeout(Math.max(0, 4_000 - (Date.now() - started)));
      await page.getByRole("button", { name: "Send Message" }).click();
      return submitted(page);
    };
    for (const label of ["spam", "genuine"] as const) {
      const texts = split.heldOut.filter((e) => e.label === label).slice(0, PACED);
      const name =
        label === "spam"
          ? "marketing spam typed at a person's pace"
          : "genuine inquiry typed the same way";
      await run(
        name,
        label === "spam" ? "paced spam" : "paced genuine",
        texts.length,
        async (i) => {
          const marker = `H${(seq++).toString(36)}`;
          const context = await newContext({
            extraHTTPHeaders: { "x-forwarded-for": `198.18.${i}.${label === "spam" ? 10 : 20}` },
          });
          const page = await context.newPage();
          const status = await paced(page, texts[i] as Example, marker);
          await context.close();
          return [marker, status];
        },
      );
    }
    await browser.close();

    // The learning curve: a kind of spam the corpus lacks, before and after operator marks.
    const podcasts = newKind();
    const [toMark, toTest] = [podcasts.slice(0, 20), podcasts.slice(20)];
    let ipSeq = 0;
    const sendAll = async (list: Array<{ company: string; message: string }>, tag: string) => {
      const tokens = await Promise.all(list.map(() => tokenOf()));
      await new Promise((r) => setTimeout(r, 3_500));
      return Promise.all(
        list.map(async (e, i) => {
          const res = await fetch(`${server.url}${CONTACT_API_PATH}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
              "x-form-token": tokens[i] ?? "",
              "x-forwarded-for": `198.19.${ipSeq++ % 250}.${1 + (ipSeq % 250)}`,
            },
            body: JSON.stringify({
              name: `Pod ${tag} ${i}`,
              email: "pod@example.org",
              company: e.company,
              service: "",
              message: `${e.message} (${tag})`,
            }),
          });
          return String(((await res.json()) as { id?: string }).id ?? "");
        }),
      );
    };
    // Caught: marked as possible spam, or held by its words (`inquiries list --json`: verdict and reason).
    const caughtByWords = (ids: string[]) => {
      const listed = JSON.parse(cli("list", "--json").stdout) as Array<{
        id: string;
        verdict: string;
        heldReason: string | null;
      }>;
      return ids.filter((id) =>
        listed.some(
          (r) =>
            r.id === id &&
            (r.verdict === "suspect" || /reads like marketing/.test(r.heldReason ?? "")),
        ),
      ).length;
    };
    const curve: Array<{ marks: number; held: number; of: number }> = [];
    const markedIds = await sendAll(toMark, "m");
    let marked = 0;
    for (const marks of [0, 3, 20]) {
      for (; marked < marks; marked++) cli("spam", markedIds[marked] ?? "");
      await new Promise((r) => setTimeout(r, 2_500)); // every instance learns again within 2 s
      curve.push({
        marks,
        held: caughtByWords(await sendAll(toTest, `t${marks}`)),
        of: toTest.length,
      });
    }

    // Let the outbox deliver what it will, then count the inbox per class.
    await new Promise((r) => setTimeout(r, 5_000));
    // A lead email (marked possible spam or not) names its sender on the "Name:" line, marker last
    // (not anywhere in the raw message: a short marker can occur inside a signed link's token).
    const leads = smtp.received
      .filter((m) => /New inquiry/.test(m.mail.subject ?? ""))
      .map((m) => ({
        name: /^Name: (.*)$/m.exec(m.mail.text ?? "")?.[1] ?? "",
        marked: (m.mail.subject ?? "").startsWith("[Possible spam]"),
      }));
    const reached = (marker: string) => leads.find((l) => l.name.endsWith(` ${marker}`));
    for (const row of rows) {
      row.inbox = row.markers.filter((m) => reached(m)).length;
      row.marked = row.markers.filter((m) => reached(m)?.marked).length;
    }

    const table = rows.map((r) => ({
      class: r.class,
      kind: r.kind,
      sent: r.sent,
      answered: r.answered,
      "reached inbox": r.inbox,
      "of those marked": r.marked,
      "inbox %": Number(((100 * r.inbox) / Math.max(1, r.sent)).toFixed(1)),
    }));
    console.table(table);
    const cv = crossValidate();
    const costUs = scoringCost();
    const pacedSpam = rows.find((r) => r.kind === "paced spam");
    const pacedPeople = rows.find((r) => r.kind === "paced genuine");
    const kinds = kindsFigures();
    const content = {
      bounds: BOUNDS,
      crossValidation: {
        folds: FOLDS,
        spamHeld: cv.spam,
        spam: cv.spamTotal,
        spamHeldPct: pct(cv.spam, cv.spamTotal),
        spamCaught: cv.spamCaught,
        spamCaughtPct: pct(cv.spamCaught, cv.spamTotal),
        genuineDelivered: cv.genuineDelivered,
        genuine: cv.genuineTotal,
        genuineDeliveredPct: pct(cv.genuineDelivered, cv.genuineTotal),
      },
      paced: {
        spamHeld: (pacedSpam?.sent ?? 0) - (pacedSpam?.inbox ?? 0),
        spamCaught: (pacedSpam?.sent ?? 0) - (pacedSpam?.inbox ?? 0) + (pacedSpam?.marked ?? 0),
        spam: pacedSpam?.sent ?? 0,
        genuineDelivered: pacedPeople?.inbox ?? 0,
        genuine: pacedPeople?.sent ?? 0,
      },
      learningCurve: curve,
      scoringMicroseconds: costUs,
      kinds,
      evaluation: evaluation(),
    };
    console.log(
      `Content filter (held at ${BOUNDS.hold}): 5-fold cross-validation of ${cv.spamTotal + cv.genuineTotal} messages: spam held or marked ${content.crossValidation.spamCaughtPct}% (bar ≥ 95%; held ${content.crossValidation.spamHeldPct}%), genuine delivered ${content.crossValidation.genuineDeliveredPct}% (bar ≥ 99%).`,
    );
    console.log(
      `Typed at a person's pace, never trained on: spam held ${content.paced.spamHeld} of ${content.paced.spam}, genuine delivered ${content.paced.genuineDelivered} of ${content.paced.genuine}.`,
    );
    console.log(
      `Learning curve (a kind the corpus lacks): ${curve.map((c) => `${c.marks} marks: ${c.held}/${c.of} held`).join("; ")}. Scoring: ${costUs} µs a message.`,
    );
    const h = kinds.leaveOneKindOut;
    console.log(
      `The corpus in ${kinds.kinds.length} kinds, each scored by a model that never saw it (${h.spam.total} pitches, ${h.genuine.total} genuine; possible spam from ${BOUNDS.suspect}): spam unmarked ${h.spamUnmarkedPct}% (target ≤ 5%), genuine held ${h.genuineHeldPct}% (target 0%), genuine marked ${h.genuineMarkedPct}% (target ≤ 5%). Margin: the genuine closest to the hold scored ${kinds.margin.closest.join(", ")}, ${kinds.margin.logOdds} in log-odds below ${BOUNDS.hold}.`,
    );
    const ev = content.evaluation;
    console.log(
      `Evaluation set (never tuned on; ${ev.spam.total} pitches, ${ev.genuine.total} genuine, ${ev.kinds} kinds; as shipped): spam unmarked ${ev.spamUnmarkedPct}% (target ≤ 5%), genuine held ${ev.genuineHeldPct}% (target 0%), genuine marked ${ev.genuineMarkedPct}% (target ≤ 5%); closest genuine ${ev.margin.closest.join(", ")} (${ev.margin.logOdds} log-odds below the hold).`,
    );
    console.table(kinds.sweep);
    const learnt = kinds.learning.filter((l) => l.after >= 2).length;
    console.log(
      `Learning, three marks of a kind it never saw, then the next three: ${learnt} of ${kinds.learning.length} spam kinds caught ≥ 2 of 3 (${kinds.learning.map((l) => `${l.kind.replace("spam-", "")} ${l.before}→${l.after}`).join(", ")}); podcast bookings (taken out of the corpus first): ${kinds.newKindWindows.ok} of ${kinds.newKindWindows.windows} windows (${kinds.newKindWindows.caughtBefore}→${kinds.newKindWindows.caughtAfter} of ${kinds.newKindWindows.tested} caught).`,
    );
    const unseenMissed =
      h.spamUnmarkedPct > 5 ||
      h.genuineHeldPct > 0 ||
      h.genuineMarkedPct > 5 ||
      learnt < kinds.learning.length ||
      kinds.newKindWindows.ok < kinds.newKindWindows.windows;
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
      `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), rows: table, content }, null, 2)}\n`,
    );
    if (existsSync("BENCHMARKS.md")) {
      const md = readFileSync("BENCHMARKS.md", "utf8");
      const cut = md.indexOf("\n## Spam");
      writeFileSync("BENCHMARKS.md", `${cut < 0 ? md : md.slice(0, cut)}${spamSection()}`);
    }
    const contentMissed =
      content.crossValidation.spamCaughtPct < 95 ||
      content.crossValidation.genuineDeliveredPct < 99;
    if (
      scriptedInbox / scriptedSent > 0.05 ||
      peopleInbox < peopleSent ||
      contentMissed ||
      unseenMissed
    )
      process.exitCode = 1;
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(split.dir, { recursive: true, force: true });
  }
}

await main();
