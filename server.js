/**
 * The production server's entry, plain JavaScript so that an old Node says in one line what it needs.
 * It runs the server as the build bundled it (server/main.ts and what it imports, ADR 0030), compiled
 * once into Node's compile cache (in the app's own folder; the image warms it).
 */
const REQUIRED_MAJOR = 24;

/**
 * What the server needs of the build and lacks, said in a few words, or null: each part's files.json
 * lists every file the part's step wrote with its size, written once the last file is (build/server's
 * by scripts/postbuild.js, build/server-main's by vite.server.config.ts), so a step stopped halfway
 * leaves none. A stat per file, nothing hashed: start time matters (ADR 0030). scripts/ensure-build.js
 * (`npm start`) builds again when this says anything.
 */
export function buildProblem() {
  const fs = process.getBuiltinModule("node:fs");
  const problems = [];
  for (const part of ["build/server", "build/server-main"]) {
    let files;
    try {
      files = Object.entries(
        JSON.parse(fs.readFileSync(new URL(`${part}/files.json`, import.meta.url), "utf8")),
      );
    } catch {
      problems.push(`${part}/files.json missing`);
      continue;
    }
    for (const [name, size] of files) {
      const found = fs.statSync(new URL(`${part}/${name}`, import.meta.url), {
        throwIfNoEntry: false,
      });
      if (found?.size !== size)
        problems.push(`${part}/${name} ${found ? "not as built" : "missing"}`);
    }
  }
  if (problems.length === 0) return null;
  const more = problems.length > 3 ? `, and ${problems.length - 3} more` : "";
  return `${problems.slice(0, 3).join(", ")}${more}`;
}

// Imported for its check (scripts/ensure-build.js), it starts nothing. An old Node has no
// import.meta.main: it runs, and says what it needs.
if (import.meta.main !== false) {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < REQUIRED_MAJOR) {
    console.error(
      `This server needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. Run it with \`npm start\` (it uses the Node ${REQUIRED_MAJOR} that \`npm install\` installs), \`npx node server.js\`, or install Node ${REQUIRED_MAJOR} from https://nodejs.org.`,
    );
    process.exit(1);
  }
  const problem = buildProblem();
  if (problem) {
    console.error(
      `No complete build (${problem}): run \`npm run build\` first (npm start does it for you).`,
    );
    process.exit(1);
  }
  const cache =
    process.env.NODE_COMPILE_CACHE ||
    new URL("./node_modules/.cache/node-compile", import.meta.url).pathname;
  const nodeModule = process.getBuiltinModule("node:module");
  nodeModule.enableCompileCache(cache);
  // An unexpected error's logged stack names the TypeScript file and line (the bundle's source maps).
  nodeModule.setSourceMapsSupport(true);
  // React's production build unless told otherwise: set before the bundle loads React.
  process.env.NODE_ENV ||= "production";
  await import(new URL("./build/server-main/main.js", import.meta.url).href);
}
