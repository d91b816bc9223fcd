import { createContext } from "react-router";
// With its extension: Node loads this file directly (the scripts).
import { site } from "#app/config/site.ts";

/**
 * The date the pages about posts are made for: unset, today at the office. The build sets it to
 * each later post's date to make the site as it will be on that day (scripts/postbuild.js, the
 * scheduled states served by server/static.ts). entry.server.tsx re-exports this very key.
 */
export const publishDateContext = createContext<string | null>(null);

/** Today's date at the office (site.timeZone), as a post's date is written: a post goes live at the office's midnight. */
export function todayAtOffice(now: Date = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: site.timeZone }).format(now);
}
