import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * `npm run check:rules [-- --only <substring>]`: every rule the documents promise is pinned by a test
 * that fails when that rule alone breaks. Each breakage below changes one rule in a throwaway copy
 * of HEAD (a detached `git worktree` in a temporary folder, node_modules linked, `build/` copied),
 * runs the named test files there (the integration setup bundles the broken server again) and
 * expects at least one of them to fail; the file is then put back and the copy removed at the end.
 * It prints one table (rule, caught, the test that failed, seconds) and exits non-zero if a
 * breakage went uncaught or is stale (its `find` matches other than once in HEAD). Too slow for
 * `npm test`: docs/testing-and-benchmarks.md has the last run's result. `--check` only says which
 * `find` no longer matches once at HEAD.
 */

export type Breakage = {
  /** "<document or ADR where it is promised>: <the rule in plain words>" */
  rule: string;
  file: string;
  /** Text that occurs exactly once in `file` at HEAD. */
  find: string;
  replace: string;
  /** Test files that must fail (at least one test in them). */
  tests: string[];
  /** Only the tests whose names match (vitest -t), to keep a run short. */
  grep?: string;
};

const BOOKING = "tests/integration/booking.test.ts";
const RACES = "tests/integration/booking-races.test.ts";
const FEEDS = "tests/integration/booking-feeds.test.ts";
const LINKS = "tests/integration/lead-links.test.ts";
const DIGEST = "tests/integration/digest.test.ts";
const EMAILS = "tests/integration/email-html.test.ts";
const LAYOUT = "server/contact/delivery/layout.ts";
const PRIVACY = "tests/integration/privacy.test.ts";
const PHONE = "tests/integration/booking-phone.test.ts";
const ERASURE = "tests/integration/booking-erasure.test.ts";
const PROMISE = "tests/integration/reply-promise.test.ts";
const EDITING = "tests/integration/editing.test.ts";
const STORE = "server/booking/store.ts";
const SLOTS = "server/booking/slots.ts";
const LINK = "server/contact/review/links.ts";

