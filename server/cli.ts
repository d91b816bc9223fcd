import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { stringify } from "csv-stringify/sync";
import { site } from "../app/config/site.ts";
import { type Config, loadConfig, tuningFromArgs } from "./config.ts";
import { correct, parseCorrection } from "./contact/correction.ts";
import { cutAt } from "./contact/delivery/channel.ts";
import { CHANNEL_NAMES } from "./contact/delivery/channels.ts";
import { recordedRouting, routingOf } from "./contact/delivery/routing.ts";
import { type Erased, erase } from "./contact/erasure.ts";
import { officeTime } from "./contact/review/clock.ts";
import { performAction, takenBy } from "./contact/review/page.ts";
import { sayBusinessTime, timingOf } from "./contact/review/promise.ts";
import { replyFigures } from "./contact/review/reply-figures.ts";
import { DATABASE_FILE, dataDirHolder, holdDataDir } from "./contact/storage/data-dir.ts";
import { type Database, StorageUnavailableError } from "./contact/storage/database.ts";
import * as inquiries from "./contact/storage/inquiries.ts";
import { listKeys, rotateKey } from "./contact/storage/keys.ts";
import { pendingMigrations, readMigrations } from "./contact/storage/migrations.ts";
import { openDatabase } from "./contact/storage/open.ts";
import * as outbox from "./contact/storage/outbox.ts";
import type { Inquiry, InquiryRecord } from "./contact/storage/records.ts";
import { openSqlite } from "./contact/storage/sqlite.ts";
import * as training from "./contact/storage/training.ts";
import { DAY_MS, HOUR_MS } from "./time.ts";

/**
 * The operator CLI, on the database the server uses (DATA_DIR or DATABASE_URL): `npm run inquiries
 * -- <command>`; USAGE below lists every command. It reads the configuration once, as the server
 * does (server/config.ts), and changes no schema.
 */

const USAGE = `Usage: npm run inquiries -- <command>

  list [--json]                    every inquiry, newest first, with each channel's delivery status and who took it
                                   ("I'm on it") after how much business time, or how long it has waited; times on
                                   the office's clock, 100 columns wide (--json: ISO UTC, every field)
  export --format csv [--out FILE] all inquiries as CSV (to standard output, or FILE)
  export --email ADDRESS           everything held about one person, as JSON (a "see my data" request)
  forget --email ADDRESS           delete everything held about one person (any case), every email file that
                                   names them too, and say what was deleted
  correct --email ADDRESS [--name NAME] [--new-email ADDRESS] [--company NAME]
                                   a "correct my data" request: the new details in every inquiry they sent
  show ID [--json]                 one inquiry in full (its verdict: clean, suspect or held), with every channel's attempts and last error
  retry [--channel NAME]           put failed deliveries (of one channel: ${CHANNEL_NAMES.join(", ")}) back in the queue
  stats [--json]                   inquiries and deliveries by channel and status, and the reply promise (leads
                                   taken, waiting, past the promise; business time to the first take): last day,
                                   week, month
  take ID [--by NAME]              "I'm on it": record that someone is answering the lead (its reminder no longer goes)
  held [--json]                    messages held as suspected spam, newest first, with the reason
  not-spam ID                      "Not spam": deliver a held message as a normal lead (to the channels the
                                   server uses); the content filter learns it is not spam
  spam ID                          "Spam": the content filter learns it, it is held from now on, and its
                                   deliveries not made yet are cancelled
  spam ID --undo, not-spam ID --undo
                                   put back exactly what the last spam / not-spam of it changed (the page's Undo)
  keys [--json]                    the signing and address keys (never their secrets): which signs, which are retired
  keys rotate links|form           a new key for the links in a lead or the form tokens; the old one still
                                   checks what it signed until that expires
  training [--json]                what the content filter learned from: each mark, newest last
  training undo ID                 take a mark back; the filter forgets it
  backup FILE                      a consistent copy of the SQLite database, while the server runs
  restore FILE [--force]           put a backup in place as DATA_DIR's database: refuses while a server uses
                                   DATA_DIR, a file that is not a whole backup of this database, and one from a
                                   newer release; migrates an older one; replaces one only with --force, keeping
                                   it beside it
  purge --older-than <N>d          delete inquiries older than N days (h for hours), with their email files

Reads DATA_DIR (default ./data) or DATABASE_URL, like the server.`;

