/**
 * The production server's entry: plain JavaScript that any Node can read, so an old Node says in
 * one line what it needs instead of failing on the first TypeScript module. The server itself is
 * server/main.ts. `npm start` (and every `npm run …`) uses the Node 24 that `npm install` put in
 * node_modules; a bare `node server.js` uses the machine's.
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `This server needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. Run it with \`npm start\` (it uses the Node ${REQUIRED_MAJOR} that \`npm install\` installs), \`npx node server.js\`, or install Node ${REQUIRED_MAJOR} from https://nodejs.org.`,
  );
  process.exit(1);
}
// The server's TypeScript is stripped once and kept in Node's compile cache (NODE_COMPILE_CACHE, else
// node_modules/.cache/node-compile, the app's own, never a folder other users may write; the image
// warms it at build): a restart reads the cache, and the stripper (~25 MB, ~100 ms) is not loaded at all.
const { enableCompileCache } = await import("node:module");
enableCompileCache(
  process.env.NODE_COMPILE_CACHE || new URL("./node_modules/.cache/node-compile", import.meta.url).pathname,
);
// React's production build unless told otherwise: `npm start`, `npx node server.js` and the image
// alike (the development server is `npm run dev`). Set before anything loads React.
process.env.NODE_ENV ||= "production";
await import("./server/main.ts");