export const breakages: Breakage[] = [
  // The booking (docs/booking.md, ADR 0029, ADR 0031)
  {
    rule: "booking.md: a pick of a message held as spam holds no time until Not spam",
    file: STORE,
    find: "AND i.held)))",
    replace: "AND i.held AND 1 = 0)))",
    tests: [BOOKING],
  },
  ...(["address", "network", "domain"] as const).map((per) => ({
    rule: `booking.md: one ${per === "address" ? "internet address" : per === "network" ? "network" : "email domain"} keeps at most holdsPer${per[0]?.toUpperCase()}${per.slice(1)} times at once`,
    file: STORE,
    find: `Number(held?.${per} ?? 0) < holdsPer`,
    replace: `Number(held?.${per} ?? 0) <= holdsPer`,
    tests: [BOOKING],
    grep: "caps the times",
  })),
  {
    rule: "booking.md: a pick holds its time holdBusinessHours (16) business hours",
    file: SLOTS,
    find: "facts.booking.holdBusinessHours * HOUR_MS",
    replace: "facts.booking.holdBusinessHours * 2 * HOUR_MS",
    tests: [BOOKING],
    grep: "16 business hours",
  },
  {
    rule: "booking.md: a hold never lasts past the time itself",
    file: SLOTS,
    find: "Math.min(at, businessDeadline",
    replace: "Math.max(at, businessDeadline",
    tests: [BOOKING],
    grep: "16 business hours",
  },
  {
    rule: "booking.md: while a request is unanswered, one message per five minutes",
    file: "server/booking/messages.ts",
    find: "const REQUEST_SPACING_MS = 5 * 60_000;",
    replace: "const REQUEST_SPACING_MS = 0;",
    tests: [BOOKING],
    grep: "five minutes",
  },
  {
    rule: "ADR 0031: a busy or held time blocks every slot it overlaps, not only the one starting with it",
    file: SLOTS,
    find: "!busy.some(([b, e]) => b < at + length && e > at)",
    replace: "!busy.some(([b]) => b === at)",
    tests: [BOOKING, FEEDS],
    grep: "overlaps|calendar leaves free",
  },
  {
    rule: "booking.md: Confirm changes nothing while another visitor holds an overlapping time",
    file: STORE,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text found is a template's source
    find: "(o.starts_at < ${ends} AND o.ends_at > ${starts} AND",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
    replace: "(o.starts_at = ${starts} AND",
    tests: [BOOKING, RACES],
    grep: "from another start|never hold one time",
  },
  {
    rule: "booking.md: Confirm confirms the time its page showed alone",
    file: STORE,
    find: "AND starts_at = ?${",
    replace: "AND (starts_at = ? OR 1 = 1)${",
    tests: [BOOKING, RACES],
  },
  {
    rule: "booking.md: a confirmed time counts the lead as taken (no reminder goes)",
    file: "server/booking/page.ts",
    find: "await takeLead(tx, parts.routing, i.id, now, by);",
    replace: "",
    tests: [BOOKING, RACES],
  },
  {
    rule: "booking.md: Confirm and the lead's take happen all together or not at all (one transaction)",
    file: "server/booking/page.ts",
    find: "await takeLead(tx, parts.routing, i.id, now, by);",
    replace: "await takeLead(tx, parts.routing, i.id, now, by).catch(() => undefined);",
    tests: [RACES, BOOKING],
  },
  {
    rule: "booking.md: no time is offered on a holiday",
    file: SLOTS,
    find: "* DAY_MS), facts);",
    replace: "* DAY_MS), { ...facts, holidays: [] });",
    tests: [BOOKING],
    grep: "around holidays",
  },
  {
    rule: "booking.md: no time within noticeBusinessHours (2) business hours from now",
    file: SLOTS,
    find: "if (at >= earliest &&",
    replace: "if (at >= now &&",
    tests: [BOOKING],
    grep: "around holidays",
  },
  {
    rule: "booking.md: never a time a calendar feed shows busy",
    file: "server/booking/page.ts",
    find: "[...busy, ...(await",
    replace: "[...(await",
    tests: [FEEDS, BOOKING],
    grep: "calendar leaves free|around holidays",
  },
  {
    rule: "booking.md: an all-day event blocks the office's whole day, wherever the calendar was published",
    file: "server/booking/calendar.ts",
    find: "if (t.isDate) return wall(t, office);",
    replace: 'if (t.isDate) return wall(t, "UTC");',
    tests: ["tests/unit/calendar.test.ts", FEEDS],
  },
  {
    rule: "booking.md: the server refuses to start with a feed on a host privacy.calendar.hosts does not name",
    file: "server/booking/feeds.ts",
    find: "hostNamed(url.hostname, site.privacy.calendar.hosts))",
    replace: "true)",
    tests: ["tests/unit/processors.test.ts", PRIVACY, BOOKING],
  },
  // The links (ADR 0016, 0017, 0019; docs/booking.md)
  {
    rule: "ADR 0019: a lead's link works INQUIRY_LINK_DAYS days",
    file: LINK,
    find: "const linkMs = config.INQUIRY_LINK_DAYS * DAY_MS;",
    replace: "const linkMs = config.INQUIRY_LINK_DAYS * 2 * DAY_MS;",
    tests: ["tests/unit/link-expiry.test.ts", LINKS],
  },
  {
    rule: "ADR 0019: a link works for its one action only (a lead's link opens no booking page)",
    file: LINK,
    find: "only ?? Object.keys(ACTION_LABEL)",
    replace: "[...(only ?? []), ...Object.keys(ACTION_LABEL)]",
    tests: [LINKS, BOOKING],
    grep: "forged, altered",
  },
  {
    rule: "ADR 0019: a lead's link never opens the overview",
    file: LINK,
    find: "parts.length !== 4 || parts[0] !== OVERVIEW",
    replace: "parts.length < 4",
    tests: [DIGEST, LINKS],
  },
  {
    rule: "ADR 0019: the links the overview hands out expire with it",
    file: LINK,
    find: "Math.min(expires, now + linkMs)",
    replace: "now + linkMs",
    tests: [DIGEST, LINKS],
  },
  {
    rule: "booking.md: the visitor's booking link works 14 days",
    file: "server/booking/messages.ts",
    find: "const BOOK_LINK_DAYS = 14;",
    replace: "const BOOK_LINK_DAYS = 28;",
    tests: [BOOKING, "tests/unit/link-expiry.test.ts"],
    grep: "works 14 days",
  },
  {
    rule: "ADR 0017: a link signed by a key the database does not hold is refused",
    file: LINK,
    find: 'if (!key) return ring.wasIssued("links", keyId) ? "retired" : "invalid";',
    replace: "if (!key) return Number.parseInt(expires, 36) * 1000;",
    tests: [LINKS, "tests/unit/keys.test.ts", "tests/integration/key-rotation.test.ts"],
  },
  {
    rule: "ADR 0016: an altered link is refused",
    file: LINK,
    find: "actual.length !== expected.length || !timingSafeEqual(actual, expected)",
    replace: "actual.length !== expected.length",
    tests: [LINKS],
  },
  {
    rule: "booking.md: a confirmed call's move nobody answered is reminded as a request is",
    file: "server/contact/review/reminders.ts",
    find: ': b?.state === "confirmed" && b.move?.startsAt === asked.startsAt;',
    replace: ": false;",
    tests: ["tests/integration/booking-reminder.test.ts"],
  },
  {
    rule: "booking.md: a call cancelled and booked again is reminded of its new time",
    file: STORE,
    find: "sequence = 0, reminded_at = NULL",
    replace: "sequence = 0",
    tests: ["tests/integration/booking-moves.test.ts"],
  },
  {
    rule: "booking.md: the number given with a move is the one the company calls",
    file: STORE,
    find: "phone = COALESCE(?, phone)",
    replace: "phone = COALESCE(phone, ?)",
    tests: ["tests/integration/booking-moves.test.ts"],
  },
  {
    rule: "booking.md: a time already begun is confirmed to nobody",
    file: "server/booking/page.ts",
    find: 'if (action === "confirm" && at <= now) return "passed";',
    replace: "",
    tests: ["tests/integration/booking-moves.test.ts"],
  },
  {
    rule: "operations.md: the at-risk warning counts from the lead's own Reply by and promise",
    file: "server/contact/review/reminders.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text found is a template's source
    find: "${promiseOf(i, facts).hours} business hours we promised this visitor",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
    replace: "${facts.response.promiseBusinessHours} business hours we promised this visitor",
    tests: ["tests/integration/reply-by.test.ts"],
  },
  {
    rule: "booking.md: a move waiting for an answer is on the overview and in the digest",
    file: STORE,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text found is a template's source
    find: "OR (${b}.state = 'confirmed' AND ${b}.move_starts_at > ?))",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
    replace: "OR (${b}.state = 'confirmed' AND ${b}.move_starts_at > ? AND 0 = 1))",
    tests: ["tests/integration/booking-moves.test.ts"],
  },
  // Emails read on a phone (ADR 0034)
  {
    rule: "ADR 0034: everything in an email wraps, nothing wider than a 390 px screen",
    file: LAYOUT,
    find: ';overflow-wrap:anywhere;word-break:break-word">',
    replace: '">',
    tests: [EMAILS],
  },
  {
    rule: "ADR 0034: an email is dark in the dark scheme",
    file: LAYOUT,
    find: "@media (prefers-color-scheme: dark) {",
    replace: "@media print {",
    tests: [EMAILS],
  },
  {
    rule: "ADR 0034: buttons with words, never a raw link in the HTML part",
    file: LAYOUT,
    find: "escapeHtml(b.label)}</a>",
    replace: "escapeHtml(b.url)}</a>",
    tests: [EMAILS],
  },
  {
    rule: "operations.md: the digest lists the day's calls and the requests waiting for an answer",
    file: "server/contact/review/digest.ts",
    find: "const first = await consultations(",
    replace: "const first = { sections: [] as Section[], inquiryIds: [] };\n  await consultations(",
    tests: [EMAILS],
  },
  {
    rule: "operations.md: a request of a message held as spam is not in the digest",
    file: STORE,
    find: " AND NOT i.held)",
    replace: ")",
    tests: [EMAILS],
  },
  // The morning digest (ADR 0027)
  {
    rule: "ADR 0027: one digest a day however many instances run",
    file: "server/contact/review/digest.ts",
    find: "WHERE settings.value < excluded.value RETURNING value",
    replace: "RETURNING value",
    tests: [DIGEST],
  },
  {
    rule: "ADR 0027: a digest's day only moves forward (a late turn claims no day again)",
    file: "server/contact/review/digest.ts",
    find: "WHERE settings.value < excluded.value RETURNING value",
    replace: "WHERE settings.value <> excluded.value RETURNING value",
    tests: [DIGEST],
  },
  {
    rule: "ADR 0027: the digest goes at opening time, not before",
    file: "server/contact/review/digest.ts",
    find: "if (!opening || now < opening.at) return false;",
    replace: "if (!opening) return false;",
    tests: [DIGEST],
  },
  {
    rule: "ADR 0027: no digest on a day the office is closed",
    file: "server/contact/review/digest.ts",
    find: "const opens = openOn(date, facts).map(([open]) => open);",
    replace:
      "const opens = [...openOn(date, facts).map(([open]) => open), date.getTime() + 16 * 3_600_000];",
    tests: [DIGEST, "tests/unit/office-clock.test.ts"],
  },
  {
    rule: "ADR 0027: no digest on a holiday",
    file: "server/contact/review/digest.ts",
    find: "openOn(date, facts)",
    replace: "openOn(date, { ...facts, holidays: [] })",
    tests: [DIGEST, "tests/unit/office-clock.test.ts"],
  },
  // Erasure and retention (ADR 0014, docs/operations.md)
  {
    rule: "booking.md: erasing an inquiry erases its booking",
    file: "server/contact/storage/sqlite.ts",
    find: "PRAGMA foreign_keys = ON;",
    replace: "PRAGMA foreign_keys = OFF;",
    tests: [BOOKING, PRIVACY],
  },
  {
    rule: "ADR 0014: forget erases the inquiry's email copies in DATA_DIR/mail",
    file: "server/contact/erasure.ts",
    find: "const files = eraseFiles(mailDir, new Set(erased.ids), before);",
    replace: "const files = 0;",
    tests: [PRIVACY],
  },
  {
    rule: "ADR 0014: retention erases an inquiry once retentionDays have passed",
    file: "server/contact/housekeeping.ts",
    find: "const before = now - retentionDays * DAY_MS;",
    replace: "const before = now - 2 * retentionDays * DAY_MS;",
    tests: [PRIVACY],
  },
  // The reply promise (ADR 0020)
  {
    rule: "ADR 0020: no reminder for a lead held as spam",
    file: "server/contact/intake/pipeline.ts",
    find: "deliveries: held\n        ? []\n        :",
    replace: "deliveries:",
    tests: [PROMISE],
  },
  {
    rule: "ADR 0020: no reminder for a lead someone took",
    file: "server/contact/review/reminders.ts",
    find: "if (i.takenAt != null || dueAt === null ||",
    replace: "if (dueAt === null ||",
    tests: [PROMISE],
  },
  {
    rule: "ADR 0020: the reminder goes once the promise's business hours have passed, not before",
    file: "server/contact/review/reminders.ts",
    find: "if (dueAt > now) return { at: dueAt };",
    replace: "if (dueAt > now + 3_600_000) return { at: dueAt };",
    tests: [PROMISE],
  },
  {
    rule: "ADR 0020: business time skips holidays",
    file: "server/contact/review/promise.ts",
    find: "+ i * DAY_MS), hours);",
    replace: "+ i * DAY_MS), { ...hours, holidays: [] });",
    tests: ["tests/unit/business-time.test.ts", PROMISE],
  },
  {
    rule: "ADR 0020: a lead's Reply by stays what its email said when the office hours change",
    file: "server/contact/review/promise.ts",
    find: "if (i.replyHours != null) return",
    replace: "if (i.replyHours === -1) return",
    tests: ["tests/integration/reply-by.test.ts"],
  },
  {
    rule: "ADR 0020: a lead from before its Reply by was kept gets the rule's at the first start, and keeps it",
    file: "server/contact/runtime.ts",
    find: "const filled = await fillPromises(db, opts.facts);",
    replace: "const filled = 0;",
    tests: ["tests/integration/reply-by.test.ts"],
  },
  // The company's facts (ADR 0026, docs/editing.md)
  {
    rule: "editing.md: a build for the public address refuses facts that disagree",
    file: "scripts/content-check.ts",
    find: "if (!isPublicSite(url)) return { problems, warnings: disagree };",
    replace: "return { problems, warnings: disagree };",
    tests: ["tests/unit/site.test.ts", "tests/integration/public-facts.test.ts"],
  },
  {
    rule: "editing.md: a zone name the office has only part of the year (MDT in November) is a disagreement",
    file: "scripts/content-check.ts",
    find: "seasons.filter((s) => s.length === 1).flat()",
    replace: "seasons.flat()",
    tests: ["tests/unit/site.test.ts"],
  },
  {
    rule: "editing.md: an hour line left out is made from the office hours",
    file: "app/config/derive.ts",
    find: "hours: facts.phone.hours ?? line",
    replace: 'hours: facts.phone.hours ?? ""',
    tests: ["tests/unit/site.test.ts", "tests/integration/public-facts.test.ts"],
  },
  // The contact pipeline (ADR 0004, 0007, 0009; docs/contact-api.md)
  {
    rule: "contact-api.md: RATE_LIMIT_PER_MINUTE messages a minute from one address",
    file: "server/contact/intake/pipeline.ts",
    find: "points: config.RATE_LIMIT_PER_MINUTE,",
    replace: "points: config.RATE_LIMIT_PER_MINUTE * 100,",
    tests: ["tests/integration/rate-limits.test.ts"],
  },
  {
    rule: "contact-api.md: RATE_LIMIT_NETWORK_PER_MINUTE messages a minute from one network",
    file: "server/contact/intake/pipeline.ts",
    find: "points: config.RATE_LIMIT_NETWORK_PER_MINUTE,",
    replace: "points: config.RATE_LIMIT_NETWORK_PER_MINUTE * 100,",
    tests: ["tests/integration/rate-limits.test.ts"],
  },
  {
    rule: "ADR 0004: a message sent again with its Idempotency-Key is stored once",
    file: "server/contact/intake/pipeline.ts",
    find: "idempotency: s.idempotencyKey ? { key: s.idempotencyKey, fingerprint } : undefined,",
    replace: "idempotency: undefined,",
    tests: [
      "tests/integration/contact-endpoint.test.ts",
      "tests/integration/pipeline.contract.test.ts",
    ],
  },
  {
    rule: "contact-api.md: an Idempotency-Key used again with another message is refused (422)",
    file: "server/contact/intake/pipeline.ts",
    find: "first.fingerprint && first.fingerprint !== fingerprint",
    replace: "false",
    tests: [
      "tests/integration/contact-endpoint.test.ts",
      "tests/integration/pipeline.contract.test.ts",
    ],
  },
  {
    rule: "ADR 0007: a filled honeypot holds the message",
    file: "server/contact/intake/spam.ts",
    find: 'const reasons = trap ? ["honeypot filled"] : [];',
    replace: "const reasons: string[] = [];",
    tests: ["tests/integration/spam.test.ts", "tests/integration/pipeline.contract.test.ts"],
  },
  {
    rule: "ADR 0004: success only after the message is stored (storage away: 503, never 201)",
    file: "server/contact/http/endpoint.ts",
    find: "res,\n      503,",
    replace: "res,\n      201,",
    tests: ["tests/integration/storage-outage.test.ts"],
  },
  // Configuration (docs/configuration.md, ADR 0013, 0014)
  {
    rule: "configuration.md: CONTACT_ROUTES naming a service twice is refused",
    file: "server/env.ts",
    find: "if (twice !== null)",
    replace: 'if (twice === "never")',
    tests: ["tests/unit/env.test.ts"],
  },
  {
    rule: "ADR 0014: a channel's host the privacy notice does not name is refused at start",
    file: "server/contact/delivery/routing.ts",
    find: "if (isLoopbackHost(host) || hostNamed(host, processor.hosts)) continue;",
    replace: "continue;",
    tests: ["tests/unit/processors.test.ts", PRIVACY],
  },
  // The server (ADR 0003, 0030)
  {
    rule: "ADR 0003: no 5xx for any request (a client's error is a 4xx)",
    file: "server/app.ts",
    find: "const clientError = Number.isInteger(status) && status >= 400 && status < 500;",
    replace: "const clientError = false;",
    tests: ["tests/integration/requests.test.ts"],
  },
  {
    rule: "ADR 0003: a visitor never sees a stack (an unexpected error in the JSON endpoint)",
    file: "server/contact/http/endpoint.ts",
    find: '"We could not take your message right now. Please try again or contact us directly.",',
    replace: "String(err?.stack),",
    tests: ["tests/integration/errors.test.ts", "tests/integration/requests.test.ts"],
  },

  {
    rule: "ADR 0030: an unexpected error's log line has a stack mapped to the TypeScript source",
    file: "server.js",
    find: "nodeModule.setSourceMapsSupport(true);",
    replace: "nodeModule.setSourceMapsSupport(false);",
    tests: ["tests/integration/errors.test.ts"],
  },
  {
    rule: "ADR 0030: the server refuses a build a file of which is not as built",
    file: "server.js",
    find: "if (found?.size !== size)",
    replace: "if (!found)",
    tests: ["tests/integration/startup.test.ts"],
  },
  {
    rule: "ADR 0030: the server refuses a build without its list of files (a step stopped halfway)",
    file: "server.js",
    find: `problems.push(\`\${part}/files.json missing\`);`,
    replace: "",
    tests: ["tests/integration/startup.test.ts"],
  },
  // The editors' mistakes and the preview (docs/editing.md, ADR 0026)
  {
    rule: "editing.md: a syntax mistake in site.ts or services.ts is one line with its line and column",
    file: "scripts/content-check.ts",
    find: 'const { errors } = parseSync(file, source, { lang: "ts" });',
    replace: 'const errors: ReturnType<typeof parseSync>["errors"] = [];',
    tests: ["tests/unit/site.test.ts"],
  },
  {
    rule: "editing.md: a word out of quotes in services.ts is said as such, where it is",
    file: "scripts/content-check.ts",
    find: "const word = /^(\\S+) is not defined$/.exec(error.message)?.[1];",
    replace: "const word = undefined as string | undefined;",
    tests: [EDITING],
    grep: "a syntax mistake in site.ts",
  },
  {
    rule: "editing.md: a date that does not exist says how many days its month has",
    file: "app/config/site.schema.ts",
    find: "if (day >= 1 && day <= days) return undefined;",
    replace: "return undefined;",
    tests: ["tests/unit/posts.test.ts"],
  },
  {
    rule: "editing.md: a picture's name says which rule it breaks (an underscore)",
    file: "app/content/post-parser.ts",
    find: '[/_/.test(stem), "an underscore"],',
    replace: "",
    tests: ["tests/unit/posts.test.ts"],
  },
  {
    rule: "editing.md: the preview never features a draft or a later post",
    file: "app/routes/blog.tsx",
    find: "const featured = loaderData.posts.find((p) => !p.notLive);",
    replace: "const featured = loaderData.posts[0];",
    tests: [EDITING],
    grep: "an editor publishes alone",
  },
  // The call that can happen, and the calendars on erasure (issue 54: docs/booking.md, ADR 0033)
  {
    rule: 'booking.md: with a video link, the booking page asks no phone number ("phone" alone)',
    file: "app/contact/booking.ts",
    find: 'export const BY_PHONE = site.booking.place === "phone";',
    replace: "export const BY_PHONE = true;",
    tests: [PHONE],
    grep: "video link",
  },
  {
    rule: "booking.md: a number too short or too long is refused, with the reason",
    file: "app/contact/booking.ts",
    find: "/^[2-9][0-9]{2}[2-9][0-9]{6}$/",
    replace: "/^[0-9]{7,11}$/",
    tests: ["tests/unit/visitor-phone.test.ts"],
  },
  {
    rule: "booking.md: another country's number is refused (US numbers only, +1)",
    file: "app/contact/booking.ts",
    find: 'if (text.startsWith("+") && !digits.startsWith("1"))',
    replace: "if (false)",
    tests: ["tests/unit/visitor-phone.test.ts"],
  },
  {
    rule: "booking.md: a refused number stays in its field as typed",
    file: "server/booking/page.ts",
    find: 'value: (form.phone ?? "").slice(0, BOOK_PHONE_MAX)',
    replace: 'value: ""',
    tests: [PHONE],
    grep: "without JavaScript",
  },
  {
    rule: "booking.md: the company's invitation says which number to call",
    file: "server/booking/messages.ts",
    find: `? \`By phone: call \${i.name} at \${number}\``,
    replace: "? `By phone: we call you at the time`",
    tests: [PHONE],
    grep: "without JavaScript",
  },
  {
    rule: "booking.md: erasing an inquiry cancels its confirmed call still ahead in both calendars",
    file: "server/contact/erasure.ts",
    find: "withdrawn: await withdraw(tx),",
    replace: "withdrawn: 0,",
    tests: [ERASURE],
    grep: "sqlite",
  },
  {
    rule: "booking.md: a call already held sends no cancellation",
    file: STORE,
    find: "WHERE state = 'confirmed' AND starts_at > ? AND",
    replace: "WHERE state = 'confirmed' AND starts_at > ? - 864000000 AND",
    tests: [ERASURE],
    grep: "sqlite",
  },
  {
    rule: "operations.md: the outbox row of an erased visitor's cancellation names nobody once sent",
    file: "server/booking/messages.ts",
    find: 'channel: "email", target: "visitor",',
    replace: 'channel: "email", target: i.email,',
    tests: [ERASURE],
    grep: "sqlite",
  },
  // The weekly numbers (docs/operations.md, ADR 0027)
  ...[
    ["once a week however many instances run", " WHERE settings.value < excluded.value", ""],
    [
      "at the week's first opening, not before",
      "if (!opening || now < opening.at) return false;",
      "if (!opening) return false;",
    ],
    [
      "with the leads taken within the promise, not all",
      "inTime: all?.inTime ?? 0",
      "inTime: all?.leads ?? 0",
    ],
    ["sent only when WEEKLY_FIGURES_TO is set", "if (!to) return false;", ""],
  ].map(([rule, find, replace]) => ({
    rule: `operations.md: the weekly numbers go ${rule}`,
    file: "server/contact/review/weekly.ts",
    find: find as string,
    replace: replace as string,
    tests: ["tests/integration/weekly-figures.test.ts"],
  })),
  // A post's photo and the build cache (docs/editing.md)
  {
    rule: "editing.md: a photo of another shape than a post's top is cropped to 1200:630",
    file: "scripts/photos.ts",
    find: "if (shape >= SHAPES.min && shape <= SHAPES.max) return null;",
    replace: "return null;",
    tests: ["tests/unit/photos.test.ts"],
    grep: "another shape",
  },
  {
    rule: "editing.md: a photo is cropped around its post's imageFocus",
    file: "scripts/photos.ts",
    find: "top: edge(y, height, crop.height),",
    replace: "top: edge(50, height, crop.height),",
    tests: ["tests/unit/photos.test.ts"],
    grep: "another shape",
  },
  ...[
    ["reuses a photo's variants", "scripts/photos.ts", "if (!existsSync(out)) {", "if (out) {"],
    ["keeps what a build uses", "scripts/photos.ts", "  markUsed(dir);\n", ""],
    [
      "deletes what no build used for 30 days",
      "scripts/build-cache.ts",
      "now - statSync(path).mtimeMs > KEEP_DAYS * DAY_MS",
      "now < 0",
    ],
  ].map(([rule, file, find, replace]) => ({
    rule: `editing.md: the build cache ${rule}`,
    file: file as string,
    find: find as string,
    replace: replace as string,
    tests: ["tests/integration/hero-photos.test.ts"],
  })),
];

