/** Shared class lists, so a button looks the same wherever it is a link or a <button>. */
export const focusRing =
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 dark:focus-visible:outline-blue-300";

export const buttonPrimary = `inline-flex items-center justify-center gap-2 rounded-lg bg-blue-700 px-6 py-3 font-semibold text-white shadow-sm transition-colors hover:bg-blue-800 disabled:cursor-not-allowed disabled:opacity-70 ${focusRing}`;

export const buttonSecondary = `inline-flex items-center justify-center gap-2 rounded-lg border-2 border-blue-700 px-6 py-3 font-semibold text-blue-700 transition-colors hover:bg-blue-50 dark:border-blue-300 dark:text-blue-200 dark:hover:bg-slate-800 ${focusRing}`;

export const buttonOnDark = `inline-flex items-center justify-center gap-2 rounded-lg bg-white px-6 py-3 font-semibold text-blue-800 shadow-sm transition-colors hover:bg-blue-50 ${focusRing}`;

export const cardFrame =
  "rounded-2xl border border-slate-200 bg-white shadow-sm dark:border-slate-700 dark:bg-slate-900";

export const card = `${cardFrame} p-6`;

export const container = "mx-auto w-full max-w-6xl px-4 sm:px-6 lg:px-8";

/**
 * The reading column of articles and the imprint: about 65–75 characters a line at 18 px, on every
 * screen. Headings, images and boxes that go with the text use it too, so their edges line up.
 */
export const readingColumn = "mx-auto w-full max-w-[42rem] px-4 sm:px-6";
