import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../../app/contact/api.ts";

/** What the tests that talk to a running server send, and how they read what it logged. */

export const valid = {
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "",
  service: "",
  message: "Hello",
};
/** The JSON endpoint's headers, with the page's anonymous public key (spec §7) as the page sends it. */
export const json = {
  "content-type": "application/json",
  authorization: `Bearer ${DEFAULT_PUBLIC_KEY}`,
};
/** A message sent as the contact page's script sends it: with the page's form token (unless `token: false`) and the public key. */
export async function sendAsPage(
  baseUrl: string,
  fields: Partial<typeof valid>,
  { headers = {}, token = true }: { headers?: Record<string, string>; token?: boolean } = {},
): Promise<Response> {
  const page = token ? await (await fetch(`${baseUrl}/contact`)).text() : null;
  const formToken: Record<string, string> =
    page === null
      ? {}
      : { "x-form-token": /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? "" };
  return fetch(`${baseUrl}${CONTACT_API_PATH}`, {
    method: "POST",
    headers: { ...json, ...formToken, ...headers },
    body: JSON.stringify({ ...valid, ...fields }),
  });
}
let ipCounter = 0;
/** A fresh client address, so one test's submissions do not count against another's limits. */
export const nextIp = () => `203.0.113.${(ipCounter++ % 250) + 1}`;
export const FORM_BODY = "name=Ada+Lovelace&email=ada%40example.org&message=Hello";
export const formHeaders = (ip = nextIp()) => ({
  "content-type": "application/x-www-form-urlencoded",
  "x-forwarded-for": ip,
});
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The server's JSON log lines. */
export const lines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Inquiries stored in a server's SQLite database. */
export function storedCount(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "inquiries.sqlite"), { readOnly: true });
  try {
    return Number((db.prepare("SELECT COUNT(*) AS n FROM inquiries").get() as { n: number }).n);
  } finally {
    db.close();
  }
}
