/**
 * The production server's entry, plain JavaScript so that an old Node says in one line what it needs.
 * It runs the server as the build bundled it (server/main.ts and what it imports, ADR 0030), compiled
 * once into Node's compile cache (in the app's own folder; the image warms it).
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `This server needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. Run it with \`npm start\` (it uses the Node ${REQUIRED_MAJOR} that \`npm install\` installs), \`npx node server.js\`, or install Node ${REQUIRED_MAJOR} from https://nodejs.org.`,
  );
  process.exit(1);
}
const server = new URL("./build/server-main/main.js", import.meta.url);
const pages = new URL("./build/server/index.js", import.meta.url); // React Router's, loaded after the first page
if (![server, pages].every(process.getBuiltinModule("node:fs").existsSync)) {
  console.error("No build found: run `npm run build` first (npm start does it for you).");
  process.exit(1);
}
const cache = process.env.NODE_COMPILE_CACHE || new URL("./node_modules/.cache/node-compile", import.meta.url).pathname;
const nodeModule = process.getBuiltinModule("node:module");
nodeModule.enableCompileCache(cache);
// An unexpected error's logged stack names the TypeScript file and line (the bundle's source maps).
nodeModule.setSourceMapsSupport(true);
process.env.NODE_ENV ||= "production";
await import(server.href);
