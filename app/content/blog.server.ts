import type { RouterContextProvider } from "react-router";
import { allPosts } from "#app/content/bundled-posts.ts";
import { publishDateContext } from "#app/content/publish-date.ts";

/**
 * The blog for the server and the prerender: server-only, so the posts never reach a browser bundle.
 * (The client-rendered baseline of `npm run bench:site` imports bundled-posts.ts instead: bench/spa-baseline/.)
 */
export * from "#app/content/bundled-posts.ts";

/** The posts of the day a page is made for: today, or a scheduled state's date (publish-date.ts). */
export const postsFor = (context: Readonly<RouterContextProvider>) =>
  allPosts(context.get(publishDateContext) ?? undefined);