const iso = (ms: number | null) => (ms == null ? "" : new Date(ms).toISOString());
/** What a person reads: the office's clock (server/contact/review/clock.ts); `--json` and CSV keep ISO UTC. */
const local = (ms: number | null | undefined) => (ms == null ? "" : officeTime(ms));

/** The width `list` fits by default: a 100-column terminal. */
const LIST_WIDTH = 100;

function parseAge(text: string | undefined): number {
  const m = /^(\d+)(d|h)$/.exec(text ?? "");
  if (!m) throw new UsageError("--older-than takes a number of days or hours, like 365d or 48h");
  return Number(m[1]) * (m[2] === "d" ? DAY_MS : HOUR_MS);
}

class UsageError extends Error {}

/**
 * A cell that starts with = + - @ (or their full-width forms), a tab, a carriage return, or a
 * separator (, ;) is defused, so a spreadsheet never runs it as a formula, whatever its separator.
 */
const defuse = (s: string) => (/^[=+\-@\t\r,;\uFF1D\uFF0B\uFF0D\uFF20]/.test(s) ? `'${s}` : s);

const COLUMNS: Array<[string, (r: InquiryRecord) => unknown]> = [
  ["id", (r) => r.id],
  ["received_at", (r) => iso(r.receivedAt)],
  ["name", (r) => r.name],
  ["email", (r) => r.email],
  ["company", (r) => r.company],
  ["service", (r) => r.service],
  ["message", (r) => r.message],
  ["status", (r) => r.status],
  ["delivery_attempts", (r) => r.attempts],
  ["sent_at", (r) => iso(r.sentAt)],
  ["source", (r) => r.source],
];

/** RFC 4180 (csv-stringify: quotes, CRLF), every text cell defused (docs/decisions/0008-libraries-or-our-own-code.md). */
function toCsv(rows: InquiryRecord[]): string {
  return stringify(
    rows.map((r) => COLUMNS.map(([, get]) => get(r) ?? "")),
    // Every cell quoted: a spreadsheet that splits on ";" keeps "a;=b" one cell.
    {
      header: true,
      columns: COLUMNS.map(([h]) => h),
      record_delimiter: "\r\n",
      quoted: true,
      cast: { string: defuse },
    },
  );
}

/**
 * What reaches the terminal: control, format and separator characters (an escape sequence, a
 * right-to-left override, a C1 control) are shown as \u{…}, never interpreted. Zero-width joiners
 * stay (emoji and several scripts need them); `keep` lists characters to pass through (line breaks
 * in a message).
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Noncharacter_Code_Point}]/gu;
function printable(s: string, keep = ""): string {
  return s.replace(UNPRINTABLE, (ch) =>
    keep.includes(ch) || ch === "\u200c" || ch === "\u200d"
      ? ch
      : `\\u{${ch.codePointAt(0)?.toString(16)}}`,
  );
}
/** JSON with the same characters escaped as \uXXXX (still valid JSON). */
const printableJson = (value: unknown) =>
  JSON.stringify(value, null, 2).replace(UNPRINTABLE, (ch) =>
    ch === "\n" || ch === "\u200c" || ch === "\u200d"
      ? ch
      : ch
          .split("")
          .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
          .join(""),
  );

const shorten = (s: string, n: number) => cutAt(printable(s.replace(/\s+/g, " ")), n, "…");

/** The columns every table of inquiries starts with. */
const summaryRow = (r: Inquiry) => ({
  id: r.id,
  received: local(r.receivedAt),
  name: shorten(r.name, 24),
  email: printable(r.email),
  message: shorten(r.message, 40),
});

type Context = {
  db: Database;
  values: {
    json: boolean;
    format?: string;
    out?: string;
    "older-than"?: string;
    channel?: string;
    email?: string;
    by?: string;
    undo?: boolean;
    name?: string;
    company?: string;
    "new-email"?: string;
  };
  rest: string[];
  config: Config;
};

/** Undo of the last `spam` or `not-spam` of an inquiry, as the page's Undo button does it. */
async function undoCommand(db: Database, config: Config, action: "spam" | "not-spam", id: string) {
  const result = await performAction(
    db,
    config,
    await recordedRouting(db),
    action,
    id,
    Date.now(),
    { undo: true },
  );
  if (result.kind !== "done") {
    console.error(
      result.kind === "unknown"
        ? `No inquiry with ID ${id}.`
        : "The server has not started on this database yet, so its channels are not known: start it once.",
    );
    return 1;
  }
  const { changed, cancelled, queued } = result.marked;
  if (!changed) {
    console.log(
      `Nothing to undo: the last ${action} of ${id} was undone already, or something changed it since.`,
    );
    return 0;
  }
  const more = [
    cancelled.length ? ` Cancelled: ${cancelled.join(", ")}.` : "",
    queued.length ? ` Queued for: ${queued.map((d) => d.channel).join(", ")}.` : "",
  ].join("");
  console.log(
    `Undid the ${action} of ${id}: it is as it was before, the filter's mark too.${more}`,
  );
  return 0;
}

