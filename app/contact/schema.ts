import { z } from "zod";
import { type ContactField, type FieldErrors, LIMITS, serviceOptions } from "./fields.ts";

export { HONEYPOT_FIELD, LIMITS } from "./fields.ts";

/**
 * The contact message's one schema, used by both doors of the server (the JSON endpoint and the
 * no-JavaScript form post). Its limits live in fields.ts, which the form also reads for its inputs'
 * attributes, so browser and server enforce the same rules. Relative imports with extensions: Node
 * runs this file as it is, in the server, the operator tools and the tests.
 */

const noLineBreaks = (s: string) => !/[\r\n]/.test(s);
// NUL and other control characters (tab and line breaks aside) have no place in a message, and
// PostgreSQL refuses NUL in text; lone UTF-16 surrogates are not text at all.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const controlChars = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const isCleanText = (s: string) => !controlChars.test(s) && s.isWellFormed();
const CONTROL_MESSAGE = "contains characters that are not allowed";

const singleLine = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text.` })
    .trim()
    .max(max, `${label} must be at most ${max} characters.`)
    .refine(noLineBreaks, `${label} must be on one line.`)
    .refine(isCleanText, `${label} ${CONTROL_MESSAGE}.`);

export const contactSchema = z.strictObject({
  name: singleLine("Full name", LIMITS.name).pipe(z.string().min(1, "Please enter your full name.")),
  email: singleLine("Email", LIMITS.email).pipe(
    z.string().min(1, "Please enter your email address.").pipe(z.email("Please enter a valid email address.")),
  ),
  company: singleLine("Company", LIMITS.company).default(""),
  service: z
    .string({ error: "Service must be text." })
    .trim()
    .default("")
    .refine((s) => s === "" || serviceOptions.includes(s), "Please choose a service from the list."),
  message: z
    .string({ error: "Message must be text." })
    .trim()
    .min(1, "Please enter a message.")
    .max(LIMITS.message, `Message must be at most ${LIMITS.message.toLocaleString("en-US")} characters.`)
    .refine(isCleanText, `Message ${CONTROL_MESSAGE}.`),
});

export type ContactInput = z.infer<typeof contactSchema>;
export type { ContactField, FieldErrors };

export type ValidationResult = { ok: true; data: ContactInput } | { ok: false; error: string; fields: FieldErrors };

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
