import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseSync } from "vite";
import { type Day, hourLine, WEEK, zoneText } from "../app/config/derive.ts";
import { lineOf, problemsOf, siteSchema } from "../app/config/site.schema.ts";
import type { Site } from "../app/config/site.ts";
import { checkPost, duplicateSlugs, formatProblem, type Post } from "../app/content/post-parser.ts";
import { serviceLinesSchema } from "../app/content/services.schema.ts";
import { placeholderContacts } from "../server/facts.ts";
import { isReservedHost } from "../server/guards.ts";

/**
 * What the company edits, checked before anything is built or served: every post, the company facts
 * and the services content. Every mistake of every file at once, one line each (file, line, field,
 * what was found, what is expected, an example), then the command stops: the prerender never sees a
 * bad value. It runs before Vite (`npm run build` and `npm run dev` start with it; `npm start` builds
 * when a source changed: scripts/ensure-build.js), because Vite bundles site.ts and services.ts
 * into its own configuration and a syntax mistake there would stop it with the bundler's output
 * instead. So site.ts and services.ts are parsed here first and loaded only when they parse, and
 * the posts (which need neither) are checked whatever they hold.
 */

const root = new URL("..", import.meta.url).pathname;

/** Every mistake in content/blog. */
export function postProblems(dir = join(root, "content/blog")): string[] {
  const posts: Post[] = [];
  const problems: string[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".md"))) {
    const file = `content/blog/${name}`;
    const checked = checkPost(file, readFileSync(join(dir, name), "utf8"));
    if ("problems" in checked) {
      problems.push(...checked.problems.map(formatProblem));
      continue;
    }
    posts.push(checked.post);
    const image = join(dir, checked.post.image);
    if (!existsSync(image)) {
      problems.push(
        formatProblem({
          file,
          field: "image",
          message: `no file content/blog/${checked.post.image.slice(2)}: save the picture there, or correct the name (the name is case-sensitive)`,
        }),
      );
    }
  }
  return [...problems, ...duplicateSlugs(posts).map(formatProblem)];
}

const sourceOf = (file: string) => readFileSync(join(root, file), "utf8");

