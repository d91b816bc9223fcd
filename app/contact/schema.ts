import { z } from "zod";
import {
  type ContactField,
  type FieldErrors,
  LIMITS,
  serviceOptions,
} from "#app/contact/fields.ts";

export { HONEYPOT_FIELD, LIMITS } from "#app/contact/fields.ts";

/**
 * The contact message's one schema, used by both doors of the server (the JSON endpoint and the
 * no-JavaScript form post). Its limits live in fields.ts, which the form also reads for its inputs'
 * attributes, so browser and server enforce the same rules. Relative imports with extensions: Node
 * runs this file as it is, in the server, the operator tools and the tests.
 */

/**
 * Characters that are never text a person typed: C0 controls (tab and line breaks aside; PostgreSQL
 * refuses NUL), DEL, the C1 controls (NEL among them), the bidirectional overrides and isolates
 * that make text read other than it is stored, and the Unicode non-characters. Lone UTF-16
 * surrogates are not text at all.
 */
const NEVER_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\p{Noncharacter_Code_Point}/u;
/**
 * And in one-line fields (they reach an email's subject and headers), also line breaks of every
 * kind (LF, CR, LS, PS) and the invisible characters that disguise a name or an address: bidi
 * marks, zero-width space, word joiner and invisible operators, the byte-order mark. Zero-width
 * joiner and non-joiner stay allowed: Persian, Indic scripts and emoji sequences need them.
 */
const NOT_ONE_LINE = /[\r\n\u2028\u2029\u061c\u200b\u200e\u200f\u2060-\u2064\ufeff]/;
const noLineBreaks = (s: string) => !NOT_ONE_LINE.test(s);
const isCleanText = (s: string) => !NEVER_TEXT.test(s) && s.isWellFormed();
const CONTROL_MESSAGE = "contains characters that are not allowed";

const singleLine = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text.` })
    .trim()
    .max(max, `${label} must be at most ${max} characters.`)
    .refine(noLineBreaks, `${label} must be on one line, without invisible characters.`)
    .refine(isCleanText, `${label} ${CONTROL_MESSAGE}.`);

const contactSchema = z.strictObject({
  name: singleLine("Full name", LIMITS.name).pipe(
    z.string().min(1, "Please enter your full name."),
  ),
  email: singleLine("Email", LIMITS.email).pipe(
    z
      .string()
      .min(1, "Please enter your email address.")
      .pipe(z.email("Please enter a valid email address.")),
  ),
  company: singleLine("Company", LIMITS.company).default(""),
  service: z
    .string({ error: "Service must be text." })
    .trim()
    .default("")
    .refine(
      (s) => s === "" || serviceOptions.includes(s),
      "Please choose a service from the list.",
    ),
  message: z
    .string({ error: "Message must be text." })
    .trim()
    .min(1, "Please enter a message.")
    .max(
      LIMITS.message,
      `Message must be at most ${LIMITS.message.toLocaleString("en-US")} characters.`,
    )
    .refine(isCleanText, `Message ${CONTROL_MESSAGE}.`),
});

export type ContactInput = z.infer<typeof contactSchema>;

/** What a person may ask to have corrected (`npm run inquiries -- correct`), each by the form's own rule. */
export const correctionSchema = contactSchema
  .pick({ name: true, email: true, company: true })
  .partial();
export type { ContactField, FieldErrors };

export type ValidationResult =
  | { ok: true; data: ContactInput }
  | { ok: false; error: string; fields: FieldErrors };

/** Validate an untrusted value (a parsed JSON body or form fields). */
export function validateContact(input: unknown): ValidationResult {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: "The request body must be a JSON object.", fields: {} };
  }
  const result = contactSchema.safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  const fields: FieldErrors = {};
  let unknown: string[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      unknown = issue.keys;
      continue;
    }
    const key = issue.path[0] as ContactField | undefined;
    if (key && !fields[key]) fields[key] = issue.message;
  }
  const error =
    Object.keys(fields).length > 0
      ? "Some fields need your attention."
      : `Unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}.`;
  return { ok: false, error, fields };
}