/** One handler per command; each answers with the process's exit code. */
const COMMANDS: Record<string, (c: Context) => Promise<number>> = {
  async list({ db, values }) {
    const now = Date.now();
    // Each lead with its reply promise: when it fell due, the business time to its first take (or waited so far).
    const rows = (await inquiries.list(db)).map((r) => ({
      ...r,
      reply: r.held ? null : timingOf(r, now),
    }));
    if (values.json) {
      console.log(printableJson(rows));
    } else if (rows.length === 0) {
      console.log(`No inquiries in ${db.describe()}.`);
    } else {
      // Three lines a lead, none wider than LIST_WIDTH: when and who; its ID and where it went; its promise and words.
      const line = (s: string) => {
        const chars = Array.from(printable(s));
        return chars.length > LIST_WIDTH
          ? `${chars.slice(0, LIST_WIDTH - 1).join("")}…`
          : chars.join("");
      };
      for (const r of rows) {
        const who = r.company ? `${r.name} (${r.company})` : r.name;
        const taken =
          r.takenAt == null
            ? ""
            : `taken${r.takenBy ? ` by ${r.takenBy}` : ""} ${local(r.takenAt)}, `;
        const reply = !r.reply
          ? "held as spam"
          : `${taken}${r.reply.takeBusinessMs === null ? "waiting " : "after "}${sayBusinessTime(r.reply.waitedBusinessMs)}${r.reply.missed ? " (missed)" : ""}`;
        const delivery = r.deliveries.map((d) => `${d.channel}:${d.status}`).join(" ") || r.status;
        console.log(line(`${local(r.receivedAt)}  ${shorten(who, 36)}  ${shorten(r.email, 100)}`));
        console.log(
          line(
            `  ${r.id}  ${r.service || "General"} · ${r.verdict} · ${delivery} · ${r.attempts} attempt(s)`,
          ),
        );
        console.log(line(`  ${reply} · ${shorten(r.message, LIST_WIDTH)}`));
      }
    }
    return 0;
  },
  async export({ db, values }) {
    if (values.email) {
      console.log(
        printableJson({
          email: values.email,
          inquiries: await inquiries.byEmail(db, values.email),
        }),
      );
      return 0;
    }
    if (values.format !== "csv")
      throw new UsageError("export needs --format csv (or --email ADDRESS)");
    const csv = toCsv(await inquiries.list(db));
    if (values.out) {
      writeFileSync(values.out, csv);
      console.error(`Wrote ${values.out}`);
    } else process.stdout.write(printable(csv, "\r\n"));
    return 0;
  },
  correct: correctCommand,
  async show({ db, rest, values }) {
    const id = rest[0];
    if (!id) throw new UsageError("show needs an inquiry ID");
    const r = await inquiries.get(db, id);
    if (!r) {
      console.error(`No inquiry with ID ${id}.`);
      return 1;
    }
    if (values.json) {
      console.log(printableJson(r));
      return 0;
    }
    const fields: Array<[string, unknown]> = [
      ["ID", r.id],
      ["Received", local(r.receivedAt)],
      ["Name", r.name],
      ["Email", r.email],
      ["Company", r.company || "—"],
      ["Service", r.service || "—"],
      ["Source", r.source],
      ["Page", r.page ?? "—"],
      ["User agent", r.userAgent ?? "—"],
      ["Status", r.status],
      [
        "Verdict",
        r.spamScore == null ? r.verdict : `${r.verdict} (score ${r.spamScore.toFixed(3)})`,
      ],
      [
        "Taken",
        r.takenAt == null
          ? "nobody yet"
          : `${local(r.takenAt)}${r.takenBy ? ` by ${r.takenBy}` : ""}`,
      ],
      ["Reminded", r.remindedAt ? local(r.remindedAt) : "—"],
    ];
    for (const [k, v] of fields) console.log(`${`${k}:`.padEnd(19)}${printable(String(v))}`);
    if (r.deliveries.length > 0) console.log("\nDeliveries:");
    for (const d of r.deliveries) {
      const sent = d.sentAt ? `, sent ${local(d.sentAt)}` : "";
      const error = d.lastError ? `, last error: ${d.lastError}` : "";
      const to = d.target
        ? ` to ${d.target === "default" ? "the general receiver" : d.target}`
        : "";
      console.log(
        printable(
          `  ${d.channel.padEnd(8)} ${d.status}${to}, ${d.attempts} attempt(s)${sent}${error}`,
        ),
      );
    }
    console.log(`\nMessage:\n${printable(r.message, "\n\t")}`);
    return 0;
  },
  async retry({ db, values }) {
    const channel = values.channel;
    if (channel !== undefined && !CHANNEL_NAMES.includes(channel)) {
      throw new UsageError(`--channel takes one of ${CHANNEL_NAMES.join(", ")}`);
    }
    const n = await outbox.retryFailed(db, Date.now(), channel);
    const which = channel ? `${channel} ` : "";
    console.log(
      n === 0
        ? `No failed ${which}deliveries.`
        : `${n} failed ${which}deliver${n === 1 ? "y" : "ies"} queued again; the server sends ${n === 1 ? "it" : "them"} where the configuration sends them now (a corrected address or route applies).`,
    );
    return 0;
  },
  async held({ db, values }) {
    const rows = await inquiries.listHeld(db);
    if (values.json) {
      console.log(printableJson(rows));
    } else if (rows.length === 0) {
      console.log("No messages are held.");
    } else {
      console.table(
        rows.map((r) => ({
          ...summaryRow(r),
          score: r.spamScore == null ? "" : r.spamScore.toFixed(3),
          reason: printable(r.heldReason ?? "held"),
        })),
      );
    }
    return 0;
  },
  async "not-spam"({ db, rest, config, values }) {
    const id = rest[0];
    if (!id) throw new UsageError("not-spam needs an inquiry ID");
    if (values.undo) return undoCommand(db, config, "not-spam", id);
    const result = await performAction(db, config, await recordedRouting(db), "not-spam", id);
    if (result.kind === "no-routing") {
      console.error(
        "The server has not started on this database yet, so its channels are not known: start it once.",
      );
      return 1;
    }
    if (result.kind !== "done") {
      console.error(`No inquiry with ID ${id}.`);
      return 1;
    }
    const { marked } = result;
    if (!marked.inquiry.held) {
      console.log(
        `${id} was not held: the content filter learns it is not spam${marked.changed ? "" : " (it had)"}.`,
      );
      return 0;
    }
    const where =
      marked.queued
        .map((d) => (d.channel === "email" ? `email (${d.target})` : d.channel))
        .join(", ") || "no channel (every channel had it already)";
    console.log(
      `${id} is not spam: queued for ${where}; the server will deliver it. The filter learns it is not spam.`,
    );
    return 0;
  },
  async take({ db, rest, values, config }) {
    const id = rest[0];
    if (!id) throw new UsageError("take needs an inquiry ID");
    if (values.undo)
      throw new UsageError("take has no --undo: the others may already have read who is on it");
    const result = await performAction(
      db,
      config,
      await recordedRouting(db),
      "take",
      id,
      Date.now(),
      {
        by: takenBy(values.by),
      },
    );
    if (result.kind !== "taken") {
      console.error(`No inquiry with ID ${id}.`);
      return 1;
    }
    const { inquiry, first } = result.taken;
    const who = inquiry.takenBy ? ` by ${printable(inquiry.takenBy)}` : "";
    console.log(
      first
        ? `Taken${who} at ${local(inquiry.takenAt)}: the others see it on the lead's page; no reminder goes.`
        : `Already taken${who} at ${local(inquiry.takenAt)}: nothing changed.`,
    );
    return 0;
  },
  async spam({ db, rest, config, values }) {
    const id = rest[0];
    if (!id) throw new UsageError("spam needs an inquiry ID");
    if (values.undo) return undoCommand(db, config, "spam", id);
    const result = await performAction(db, config, await recordedRouting(db), "spam", id);
    if (result.kind !== "done") {
      console.error(`No inquiry with ID ${id}.`);
      return 1;
    }
    const { cancelled, underWay, delivered } = result.marked;
    const stopped = [
      cancelled.length ? ` Cancelled its deliveries not made yet: ${cancelled.join(", ")}.` : "",
      underWay.length ? ` Under way, not tried again if it fails: ${underWay.join(", ")}.` : "",
      delivered.length ? ` Already delivered: ${delivered.join(", ")}.` : "",
    ].join("");
    console.log(
      `Marked ${id} as spam: held from now on, and the content filter learns from it (every instance within seconds).${stopped}`,
    );
    return 0;
  },
  async keys({ db, rest, values, config }) {
    if (rest[0] === "rotate") {
      const purpose = rest[1];
      if (purpose !== "links" && purpose !== "form")
        throw new UsageError(
          'keys rotate takes "links" or "form" (the address key changes by itself every month)',
        );
      const id = await rotateKey(db, purpose, Date.now());
      const lasts =
        purpose === "links"
          ? `links signed before keep working until they expire (INQUIRY_LINK_DAYS, ${config.INQUIRY_LINK_DAYS} days)`
          : `pages served before keep working for ${config.FORM_TOKEN_MAX_AGE_MS / HOUR_MS} hours`;
      console.log(
        `A new ${purpose} key (${id}) signs from now on, on every instance within a minute; ${lasts}, then the old key is deleted.`,
      );
      return 0;
    }
    if (rest[0] !== undefined)
      throw new UsageError(`keys takes "rotate links|form", not "${rest[0]}"`);
    // Never the secrets themselves: what there is, since when, and which one signs.
    const rows = (await listKeys(db)).map(({ secret: _, ...k }) => ({
      purpose: k.purpose,
      id: k.id,
      created: iso(k.createdAt),
      retired: iso(k.retiredAt),
    }));
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else console.table(rows);
    return 0;
  },
  async training({ db, rest, values }) {
    if (rest[0] === "undo") {
      const id = rest[1];
      if (!id) throw new UsageError("training undo needs an inquiry ID");
      if (!(await training.undo(db, id))) {
        console.error(`The filter learned nothing from ${id}.`);
        return 1;
      }
      console.log(`Took back the mark on ${id}: the content filter forgets it.`);
      return 0;
    }
    if (rest[0] !== undefined) throw new UsageError(`training takes "undo ID", not "${rest[0]}"`);
    const marks = await training.list(db);
    if (values.json) console.log(printableJson(marks));
    else if (marks.length === 0)
      console.log("The content filter has learned from the seed corpus only: no marks yet.");
    else
      console.table(
        marks.map((m) => ({
          id: m.inquiryId,
          marked: local(m.markedAt),
          as: m.label === "genuine" ? "not spam" : m.label,
          name: shorten(m.name, 24),
          message: shorten(m.message, 50),
        })),
      );
    return 0;
  },
  async stats({ db, values }) {
    const now = Date.now();
    const periods = [
      ["last day", DAY_MS],
      ["last week", 7 * DAY_MS],
      ["last month", 30 * DAY_MS],
    ] as const;
    const stats = [];
    for (const [label, ms] of periods)
      stats.push({
        period: label,
        ...(await inquiries.stats(db, now - ms)),
        reply: await replyFigures(db, now - ms, now),
      });
    if (values.json) {
      console.log(JSON.stringify(stats, null, 2));
      return 0;
    }
    for (const s of stats) {
      console.log(`${s.period}: ${s.inquiries.total} inquiries (${s.inquiries.held} held as spam)`);
      const r = s.reply;
      const take = (ms: number | null) => (ms === null ? "—" : sayBusinessTime(ms));
      console.log(
        `  reply promise (${site.response.promiseBusinessHours} business hours): ${r.taken} of ${r.leads} leads taken, ${r.waiting} waiting (${r.overdue} past the promise), ${r.missed} missed it, ${r.reminded} reminded; first take after ${take(r.takeMedianMs)} (median), ${take(r.takeP90Ms)} (90%)`,
      );
      for (const d of s.deliveries) {
        console.log(
          printable(
            `  ${d.channel.padEnd(8)} ${d.status.padEnd(8)} ${String(d.count).padEnd(5)} ${d.target ?? ""}`,
          ),
        );
      }
    }
    return 0;
  },
  async backup({ db, rest }) {
    const out = rest[0];
    if (!out) throw new UsageError("backup needs a FILE to write");
    if (db.engine === "postgres") {
      console.error(`On PostgreSQL, back up with pg_dump: ${PG_RECIPE}.`);
      return 1;
    }
    if (existsSync(out)) {
      console.error(`${out} exists: a backup never overwrites a file. Name a new one.`);
      return 1;
    }
    // One consistent copy, taken while the server goes on writing (SQLite's VACUUM INTO, not a file copy).
    mkdirSync(dirname(resolve(out)), { recursive: true });
    await db.query("VACUUM INTO ?", [resolve(out)]);
    console.log(
      `Wrote ${out}: ${backupInquiries(out)} inquiries. Restore with \`npm run inquiries -- restore ${out}\`.`,
    );
    return 0;
  },
  async purge({ db, values, config }) {
    const age = parseAge(values["older-than"]);
    const erased = await erase(
      db,
      mailOf(config),
      { before: Date.now() - age },
      await waitFor(db, config),
    );
    const waiting =
      erased.pendingCut > 0 ? ` ${erased.pendingCut} of them still had a delivery waiting.` : "";
    console.log(
      `Deleted ${erased.inquiries} inquir${erased.inquiries === 1 ? "y" : "ies"} older than ${values["older-than"]}, ${erased.files} email files and ${erased.rateLimits} expired rate limits.${waiting}${withdrawn(erased)}${inFlight(erased)}`,
    );
    return 0;
  },
  async forget({ db, values, config }) {
    if (!values.email) throw new UsageError("forget needs --email ADDRESS");
    // Every copy: the inquiries and their records, and every email file that names them (the lead,
    // the morning digest, a failure alert). A send under way is waited for, so nothing goes out after.
    const erased = await erase(
      db,
      mailOf(config),
      { email: values.email },
      await waitFor(db, config),
    );
    const n = erased.inquiries;
    console.log(
      `Deleted everything held about ${printable(values.email)} on this server: ${n} inquir${n === 1 ? "y" : "ies"}, ${erased.deliveries} deliveries, ${erased.keys} idempotency records, ${erased.marks} filter marks, ${erased.files} email files.${withdrawn(erased)}${inFlight(erased)}`,
    );
    console.log(
      `Still in the copies (backups, exports, a database a restore replaced, a Litestream replica's older snapshots): they are deleted within ${site.privacy.backupDays} days (the privacy notice's backup period, docs/operations.md).`,
    );
    return 0;
  },
};

