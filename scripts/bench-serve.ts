import { type ChildProcess, execSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort } from "../tests/support/ports.ts";
import { startServer } from "../tests/support/server.ts";

/**
 * Serving throughput: our Node server against nginx (Debian's package) serving the same build/client
 * files, on this machine, in the same run:
 *   npm run bench:serve [-- --seconds 10 --connections 32 --no-build]
 * autocannon asks for gzip (both servers send the files precompressed at build). Prints requests per
 * second and p99 latency per path, and ours as a ratio of nginx's.
 */

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    "no-build": { type: "boolean", default: false },
  },
});
const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
const PATHS = ["/", "/blog/ai-infrastructure-us-goldmine"];

function nginxConfig(root: string, port: number, dir: string): string {
  return `worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  gzip_static on;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { try_files $uri $uri/index.html =404; }
    location /assets/ { add_header Cache-Control "public, max-age=31536000, immutable"; }
  }
}
`;
}

async function waitFor(url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

async function measure(url: string) {
  const result = await autocannon({
    url,
    connections: Number(opts.connections),
    duration: Number(opts.seconds),
    headers: { "accept-encoding": "gzip" },
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), p99: result.latency.p99 };
}

async function main() {
  if (!existsSync(NGINX)) {
    console.error(`nginx not found at ${NGINX}: apt-get install nginx (or set NGINX_PATH).`);
    process.exit(1);
  }
  if (!opts["no-build"]) execSync("npm run build", { stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "bench-serve-"));
  for (const d of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, d));
  const nginxPort = await freePort();
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(resolve("build/client"), nginxPort, dir));
  let nginx: ChildProcess | null = null;
  const ours = await startServer({});
  try {
    nginx = spawn(NGINX, ["-c", join(dir, "nginx.conf"), "-p", dir], { stdio: "ignore" });
    await waitFor(`http://127.0.0.1:${nginxPort}/`);
    const rows = [];
    for (const path of PATHS) {
      // Warm both, then measure each alone.
      await measure(`${ours.url}${path}`);
      const node = await measure(`${ours.url}${path}`);
      const ngx = await measure(`http://127.0.0.1:${nginxPort}${path}`);
      rows.push({
        path,
        "node req/s": node.rps,
        "node p99 ms": node.p99,
        "nginx req/s": ngx.rps,
        "nginx p99 ms": ngx.p99,
        "node / nginx": Number((node.rps / ngx.rps).toFixed(2)),
      });
    }
    const description = `autocannon, ${opts.seconds} s at ${opts.connections} connections per measurement, gzip; nginx ${execSync(`${NGINX} -v 2>&1`).toString().trim().replace("nginx version: ", "")} (Debian) with worker_processes auto, serving the same build/client.`;
    console.log(description);
    console.table(rows);
    mkdirSync("bench", { recursive: true });
    writeFileSync(
      "bench/serve.json",
      `${JSON.stringify({ measuredAt: new Date().toISOString(), description, rows }, null, 2)}\n`,
    );
  } finally {
    nginx?.kill("SIGQUIT");
    await ours.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
