import { Menu, X } from "lucide-react";
import type { ReactNode } from "react";
import { buttonPrimary, container, focusRing } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { isCurrent, link, navItems } from "#app/pages.ts";

const linkBase = `rounded-md px-3 py-2 text-sm font-medium transition-colors ${focusRing}`;
const linkIdle =
  "text-slate-700 hover:bg-slate-100 hover:text-blue-800 dark:text-slate-200 dark:hover:bg-slate-800";
const linkActive = "bg-blue-50 text-blue-800 dark:bg-slate-800 dark:text-blue-200";

/**
 * Top navigation. Links are plain <a> elements (static pages need no router). The small-screen
 * menu is an HTML popover opened by a real <button>: it works with JavaScript off, the browser
 * exposes aria-expanded, Escape and a click outside close it, and following a link loads a new page.
 */
export function SiteHeader({ pathname }: { pathname: string }) {
  return (
    <header className="print:hidden sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
      <nav aria-label="Main" className={`${container} flex h-16 items-center justify-between`}>
        <HomeLink />
        <NavList
          pathname={pathname}
          className="hidden items-center gap-1 md:flex"
          linkClass=""
          cta={
            <li className="ml-2">
              <a href={link.contact} className={`${buttonPrimary} px-4 py-2 text-sm`}>
                Get Started
              </a>
            </li>
          }
        />
        <button
          type="button"
          popoverTarget="mobile-menu"
          className={`rounded-md p-2 text-slate-800 hover:bg-slate-100 md:hidden dark:text-slate-100 dark:hover:bg-slate-800 ${focusRing}`}
        >
          <Menu aria-hidden="true" className="size-6" />
          <span className="sr-only">Menu</span>
        </button>
        <div
          id="mobile-menu"
          popover="auto"
          className="inset-x-0 top-0 m-0 w-full max-w-none border-b border-slate-200 bg-white p-4 shadow-lg backdrop:bg-slate-950/50 md:hidden dark:border-slate-800 dark:bg-slate-950"
        >
          <div className="flex items-center justify-between">
            <HomeLink />
            <button
              type="button"
              popoverTarget="mobile-menu"
              popoverTargetAction="hide"
              className={`rounded-md p-2 text-slate-800 hover:bg-slate-100 dark:text-slate-100 dark:hover:bg-slate-800 ${focusRing}`}
            >
              <X aria-hidden="true" className="size-6" />
              <span className="sr-only">Close menu</span>
            </button>
          </div>
          <NavList
            pathname={pathname}
            className="mt-4 flex flex-col gap-1"
            linkClass="block text-base"
            cta={
              <li className="mt-2">
                <a href={link.contact} className={`${buttonPrimary} w-full`}>
                  Get Started
                </a>
              </li>
            }
          />
        </div>
      </nav>
    </header>
  );
}

/** The logo mark and the company name, linking home (the header and the open mobile menu). */
function HomeLink() {
  return (
    <a
      href={link.home}
      className={`flex items-center gap-2 rounded-md text-lg font-bold text-slate-900 dark:text-white ${focusRing}`}
    >
      <Logo />
      <span>{site.name}</span>
    </a>
  );
}

/** The nav items, highlighted for the current page, then a call to action. */
function NavList(props: {
  pathname: string;
  className: string;
  linkClass: string;
  cta: ReactNode;
}) {
  return (
    <ul className={props.className}>
      {navItems.map((item) => {
        const current = isCurrent(item.href, props.pathname);
        return (
          <li key={item.href}>
            <a
              href={item.href}
              aria-current={current ? "page" : undefined}
              className={`${props.linkClass} ${linkBase} ${current ? linkActive : linkIdle}`}
            >
              {item.label}
            </a>
          </li>
        );
      })}
      {props.cta}
    </ul>
  );
}

function Logo() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8">
      <rect width="32" height="32" rx="8" className="fill-blue-700" />
      <path d="M6 23 13 11l4 6 3-4 6 10z" className="fill-white" />
    </svg>
  );
}