/** `correct`: a person's details, changed in every inquiry they sent (server/contact/correction.ts). */
async function correctCommand({ db, values }: Context): Promise<number> {
  if (!values.email) throw new UsageError("correct needs --email ADDRESS (the one they used)");
  let correction: ReturnType<typeof parseCorrection>;
  try {
    correction = parseCorrection({
      name: values.name,
      email: values["new-email"],
      company: values.company,
    });
  } catch (err) {
    throw new UsageError(`correct: ${(err as Error).message}`);
  }
  const n = await correct(db, values.email, correction);
  if (n === 0) {
    console.error(`No inquiry from ${printable(values.email)}.`);
    return 1;
  }
  const what = Object.keys(correction).join(", ");
  console.log(
    `Corrected ${what} in ${n} inquir${n === 1 ? "y" : "ies"} from ${printable(values.email)}. Copies already delivered (the inbox, the team chat, the CRM) keep the old details: correct them there by hand.`,
  );
  return 0;
}

/**
 * Put a backup (made by `backup`, or a copy Litestream restored) in place as DATA_DIR's database.
 * It refuses while a server uses the data folder (what the server wrote after it would be lost), a
 * file that is not a whole backup of this application's database, and one from a newer release; an
 * older one is migrated as a start would, before anything is replaced. It refuses to overwrite a
 * database that is there unless told to (--force), and then keeps the replaced one beside it, whole
 * (its write-ahead log folded in), until the server deletes it after `backupDays` (erasure.ts).
 */
