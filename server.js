/**
 * The production server's entry, plain JavaScript so that an old Node says in one line what it needs.
 * The TypeScript is stripped once into Node's compile cache (in the app's own folder; the image warms
 * it): a restart does not load the stripper (~25 MB, ~100 ms).
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `This server needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. Run it with \`npm start\` (it uses the Node ${REQUIRED_MAJOR} that \`npm install\` installs), \`npx node server.js\`, or install Node ${REQUIRED_MAJOR} from https://nodejs.org.`,
  );
  process.exit(1);
}
const { enableCompileCache } = await import("node:module");
enableCompileCache(
  process.env.NODE_COMPILE_CACHE || new URL("./node_modules/.cache/node-compile", import.meta.url).pathname,
);
process.env.NODE_ENV ||= "production";
await import("./server/main.ts");
