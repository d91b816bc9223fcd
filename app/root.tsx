import type { ReactNode } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  useLocation,
  useRouteError,
} from "react-router";
import { NotFound } from "#app/components/sections/NotFound.tsx";
import { SiteFooter } from "#app/components/sections/SiteFooter.tsx";
import { SiteHeader } from "#app/components/sections/SiteHeader.tsx";
import { focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { JsonLd, organization, website } from "#app/lib/structured-data.tsx";
import { link } from "#app/pages.ts";
import type { Route } from "./+types/root";
import appCss from "./app.css?url";

export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "icon", href: "/favicon-32.png", type: "image/png", sizes: "32x32" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png" },
  { rel: "manifest", href: "/site.webmanifest" },
  { rel: "alternate", type: "application/rss+xml", title: `${site.name} Blog`, href: link.rss },
];

export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <html lang="en-US">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta
          name="theme-color"
          media="(prefers-color-scheme: light)"
          content={site.themeColor.light}
        />
        <meta
          name="theme-color"
          media="(prefers-color-scheme: dark)"
          content={site.themeColor.dark}
        />
        <Meta />
        {/* precedence: React puts the stylesheet first in <head>, so the first paint never waits behind
            anything else React adds there. */}
        <link rel="stylesheet" href={appCss} precedence="high" />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col bg-white font-sans text-slate-700 antialiased dark:bg-slate-950 dark:text-slate-300">
        <a
          href="#main"
          className={`sr-only z-50 rounded-md bg-white px-4 py-2 font-semibold text-blue-800 focus:not-sr-only focus:absolute focus:top-2 focus:left-2 ${focusRing}`}
        >
          Skip to content
        </a>
        <SiteHeader pathname={pathname} />
        <main id="main" className="flex-1">
          {children}
        </main>
        <SiteFooter />
        <JsonLd graph={[organization(), website()]} />
        {/* No page loads React in the browser: nothing here is interactive but the contact form,
            whose small script scripts/postbuild.js adds to that page (ADR 0005). */}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  // Never show a stack trace to a visitor; the server logs the error.
  return (
    <NotFound
      title="Something went wrong"
      message="We could not show this page. Please try again in a moment, or use the links below."
    />
  );
}
