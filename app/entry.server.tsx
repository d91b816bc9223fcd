import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { renderToPipeableStream } from "react-dom/server";
import type { EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import { site } from "./config/site";
import { parseSite } from "./config/site.schema";

// Fail the build (prerender loads this module) and the server start on a bad edit of site.ts.
parseSite(site);

const ABORT_DELAY = 5_000;

/**
 * Every page waits for its whole content before the first byte (onAllReady): the HTML a crawler,
 * a prerender or a visitor without JavaScript gets is always complete.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
) {
  // An action's Retry-After (the contact form's 429 and 503) reaches the response. Not through a
  // route `headers` export: the client-rendered baseline build (bench:site) refuses those.
  for (const h of Object.values(routerContext.staticHandlerContext.actionHeaders ?? {})) {
    const retryAfter = h.get("Retry-After");
    if (retryAfter) responseHeaders.set("Retry-After", retryAfter);
  }
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(<ServerRouter context={routerContext} url={request.url} />, {
      onAllReady() {
        shellRendered = true;
        const body = new PassThrough();
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        resolve(
          new Response(createReadableStreamFromReadable(body), {
            headers: responseHeaders,
            status: responseStatusCode,
          }),
        );
        pipe(body);
      },
      onShellError(error: unknown) {
        reject(error);
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        if (shellRendered) console.error(error);
      },
    });
    setTimeout(abort, ABORT_DELAY);
  });
}

// The key server/app.ts uses to hand the contact pipeline to the /contact action (app/contact/context.ts).
export { contactContext } from "./contact/context";
