/** What the contact doors say to a visitor, in the JSON endpoint's answers and on the form's page. */

export const SUCCESS_MESSAGE = "Thank you. Your message has been received.";
export const KEY_REUSED =
  "This Idempotency-Key was already used with a different message. Use a new key for a new message.";
export const TOO_MANY =
  "Too many messages from your network. Please try again later or email us directly.";
