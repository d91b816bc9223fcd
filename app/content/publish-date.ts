import { createContext } from "react-router";

/**
 * The date the pages about posts are made for: unset, today at the office. The build sets it to
 * each later post's date to make the site as it will be on that day (scripts/postbuild.js, the
 * scheduled states served by server/static.ts). entry.server.tsx re-exports this very key.
 */
export const publishDateContext = createContext<string | null>(null);
