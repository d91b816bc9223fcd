/**
 * The blog for the server and the prerender: server-only, so the posts never reach a browser bundle.
 * (The client-rendered baseline of `npm run bench:site` aliases this to ./posts, see vite.config.ts.)
 */
export * from "./posts";
