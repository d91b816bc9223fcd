/** The public site URL, fixed at build time from SITE_URL (see vite.config.ts). */
declare const __SITE_URL__: string;

/** True only in the client-rendered baseline build of `npm run bench:site` (vite.config.ts). */
declare const __SPA_BASELINE__: boolean;