/** Where `offset` is in `source`, as an editor counts: line and column from 1. */
function position(source: string, offset: number) {
  const before = source.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** The parser's names for what it expected, said in words. */
const TOKEN_WORDS: Record<string, string> = {
  ",": "a comma (,)",
  ":": "a colon (:)",
  "]": "the ] that ends the list",
  "}": "the } that ends the group",
  ")": "the ) that ends the brackets",
};

const EXAMPLE =
  'text in quotes, each field written name: "value" and followed by a comma, like: title: "Colocation",';

/**
 * A syntax mistake in site.ts or services.ts, in the words of the other mistakes: where (line and
 * column), what was found, what is expected, an example. The parser stops at the first such mistake:
 * what follows it cannot be read until it is corrected.
 */
export function syntaxProblems(file: string, source: string): string[] {
  const { errors } = parseSync(file, source, { lang: "ts" });
  return errors.map((e) => {
    const [at, opened] = e.labels;
    const start = at?.start ?? 0;
    const { line, column } = position(source, start);
    const where = `${file}, line ${line}, column ${column}`;
    const text = source.slice(start, Math.max(at?.end ?? start, start + 1)).split("\n")[0] ?? "";
    const found = `found ${/^["']/.test(text) ? text : JSON.stringify(text)}`;
    const tokens = /^Expected (.+?)(?: but found .+)?$/.exec(e.message)?.[1];
    if (tokens) {
      const openedOn = opened ? ` opened on line ${position(source, opened.start).line}` : "";
      const expected = [...tokens.matchAll(/`([^`]+)`/g)]
        .map(
          ([, t]) =>
            `${TOKEN_WORDS[t as string] ?? `"${t}"`}${t === "]" || t === "}" ? openedOn : ""}`,
        )
        .join(" or ");
      // A comma forgotten at the end of a line is the usual cause: say which line.
      const previous = source.slice(0, start).trimEnd();
      const end = position(source, previous.length).line;
      const comma =
        tokens.includes("`,`") && end < line ? ` (a comma at the end of line ${end}?)` : "";
      return `${where}: ${found}; expected ${expected}${comma}. Write ${EXAMPLE}`;
    }
    if (/^Unterminated string/.test(e.message)) {
      return `${where}: found text that starts with ${text.charAt(0)} and does not end on its line; expected the same quote at its end. Write ${EXAMPLE}`;
    }
    if (/^Invalid Character/.test(e.message) && /[\u2018\u2019\u201c\u201d]/.test(text)) {
      return `${where}: found the curly quote ${text}; expected a straight quote (" or '), as a text editor types it. Write ${EXAMPLE}`;
    }
    return `${where}: ${found}, which cannot be read here (${e.message.toLowerCase()}). Write ${EXAMPLE}`;
  });
}

/** Why loading a file that parses failed (a word not in quotes, most often), in one line. */
function loadProblem(file: string, err: unknown): string {
  const error = err instanceof Error ? err : new Error(String(err));
  const at = new RegExp(`${file.replace(/[.]/g, "\\.")}:(\\d+):(\\d+)`).exec(error.stack ?? "");
  const where = `${file}${at ? `, line ${at[1]}, column ${at[2]}` : ""}`;
  const word = /^(\S+) is not defined$/.exec(error.message)?.[1];
  if (word) {
    const line = at ? (sourceOf(file).split("\n")[Number(at[1]) - 1] ?? "") : "";
    const field = /(\w+):\s*[^:]*$/.exec(line.slice(0, Number(at?.[2] ?? 1) - 1))?.[1] ?? "title";
    return `${where}: found ${word} outside quotes; expected text in quotes, like: ${field}: "${word}",`;
  }
  return `${where}: cannot be read (${error.message.split("\n")[0]}). Write ${EXAMPLE}`;
}

/** An editable TypeScript file's export, or what keeps it from being read. */
async function loadEditable<T>(
  file: string,
  name: string,
): Promise<{ value: T } | { problems: string[] }> {
  const syntax = syntaxProblems(file, sourceOf(file));
  if (syntax.length > 0) return { problems: syntax };
  try {
    const module = await import(pathToFileURL(join(root, file)).href);
    return { value: module[name] as T };
  } catch (err) {
    return { problems: [loadProblem(file, err)] };
  }
}

/** Every mistake in the company facts and the services content. */
export function factProblems(site: unknown, services: unknown): string[] {
  return [
    ...problemsOf(siteSchema, site, "app/config/site.ts", sourceOf("app/config/site.ts")),
    ...servicesProblems(services),
  ];
}

function servicesProblems(services: unknown): string[] {
  return problemsOf(
    serviceLinesSchema,
    services,
    "app/content/services.ts",
    sourceOf("app/content/services.ts"),
    (i) =>
      Array.isArray(services) ? (services[i] as { title?: string } | undefined)?.title : undefined,
  );
}

/** A web address visitors reach: https, and not this machine or a name reserved for examples. */
export function isPublicSite(siteUrl: string): boolean {
  const url = URL.parse(siteUrl);
  return url?.protocol === "https:" && !isReservedHost(url.hostname);
}

/** A build for the public site stops while a contact detail is still a placeholder (server/facts.ts finds them). */
export function placeholderProblems(site: Site, siteUrl: string): string[] {
  if (!isPublicSite(siteUrl)) return [];
  return placeholderContacts(site).map((fact) => {
    const [field, ...value] = fact.split(" ");
    return `app/config/site.ts, ${field}: still the placeholder ${value.join(" ")}; put the company's own before publishing to ${siteUrl}`;
  });
}

const REPLY = /within (\d+(?:\.\d+)?) (?:business )?hours?\b/gi;
const DAY = "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?";
const TIME = "(\\d{1,2})(?::(\\d{2}))?\\s*([AP])\\.?M\\.?";
/** "Monday to Friday, 9:00 AM to 5:00 PM": its days (optional) and its two times. */
const HOURS = new RegExp(
  `(?:${DAY}(?:\\s*(?:to|through|–|-)\\s*${DAY})?,?\\s+)?${TIME}\\s*(?:to|–|-)\\s*${TIME}`,
  "gi",
);
/** How a US time zone is written: MDT, MT, Eastern Time, Pacific Standard Time… */
const ZONES =
  /\b(?:[ECMP][SD]?T|AK[SD]?T|H[SD]?T|(?:Eastern|Central|Mountain|Pacific|Alaska|Hawaii(?:-Aleutian)?)(?: Standard| Daylight)? Time)\b/g;

const dayOf = (word: string | undefined) =>
  word ? WEEK.find((d) => d.toLowerCase() === word.toLowerCase().replace(/s$/, "")) : undefined;
const hhmm = (h: string, m: string | undefined, half: string) =>
  `${String((Number(h) % 12) + (half.toUpperCase() === "P" ? 12 : 0)).padStart(2, "0")}:${m ?? "00"}`;

/** Each part of an hour line: the days it names (none: the office's first open days) and its times. */
function hoursSaid(text: string, first: readonly Day[]) {
  return [...text.matchAll(HOURS)].map((m) => {
    const [from, to] = [dayOf(m[1]), dayOf(m[2])];
    const days = from
      ? to
        ? WEEK.slice(WEEK.indexOf(from), WEEK.indexOf(to) + 1)
        : [from]
      : first;
    return {
      days,
      opens: hhmm(m[3] ?? "", m[4], m[5] ?? ""),
      closes: hhmm(m[6] ?? "", m[7], m[8] ?? ""),
    };
  });
}

/** What the office's zone is called at each month's start of `year`, and the names it has all year. */
function zoneNames(timeZone: string, year: number) {
  const name = (at: number, style: Intl.DateTimeFormatOptions["timeZoneName"]) =>
    new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: style })
      .formatToParts(at)
      .find((p) => p.type === "timeZoneName")?.value ?? "";
  const months = Array.from({ length: 12 }, (_, m) => Date.UTC(year, m, 1));
  const [short, long] = (["short", "long"] as const).map((style) => [
    ...new Set(months.map((at) => name(at, style))),
  ]);
  const generic = [...new Set([name(0, "shortGeneric"), zoneText(timeZone)])];
  const seasons = [short ?? [], long ?? []];
  const allYear = new Set([...generic, ...seasons.filter((s) => s.length === 1).flat()]);
  /** The office's names for the other part of the year than `said`'s, none when it is not one of them. */
  const otherThan = (said: string) =>
    seasons.find((s) => s.length > 1 && s.includes(said))?.filter((n) => n !== said);
  return { generic, allYear, otherThan };
}

