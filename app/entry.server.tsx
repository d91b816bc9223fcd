import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import type { EntryContext, RouterContextProvider } from "react-router";
import { ServerRouter } from "react-router";
import { contactContext } from "#app/contact/context.ts";
import { FIGURE_PLACEHOLDER, FORM_TOKEN_PLACEHOLDER } from "#app/contact/fields.ts";
import { externalOrigin, policyForHtml } from "../server/security.ts";

const ABORT_DELAY = 5_000;

/**
 * Every page waits for its whole content before the first byte (onAllReady): the HTML a crawler,
 * a prerender or a visitor without JavaScript gets is always complete. Being complete, it is
 * finished here as the static server finishes a prerendered page (server/static.ts): on the server
 * (a form post's answer) it gets a fresh form token in place of the placeholder; always, the
 * Content-Security-Policy that allows exactly its inline scripts.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext?: RouterContextProvider,
) {
  // An action's Retry-After (the contact form's 429 and 503) reaches the response. Not through a
  // route `headers` export: the client-rendered baseline build (bench:site) refuses those.
  for (const h of Object.values(routerContext.staticHandlerContext.actionHeaders ?? {})) {
    const retryAfter = h.get("Retry-After");
    if (retryAfter) responseHeaders.set("Retry-After", retryAfter);
  }
  // At build (the prerender) there is no pipeline and no token: the placeholder stays for the server.
  const contact = loadContext?.get(contactContext) ?? null;
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} />,
      {
        onAllReady() {
          shellRendered = true;
          const chunks: Buffer[] = [];
          const sink = new Writable({
            write(chunk: Buffer, _encoding, done) {
              chunks.push(chunk);
              done();
            },
          });
          sink.on("finish", () => {
            let html = Buffer.concat(chunks).toString("utf8");
            if (contact)
              html = html
                .replace(FORM_TOKEN_PLACEHOLDER, () => contact.formToken())
                .replace(FIGURE_PLACEHOLDER, () => contact.replyFigure());
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            responseHeaders.set(
              "Content-Security-Policy",
              policyForHtml(html, externalOrigin(__CONTACT_ENDPOINT__)),
            );
            resolve(new Response(html, { headers: responseHeaders, status: responseStatusCode }));
          });
          pipe(sink);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // One JSON line, as the server's own log lines are (server/main.ts), never a stack trace.
          if (shellRendered) {
            const message = error instanceof Error ? error.message : String(error);
            console.error(
              JSON.stringify({
                level: "error",
                time: new Date().toISOString(),
                err: { message },
                msg: "page render failed",
              }),
            );
          }
        },
      },
    );
    const timer = setTimeout(abort, ABORT_DELAY);
    timer.unref?.();
  });
}

/**
 * An error React Router caught (a form posted from another origin, a loader that threw): one JSON
 * line, as the server's own log lines are, never a stack trace a visitor can trigger. A request the
 * client gave up on is not an error.
 */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  const message = error instanceof Error ? error.message : String(error);
  console.error(
    JSON.stringify({
      level: "warn",
      time: new Date().toISOString(),
      method: request.method,
      path: new URL(request.url).pathname,
      err: { message },
      msg: "request refused by the page router",
    }),
  );
}

// The key server/app.ts uses to hand the contact pipeline to the /contact action (app/contact/context.ts).
export { contactContext } from "#app/contact/context.ts";
// The date the build renders a scheduled state of the blog for (app/content/publish-date.ts).
export { publishDateContext } from "#app/content/publish-date.ts";