async function restore(config: Config, from: string | undefined, force: boolean): Promise<number> {
  if (!from) throw new UsageError("restore needs the backup FILE");
  if (config.DATABASE_URL) {
    console.error(`On PostgreSQL, restore with pg_restore: ${PG_RECIPE}.`);
    return 1;
  }
  mkdirSync(config.dataDir, { recursive: true });
  // Held until the restore ends: a server that starts meanwhile refuses (server/main.ts).
  const held = holdDataDir(config.dataDir);
  if (!held) {
    const user = dataDirHolder(config.dataDir);
    const who = user
      ? `process ${user.pid} on ${user.host}, started ${user.startedAt}`
      : "a process";
    const stop = user
      ? `kill -TERM ${user.pid}, or \`docker compose stop site\``
      : "`docker compose stop site`";
    console.error(
      `A server uses ${config.dataDir}: ${who}. What it writes after a restore would be lost. Nothing was changed. Stop it first (${stop}), then run restore again.`,
    );
    return 1;
  }
  try {
    return await replaceDatabase(config, from, force);
  } finally {
    held.release();
  }
}

async function replaceDatabase(config: Config, from: string, force: boolean): Promise<number> {
  const checked = unreadable(from) ?? checkBackup(from);
  if (!checked.ok) {
    console.error(`${from} cannot be restored: ${checked.reason}. Nothing was changed.`);
    return 1;
  }
  const target = join(config.dataDir, DATABASE_FILE);
  const there = existsSync(target);
  if (there && !force) {
    console.error(
      `${target} exists: restore does not overwrite a database. Stop the server, then run \`npm run inquiries -- restore ${from} --force\` to replace it (the one there is kept beside it).`,
    );
    return 1;
  }
  // The copy is made whole and brought to this release's schema first; only then is anything replaced.
  const incoming = `${target}.restoring`;
  rmSync(incoming, { force: true });
  copyFileSync(from, incoming);
  chmodSync(incoming, 0o600);
  const copy = openSqlite(incoming);
  let migrated: string[];
  try {
    migrated = await copy.migrate();
  } finally {
    await copy.close();
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  if (there) {
    // One file: what the write-ahead log held is folded into it, so the copy kept is whole.
    const old = new DatabaseSync(target);
    old.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    old.close();
    renameSync(target, `${target}.replaced-${stamp}`);
    // Its age counts from now, when it stopped being the database (the server erases it after backupDays).
    const now = new Date();
    utimesSync(`${target}.replaced-${stamp}`, now, now);
    for (const f of [`${target}-wal`, `${target}-shm`]) rmSync(f, { force: true });
  }
  renameSync(incoming, target);
  const kept = there
    ? ` The database it replaced is kept as ${target}.replaced-${stamp}; the server deletes it after ${site.privacy.backupDays} days, or delete it once you are sure.`
    : "";
  const upgraded =
    migrated.length > 0 ? ` Brought up to this release's schema (${migrated.join(", ")}).` : "";
  console.log(
    `Restored ${checked.inquiries} inquiries from ${from} into ${target}.${upgraded} Start the server.${kept}`,
  );
  return 0;
}

/**
 * When this process may not read `file` (a copy written by root, a folder closed to the container's
 * user): whose it is and who must be able to read it. Nothing when it can.
 */
function unreadable(file: string): { ok: false; reason: string } | null {
  try {
    accessSync(file, constants.R_OK);
    return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EACCES") return null;
  }
  const uid = process.getuid?.() ?? -1;
  let name = "";
  try {
    name = ` (${userInfo().username})`;
  } catch {
    // A uid without a name: the number says it.
  }
  const me = `this command runs as uid ${uid}${name}`;
  try {
    const { uid: owner, mode } = statSync(file);
    const octal = (mode & 0o777).toString(8).padStart(4, "0");
    return {
      ok: false,
      reason: `${me} and may not read it (it belongs to uid ${owner}, mode ${octal}). Make it readable by uid ${uid}, for example as root on the host: chown ${uid} FILE (it may stay mode 0600), then run restore again`,
    };
  } catch {
    return {
      ok: false,
      reason: `${me} and may not enter a folder above it. Make the folder and the file readable by uid ${uid}, for example as root on the host: chown ${uid} on both, then run restore again`,
    };
  }
}

/**
 * Is this a whole backup of this application's database that this release can run on? SQLite's
 * integrity check, the tables and migration history this application makes, and a schema no newer
 * than this code's.
 */
/** How many inquiries a backup just written holds, once it is checked whole. */
function backupInquiries(file: string): number {
  const checked = checkBackup(file);
  if (!checked.ok) throw new Error(`${file}: ${checked.reason}`);
  return checked.inquiries;
}

function checkBackup(
  file: string,
): { ok: true; inquiries: number } | { ok: false; reason: string } {
  if (!existsSync(file)) return { ok: false, reason: "no such file" };
  let backup: DatabaseSync | undefined;
  try {
    if (!isSqliteFile(file)) return { ok: false, reason: "it is not an SQLite database" };
    backup = new DatabaseSync(file, { readOnly: true });
    const { integrity_check } = backup.prepare("PRAGMA integrity_check").get() as {
      integrity_check: string;
    };
    if (integrity_check !== "ok")
      return { ok: false, reason: `it is damaged (${integrity_check})` };
    const tables = new Set(
      (
        backup.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
          name: string;
        }>
      ).map((t) => t.name),
    );
    const first = tables.has("schema_migrations")
      ? (backup.prepare("SELECT name FROM schema_migrations WHERE version = 1").get() as
          | { name: string }
          | undefined)
      : undefined;
    const ours = readMigrations("sqlite");
    if (
      !first ||
      first.name !== ours[0]?.name ||
      !tables.has("inquiries") ||
      !tables.has("deliveries")
    )
      return { ok: false, reason: "it is not a backup of this application's inquiries database" };
    const { v } = backup.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as {
      v: number;
    };
    const known = Math.max(...ours.map((m) => m.version));
    if (Number(v) > known)
      return {
        ok: false,
        reason: `it comes from a newer release (schema version ${v}; this release knows up to ${known}). Restore it with the release that made it, or upgrade this one first`,
      };
    const { n } = backup.prepare("SELECT COUNT(*) AS n FROM inquiries").get() as { n: number };
    return { ok: true, inquiries: Number(n) };
  } catch (err) {
    return { ok: false, reason: `it cannot be read as a database (${(err as Error).message})` };
  } finally {
    backup?.close();
  }
}