/** A fact said twice that disagrees: the field, its whole value (to find its line) and what to do. */
export type Disagreement = { field: string; value: string; text: string };

/**
 * Facts said twice that do not agree: a reply time against the promise the server keeps, an hour
 * line against the office hours, a zone named as the office's is not called all year (MDT in
 * November). The spec itself ships some (ADR 0026): a local build names them and keeps them; a build
 * for the public site refuses them. Each names the pair and how to make them agree.
 */
export function disagreements(site: Site, year = new Date().getFullYear()): Disagreement[] {
  const found: Disagreement[] = [];
  const promise = site.response.promiseBusinessHours;
  for (const key of ["infoLine", "tile", "dialogMessage"] as const) {
    const [field, value] = [`response.${key}`, site.response[key]];
    for (const [said, n] of value.matchAll(REPLY)) {
      if (Number(n) === promise) continue;
      found.push({
        field,
        value,
        text: `${field} says "${said}", response.promiseBusinessHours (the promise the server keeps and reminds by) is ${promise}: write "within ${promise} hours" there, or change promiseBusinessHours and every line that says a reply time`,
      });
    }
  }
  const open = site.officeHours.filter((h) => h.opens && h.closes);
  const stated = open.map((h) => `${h.label} ${h.text}`).join(", ") || "closed every day";
  const zone = zoneNames(site.timeZone, year);
  const generic = zone.generic.map((g) => `"${g}"`).join(" or ");
  for (const [field, value] of [
    ["phone.hours", site.phone.hours],
    ["imprint.supportHours", site.imprint.supportHours],
  ] as const) {
    const made = `or leave ${field} out and it is made from officeHours`;
    const wrong = hoursSaid(value, open[0]?.days ?? []).some(({ days, opens, closes }) =>
      days.some((day) => {
        const row = site.officeHours.find((h) => h.days.includes(day));
        return row?.opens !== opens || row.closes !== closes;
      }),
    );
    if (wrong) {
      found.push({
        field,
        value,
        text: `${field} says "${value}", officeHours say ${stated}: write the hours officeHours say, ${made} ("${hourLine(site)}")`,
      });
    }
    for (const [said] of value.matchAll(ZONES)) {
      if (zone.allYear.has(said)) continue;
      const rest = zone.otherThan(said);
      const why = rest
        ? `which ${site.timeZone} (timeZone) is called only part of the year (${rest.join(", ")} the rest of it), and the line is shown all year`
        : `while timeZone is ${site.timeZone} (${zone.generic.at(-1)})`;
      found.push({
        field,
        value,
        text: `${field} says "${said}", ${why}: write ${generic}, ${made}`,
      });
    }
  }
  return found;
}

