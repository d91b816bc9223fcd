/**
 * The blog for the server and the prerender: server-only, so the posts never reach a browser bundle.
 * (The client-rendered baseline of `npm run bench:site` imports bundled-posts.ts instead: bench/spa-baseline/.)
 */
export * from "#app/content/bundled-posts.ts";
