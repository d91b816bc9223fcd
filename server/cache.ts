/** Cache-Control for what the site serves: the server (static.ts) and the headers file for static hosts (postbuild.js). */

/** Hashed assets: the name changes with the content. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Pages: revalidated on every visit (cheap with the ETag), so a deploy is seen at once. */
export const HTML_CACHE = "public, max-age=0, must-revalidate";
/** Everything else (favicons, feeds, robots.txt): a day. */
export const OTHER_CACHE = "public, max-age=86400";
