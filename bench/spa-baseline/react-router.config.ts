import type { Config } from "@react-router/dev/config";

/**
 * The client-rendered baseline of `npm run bench:site` (BENCHMARKS.md): the site's own app/ built
 * in React Router's SPA mode — no server rendering, no prerender, one index.html shell. Built with
 *   REACT_ROUTER_ROOT=bench/spa-baseline react-router build --config bench/spa-baseline/vite.config.ts
 * so the production configuration (../../react-router.config.ts, ../../vite.config.ts) knows nothing of it.
 */
export default {
  appDirectory: "../../app",
  buildDirectory: "../../build-spa",
  ssr: false,
} satisfies Config;
