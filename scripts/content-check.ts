import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "vite";
import { clockText } from "../app/config/derive.ts";
import { problemsOf, siteSchema } from "../app/config/site.schema.ts";
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

const hoursIn = (text: string) =>
  [...text.matchAll(/within (\d+) hours/g)].map((m) => Number(m[1]));
const TIMES = /(\d{1,2}:\d{2} [AP]M)\D+?(\d{1,2}:\d{2} [AP]M)(?:\s+([A-Z]{2,4}))?/;
/** Abbreviations the office's time zone is written with. */
const ZONE_NAMES: Record<string, string[]> = {
  "America/Denver": ["MT", "MST", "MDT"],
  "America/New_York": ["ET", "EST", "EDT"],
  "America/Chicago": ["CT", "CST", "CDT"],
  "America/Los_Angeles": ["PT", "PST", "PDT"],
};

/**
 * Facts said twice that do not agree (the spec itself ships some: ADR 0026). Kept as written; the
 * build names each, once, so a company that wants them consistent knows where to look.
 */
export function disagreements(site: Site): string[] {
  const found: string[] = [];
  const promise = site.response.promiseBusinessHours;
  for (const field of ["infoLine", "tile", "dialogMessage"] as const) {
    for (const n of hoursIn(site.response[field])) {
      if (n !== promise) {
        found.push(
          `response.${field} promises a reply within ${n} hours; response.promiseBusinessHours (the promise the server keeps) is ${promise}`,
        );
      }
    }
  }
  const weekday = site.officeHours.find((h) => h.days.includes("Monday") && h.opens && h.closes);
  if (weekday?.opens && weekday.closes) {
    const open = `${clockText(weekday.opens)} to ${clockText(weekday.closes)}`;
    const stated = `${weekday.label} ${weekday.text}`;
    const zones = ZONE_NAMES[site.timeZone] ?? [];
    for (const [field, text] of [
      ["phone.hours", site.phone.hours],
      ["imprint.supportHours", site.imprint.supportHours],
    ] as const) {
      const m = TIMES.exec(text);
      if (!m) continue;
      const said = `${m[1]} to ${m[2]}`;
      const zone = m[3];
      const wrongZone = zone !== undefined && zones.length > 0 && !zones.includes(zone);
      if (said !== open || wrongZone) {
        found.push(
          `${field} says "${text}"; officeHours say ${stated} (${site.timeZone}${zones[0] ? `, ${zones[0]}` : ""})`,
        );
      }
    }
  }
  return found;
}

/** Everything to say before a build: the mistakes that stop it, and the disagreements it only names. */
export function checkContent(siteUrl: string): { problems: string[]; warnings: string[] } {
  const facts = factProblems();
  const problems = [...postProblems(), ...facts];
  if (facts.length === 0) problems.push(...placeholderProblems(shippedSite, siteUrl));
  return { problems, warnings: facts.length === 0 ? disagreements(shippedSite) : [] };
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
          `Facts that disagree (kept as written; make them agree in app/config/site.ts if you want):\n  - ${warnings.join("\n  - ")}`,
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
