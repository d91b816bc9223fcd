import { expect, it } from "vitest";
import { leadLinks } from "../../server/contact/review/links.ts";
import { attachedTestKeys } from "../support/keys.ts";

const DAY = 86_400_000;

/**
 * A link handed out by a page another link opened expires with that link, and never outlives a
 * lead's own links (server/contact/review/links.ts); the overview page's wiring is tested on the
 * server (tests/integration/lead-links.test.ts).
 */
it("a lead's link signed to expire with another link expires then, or at its usual life if that comes first", async () => {
  const { ring } = await attachedTestKeys();
  const links = leadLinks(ring, { SITE_URL: "https://www.example.com", INQUIRY_LINK_DAYS: 2 });
  const now = Date.parse("2026-11-30T16:05:00Z");
  const lead = { id: "0b5e7c1e-5d1a-4c8e-9f00-000000000001", held: false, suspect: false };
  const token = (url: string) => new URL(url).searchParams.get("t") ?? "";
  const works = async (t: string, at: number) => (await links.verify(t, at)).ok;
  // Opened by a link that expires in an hour: its links expire with it.
  for (const { url } of links.for(lead, now, now + 3_600_000)) {
    expect(await works(token(url), now + 3_599_000)).toBe(true);
    expect(await works(token(url), now + 3_601_000)).toBe(false);
  }
  // Opened by one that works 5 days: its links work their own 2 days, not 5.
  for (const { url } of links.for(lead, now, now + 5 * DAY)) {
    expect(await works(token(url), now + 2 * DAY - 1_000)).toBe(true);
    expect(await works(token(url), now + 2 * DAY + 1_000)).toBe(false);
  }
});