const root = new URL("../", import.meta.url).pathname;

type Outcome = {
  rule: string;
  result: "caught" | "MISSED" | "stale" | "error";
  by: string;
  seconds: number;
};

function vitest(
  copy: string,
  b: Breakage,
  report: string,
): Promise<{ code: number | null; log: string }> {
  const args = [
    join(copy, "node_modules/vitest/vitest.mjs"),
    "run",
    ...b.tests,
    "--reporter=json",
    `--outputFile=${report}`,
    "--bail=1",
    ...(b.grep ? ["-t", b.grep] : []),
  ];
  return new Promise((resolve) => {
    // A process group of its own: `--bail` ends the run before a test's own cleanup, and the
    // servers and databases its tests started would outlive it. The group, led by this child's
    // PID, is stopped once the run is over.
    const child = spawn(process.execPath, args, {
      cwd: copy,
      env: { ...process.env, CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let log = "";
    const keep = (d: Buffer) => {
      log = (log + d).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    running = child.pid;
    child.on("close", (code) => {
      stopGroup(child.pid);
      running = undefined;
      resolve({ code, log });
    });
  });
}

/** The test run going on (its process group's leader), for Ctrl-C to stop with the rest. */
let running: number | undefined;
function stopGroup(leader: number | undefined) {
  try {
    if (leader) process.kill(-leader, "SIGKILL");
  } catch {
    // ESRCH: nothing of the group was left.
  }
}

type Report = {
  testResults?: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }>;
  }>;
};

/** The first failed test as "file › name", or the failed file when a suite failed before its tests. */
function firstFailure(copy: string, report: string): string | null {
  if (!existsSync(report)) return null;
  const r = JSON.parse(readFileSync(report, "utf8")) as Report;
  for (const file of r.testResults ?? []) {
    const name = file.name.replace(`${copy}/`, "");
    const failed = file.assertionResults.find((a) => a.status === "failed");
    const why = failed?.failureMessages?.[0]?.split("\n")[0]?.slice(0, 100);
    if (failed) return `${name} › ${failed.fullName} (${why})`;
  }
  for (const file of r.testResults ?? [])
    if (file.status === "failed")
      return `${file.name.replace(`${copy}/`, "")} (suite: ${(file.message ?? "").split("\n")[0]?.slice(0, 80)})`;
  return null;
}

async function main() {
  const argv = process.argv.slice(2);
  const onlyAt = argv.indexOf("--only");
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
  const chosen = breakages.filter(
    (b) => !only || `${b.rule} ${b.file}`.toLowerCase().includes(only.toLowerCase()),
  );
  if (chosen.length === 0) {
    console.error(`No breakage matches ${JSON.stringify(only)}.`);
    process.exit(2);
  }
  if (argv.includes("--check")) {
    // Only whether each `find` still matches once at HEAD: no copy, no test.
    let stale = 0;
    for (const b of chosen) {
      const text = execFileSync("git", ["show", `HEAD:${b.file}`], { cwd: root, encoding: "utf8" });
      const count = text.split(b.find).length - 1;
      if (count !== 1) stale += 1;
      console.log(`${count === 1 ? "ok   " : `stale (${count}×)`} ${b.rule}`);
    }
    process.exit(stale > 0 ? 1 : 0);
  }
  if (!existsSync(join(root, "build/server/index.js"))) {
    console.error("No build: run `npm run build` first (its build/ is copied).");
    process.exit(2);
  }

  const temp = mkdtempSync(join(tmpdir(), "break-rules-"));
  const copy = join(temp, "copy");
  execFileSync("git", ["worktree", "add", "--detach", "--quiet", copy, "HEAD"], { cwd: root });
  const outcomes: Outcome[] = [];
  const cleanUp = () => {
    try {
      execFileSync("git", ["worktree", "remove", "--force", copy], { cwd: root });
    } catch {}
    rmSync(temp, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      stopGroup(running);
      cleanUp();
      process.exit(130);
    });
  try {
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    cpSync(join(root, "build"), join(copy, "build"), { recursive: true });
    for (const [i, b] of chosen.entries()) {
      const started = Date.now();
      const seconds = () => Math.round((Date.now() - started) / 1000);
      const path = join(copy, b.file);
      const original = existsSync(path) ? readFileSync(path, "utf8") : "";
      const count = original.split(b.find).length - 1;
      process.stdout.write(`[${i + 1}/${chosen.length}] ${b.rule} … `);
      if (count !== 1) {
        outcomes.push({ rule: b.rule, result: "stale", by: `find matches ${count}×`, seconds: 0 });
        console.log(`stale (find matches ${count}×)`);
        continue;
      }
      writeFileSync(
        path,
        original.replace(b.find, () => b.replace),
      );
      try {
        const report = join(temp, `report-${i}.json`);
        const { code, log } = await vitest(copy, b, report);
        const failed = firstFailure(copy, report);
        const outcome: Outcome = failed
          ? { rule: b.rule, result: "caught", by: failed, seconds: seconds() }
          : code === 0
            ? { rule: b.rule, result: "MISSED", by: "all passed", seconds: seconds() }
            : {
                rule: b.rule,
                result: "error",
                by: `vitest exited ${code}: ${log.trim().split("\n").slice(-3).join(" ")}`,
                seconds: seconds(),
              };
        outcomes.push(outcome);
        console.log(`${outcome.result} (${outcome.seconds} s) ${outcome.by}`);
      } finally {
        writeFileSync(path, original);
      }
    }
  } finally {
    cleanUp();
  }

  console.log("\n| rule | caught | failed test | s |\n|---|---|---|---|");
  for (const o of outcomes)
    console.log(
      `| ${o.rule} | ${o.result === "caught" ? "yes" : `**${o.result}**`} | ${o.by.replaceAll("|", "\\|")} | ${o.seconds} |`,
    );
  const bad = outcomes.filter((o) => o.result !== "caught");
  console.log(`\n${outcomes.length - bad.length} of ${outcomes.length} breakages caught.`);
  if (bad.length > 0) process.exit(1);
}

if (import.meta.main) await main();
