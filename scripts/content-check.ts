import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "vite";
import { type Day, hourLine, WEEK, zoneText } from "../app/config/derive.ts";
import { lineOf, problemsOf, siteSchema } from "../app/config/site.schema.ts";
import { type Site, site as shippedSite } from "../app/config/site.ts";
import { checkPost, duplicateSlugs, formatProblem, type Post } from "../app/content/post-parser.ts";
import { serviceLinesSchema } from "../app/content/services.schema.ts";
import { serviceLines } from "../app/content/services.ts";
import { placeholderContacts } from "../server/facts.ts";
import { isReservedHost } from "../server/guards.ts";

/**
 * What the company edits, checked before anything is built or served: every post, the company facts
 * and the services content. Every mistake of every file at once, one line each (file, line, field,
 * what was found, what is expected, an example), then the build stops: the prerender never sees a
 * bad value. Runs as a Vite plugin, so `npm run build`, `npm run dev` and `npm start` (which builds
 * when a source changed: scripts/ensure-build.js) all stop the same way.
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

/** Every mistake in the company facts and the services content. */
export function factProblems(
  site: unknown = shippedSite,
  services: unknown = serviceLines,
): string[] {
  return [
    ...problemsOf(siteSchema, site, "app/config/site.ts", sourceOf("app/config/site.ts")),
    ...problemsOf(
      serviceLinesSchema,
      services,
      "app/content/services.ts",
      sourceOf("app/content/services.ts"),
      (i) =>
        Array.isArray(services)
          ? (services[i] as { title?: string } | undefined)?.title
          : undefined,
    ),
  ];
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
 * build for the public site as placeholders do and are only named for any other.
 */
export function checkContent(siteUrl: string): { problems: string[]; warnings: string[] } {
  const facts = factProblems();
  const problems = [...postProblems(), ...facts];
  if (facts.length > 0) return { problems, warnings: [] };
  const source = sourceOf("app/config/site.ts");
  const disagree = disagreements(shippedSite).map(({ field, value, text }) => {
    const line = lineOf(source, field.split(".").at(-1), value);
    return `app/config/site.ts${line ? `, line ${line}` : ""}, ${text}`;
  });
  if (!isPublicSite(siteUrl)) return { problems, warnings: disagree };
  problems.push(...placeholderProblems(shippedSite, siteUrl), ...disagree);
  return { problems, warnings: [] };
}

/** Once per process: Vite loads its configuration more than once (each build, typegen). */
const CHECKED = Symbol.for("content-check.done");

/** The Vite plugin: once per process, before the first build or the dev server. */
export function contentCheck({ siteUrl }: { siteUrl: string }): Plugin {
  return {
    name: "content-check",
    configResolved() {
      const done = globalThis as { [CHECKED]?: boolean };
      // `react-router typegen` (npm run typecheck) reads the configuration only for route types.
      if (done[CHECKED] || process.argv.includes("typegen")) return;
      done[CHECKED] = true;
      const { problems, warnings } = checkContent(siteUrl);
      if (warnings.length > 0) {
        console.warn(
          `Facts that disagree (kept for this build; a build for the public site refuses them):\n  - ${warnings.join("\n  - ")}`,
        );
      }
      if (problems.length === 0) return;
      console.error(
        `\nThe site was not built: ${problems.length === 1 ? "1 mistake" : `${problems.length} mistakes`} to correct.\n\n  ${problems.join("\n  ")}\n\nCorrect each, save, and run the command again.\n`,
      );
      // Nothing to add: a stack trace would only hide these lines.
      process.exit(1);
    },
  };
}