/** Is this file an SQLite database (its first 16 bytes)? */
function isSqliteFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString("latin1") === "SQLite format 3\0";
  } finally {
    closeSync(fd);
  }
}

const PG_RECIPE =
  'pg_dump --format=custom --file=inquiries.dump "$DATABASE_URL", then pg_restore --no-owner --dbname="$DATABASE_URL" inquiries.dump (docs/deployment.md, "Backups")';

/** Where the server writes email files without SMTP_URL (the erasure deletes those naming the erased). */
const mailOf = (config: Config) => join(config.dataDir, "mail");

/**
 * A send under way is waited for up to the outbox's lease (after that, its worker's claim is over);
 * a call still ahead is withdrawn from the calendars on the routing the server runs with.
 */
const waitFor = async (db: Database, config: Config) => ({
  waitMs: config.OUTBOX_LEASE_MS,
  calendar: { config, routing: (await recordedRouting(db)) ?? routingOf(config) },
});
const withdrawn = ({ withdrawn: n }: Erased) =>
  n > 0
    ? ` ${n} confirmed consultation${n === 1 ? "" : "s"} still ahead: a cancellation goes to their calendar and to ours.`
    : "";
const inFlight = ({ inFlight: n }: Erased) =>
  n > 0
    ? ` ${n} deliver${n === 1 ? "y was" : "ies were"} already being sent and did not end in time: ${n === 1 ? "it has" : "they have"} reached the relay or receiver, which this cannot recall.`
    : "";

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      format: { type: "string" },
      out: { type: "string" },
      "older-than": { type: "string" },
      channel: { type: "string" },
      email: { type: "string" },
      by: { type: "string" },
      name: { type: "string" },
      company: { type: "string" },
      "new-email": { type: "string" },
      force: { type: "boolean", default: false },
      undo: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
      tuning: { type: "string" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }

  const config = loadConfig(process.env, tuningFromArgs(argv));
  // What it writes (a backup, an export) is readable by its owner alone, whatever the shell's umask.
  process.umask(0o077);
  // Restore comes before any database is opened: it makes the one there is.
  if (command === "restore") return await restore(config, rest[0], values.force);
  // A missing SQLite file is a wrong DATA_DIR, not an empty database: say so, and create nothing.
  const file = join(config.dataDir, "inquiries.sqlite");
  if (!config.DATABASE_URL && !existsSync(file)) {
    console.error(`No database at ${file}: set DATA_DIR (or DATABASE_URL) to the server's.`);
    return 1;
  }
  const db = openDatabase(config);
  try {
    // The server migrates at its start; the CLI changes no schema, and says when the code is ahead.
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      console.error(
        `The database is behind this code (${pending.join(", ")} not applied): start the server once, it migrates.`,
      );
      return 1;
    }
    const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!handler) throw new UsageError(`Unknown command: ${command}`);
    return await handler({ db, values, rest, config });
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (
      err instanceof UsageError ||
      (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof StorageUnavailableError) {
      console.error(`inquiries: cannot reach the database: ${err.message}`);
      process.exitCode = 1;
    } else {
      console.error(`inquiries: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  },
);