/**
 * Everything to say before a build: the mistakes that stop it, and the disagreements, which stop a
 * build for the public site as placeholders do and are only named for any other. `siteUrl` is read
 * once the facts are whole (reading the environment loads them).
 */
export async function checkContent(siteUrl: () => Promise<string>) {
  const site = await loadEditable<Site>("app/config/site.ts", "site");
  const services = await loadEditable<unknown>("app/content/services.ts", "serviceLines");
  const facts = [
    ...("value" in site
      ? problemsOf(siteSchema, site.value, "app/config/site.ts", sourceOf("app/config/site.ts"))
      : site.problems),
    ...("value" in services ? servicesProblems(services.value) : services.problems),
  ];
  const problems = [...postProblems(), ...facts];
  if (facts.length > 0 || !("value" in site)) return { problems, warnings: [] };
  const source = sourceOf("app/config/site.ts");
  const disagree = disagreements(site.value).map(({ field, value, text }) => {
    const line = lineOf(source, field.split(".").at(-1), value);
    return `app/config/site.ts${line ? `, line ${line}` : ""}, ${text}`;
  });
  const url = await siteUrl();
  if (!isPublicSite(url)) return { problems, warnings: disagree };
  problems.push(...placeholderProblems(site.value, url), ...disagree);
  return { problems, warnings: [] };
}

/** Lines for a log file too: no colour, no stack. */
async function main() {
  const { problems, warnings } = await checkContent(async () => {
    const { loadBuildEnv } = await import("../server/config.ts");
    return loadBuildEnv(process.env).SITE_URL;
  });
  if (warnings.length > 0) {
    console.warn(
      `Facts that disagree (kept for this build; a build for the public site refuses them):\n  - ${warnings.join("\n  - ")}`,
    );
  }
  if (problems.length === 0) return;
  console.error(
    `\nThe site was not built: ${problems.length === 1 ? "1 mistake" : `${problems.length} mistakes`} to correct.\n\n  ${problems.join("\n  ")}\n\nCorrect each, save, and run the command again.\n`,
  );
  process.exitCode = 1;
}

if (import.meta.main) {
  await main().catch((err: unknown) => {
    // Not an editor's mistake (the environment, a file missing): its message, without a stack.
    console.error(`The site was not built: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
