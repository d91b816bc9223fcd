import type { ReactNode } from "react";

/** The preview's mark on a post visitors do not see yet ("Draft", "Goes live Tue, Dec 1"): npm run dev only. */
export function NotLive({ children, className = "" }: { children: ReactNode; className?: string }) {
  return (
    <strong
      className={`inline-flex rounded-full bg-amber-100 px-3 py-1 text-xs font-semibold tracking-wide text-amber-950 uppercase dark:bg-amber-900 dark:text-amber-50 ${className}`.trim()}
    >
      {children}
    </strong>
  );
}
