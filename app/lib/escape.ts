/**
 * Text into HTML or XML (element content or a quoted attribute): the five characters that could
 * end a text or start markup. One helper for the articles, the feeds and the emails.
 * (Slack's markup is another language with its own three: server/contact/delivery/slack.ts.)
 */
export const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
