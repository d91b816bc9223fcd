import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";

/** HTTP helpers for tests that need what fetch will not do: any method, any body, chunked uploads. */

/** Resident memory of a process, in MB (Linux). */
export function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * Stream a chunked body of up to `maxBytes` to `path`, as fast as the server takes it, until the
 * server answers or closes. Returns the status (0 if none came) and how much the server took.
 */
export function streamChunked(
  url: string,
  method: string,
  path: string,
  maxBytes: number,
  contentType = "application/x-www-form-urlencoded",
): Promise<{ status: number; sent: number }> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    let status = 0;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, sent });
    };
    socket.on("data", (d) => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(d.toString("latin1"));
      if (m) status = Number(m[1]);
      finish();
    });
    socket.on("error", finish);
    socket.on("close", finish);
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = Buffer.concat([
      Buffer.from("10000\r\n"),
      Buffer.alloc(0x10000, 97),
      Buffer.from("\r\n"),
    ]);
    const pump = () => {
      while (!done && sent < maxBytes) {
        sent += 0x10000;
        if (!socket.write(chunk)) return socket.once("drain", pump);
      }
      if (!done) socket.write("0\r\n\r\n");
    };
    pump();
    setTimeout(finish, 20_000).unref();
  });
}

/** A raw HTTP request (fetch refuses some methods and bodies): status, headers and body. */
export function raw(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    // A body goes with its Content-Length (as browsers send it); without one Node would stream it chunked.
    const headers = { ...opts.headers };
    if (
      opts.body !== undefined &&
      !Object.keys(headers).some((h) => h.toLowerCase() === "content-length")
    ) {
      headers["content-length"] = String(Buffer.byteLength(opts.body));
    }
    const req = httpRequest(
      { host: u.hostname, port: u.port, method: opts.method ?? "GET", path: opts.path, headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}
