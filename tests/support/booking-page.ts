/** How a test reads the booking page as served (server/booking/page.ts renders it; app/routes/book.tsx lays it out). */

/** The times the page offers: each a button whose value is the time's instant. */
export const slotsOf = (html: string) =>
  [...html.matchAll(/<button type="submit" value="(\d{13})"/g)].map((m) => Number(m[1]));

/** What the page says after a press (its status line). */
export const statusOf = (html: string) => /role="status"[^>]*>([^<]*)</.exec(html)?.[1] ?? "";

/** The signed token of a booking link. */
export const tokenOf = (link: string) => new URL(link).searchParams.get("t") ?? "";
