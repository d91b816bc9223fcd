import { escapeHtml } from "../../../app/lib/escape.ts";

/**
 * The one look of every HTML email (the lead, the booking's, the digest): read on a phone as on a
 * desk, light and dark. Colours are inline for clients that drop `<style>`; the dark scheme
 * overrides them from `<style>` where the client honours prefers-color-scheme. Everything wraps
 * (`overflow-wrap:anywhere`), so a long address or name never widens the page past a 390 px screen.
 * Links are buttons or words, never a raw URL: the plain-text part carries those. Each helper
 * escapes what it is given as text; `page` and `list` take HTML made by the others.
 */

const INK = "#0f172a";
const MUTED = "#475569";
const ACCENT = "#1e40af";
const TONES = {
  alert: { light: "background:#fee2e2;color:#7f1d1d", dark: "background:#450a0a;color:#fecaca" },
  warn: { light: "background:#fef3c7;color:#78350f", dark: "background:#451a03;color:#fde68a" },
} as const;
export type Tone = keyof typeof TONES;

const DARK = `@media (prefers-color-scheme: dark) {
body, .page { background:#0f172a !important; color:#e2e8f0 !important; }
.muted { color:#94a3b8 !important; }
.button { background:#93c5fd !important; color:#0f172a !important; border-color:#93c5fd !important; }
.button-quiet { background:transparent !important; color:#93c5fd !important; border-color:#93c5fd !important; }
.link { color:#93c5fd !important; }
${Object.entries(TONES)
  .map(([tone, { dark }]) => `.note-${tone} { ${dark.replace(/;/g, " !important;")} !important; }`)
  .join("\n")}
}`;

/** A whole message: `title` (the subject) names the document; `body` is HTML from the helpers below. */
export const page = (title: string, body: string[]) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(title)}</title>
<style>:root { color-scheme: light dark; }
${DARK}</style></head>
<body style="margin:0;padding:0;background:#ffffff;color:${INK}"><div class="page" style="max-width:600px;margin:0 auto;padding:16px;background:#ffffff;color:${INK};font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:16px;line-height:1.5;overflow-wrap:anywhere;word-break:break-word">
${body.filter(Boolean).join("\n")}
</div></body></html>`;

export const heading = (text: string, level: 1 | 2 = 2) =>
  `<h${level} style="font-size:${level === 1 ? 20 : 17}px;line-height:1.3;margin:20px 0 8px">${escapeHtml(text)}</h${level}>`;

export const para = (text: string, { strong = false, muted = false } = {}) =>
  `<p${muted ? ` class="muted" style="color:${MUTED};font-size:14px"` : ""}>${strong ? `<strong>${escapeHtml(text)}</strong>` : escapeHtml(text)}</p>`;

/** A line that must not be missed (a reminder, a possible spam). */
export const note = (text: string, tone: Tone) =>
  `<p class="note-${tone}" style="padding:8px 12px;border-radius:6px;${TONES[tone].light}"><strong>${escapeHtml(text)}</strong></p>`;

/** What a person wrote, as they wrote it (line breaks kept). */
export const quote = (text: string) =>
  `<p style="white-space:pre-wrap;margin:0 0 16px">${escapeHtml(text)}</p>`;

/** Label and value, one pair a row. */
export const rows = (pairs: Array<[string, string]>) =>
  `<table role="presentation" cellpadding="4" style="border-collapse:collapse;width:100%">${pairs
    .map(
      ([k, v]) =>
        `<tr><td style="font-weight:bold;vertical-align:top;white-space:nowrap;padding-right:12px">${escapeHtml(k)}</td><td style="overflow-wrap:anywhere">${escapeHtml(v)}</td></tr>`,
    )
    .join("")}</table>`;

/** Items already HTML (`link`, escaped text), as a list. */
export const list = (items: string[]) =>
  items.length === 0
    ? ""
    : `<ul style="padding-left:20px;margin:0 0 16px">${items.map((i) => `<li style="margin-bottom:6px">${i}</li>`).join("")}</ul>`;

/** A link with words, inside a sentence. */
export const link = (url: string, words: string) =>
  `<a class="link" href="${escapeHtml(url)}" style="color:${ACCENT}">${escapeHtml(words)}</a>`;

export type Button = { label: string; url: string };

/** A row of buttons: the first filled (what is expected), the others outlined. They wrap on a phone. */
export const buttons = (items: Button[], { quietFirst = false } = {}) =>
  items.length === 0
    ? ""
    : `<p>${items
        .map((b, n) => {
          const filled = n === 0 && !quietFirst;
          const colours = filled
            ? `background:${ACCENT};color:#ffffff;border:1px solid ${ACCENT}`
            : `background:transparent;color:${ACCENT};border:1px solid ${ACCENT}`;
          return `<a class="${filled ? "button" : "button-quiet"}" href="${escapeHtml(b.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:10px 16px;border-radius:6px;${colours};text-decoration:none;font-weight:600">${escapeHtml(b.label)}</a>`;
        })
        .join("")}</p>`;

/** A text made of lines for messages written as text alone: its addresses become links named by their words. */
export const textPage = (title: string, text: string) =>
  page(title, [
    `<p style="white-space:pre-wrap">${escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (u) => link(u.replace(/&amp;/g, "&"), "Open this link"))}</p>`,
  ]);
