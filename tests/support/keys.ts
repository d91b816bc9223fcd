import { secretKeys } from "../../server/contact/intake/address-hash.ts";

/** The secret keys of an in-process pipeline (the server makes its own at start, server/main.ts). */
export const testKeys = secretKeys("test-address-secret-of-at-least-32-characters", {
  SITE_URL: "http://127.0.0.1",
  INQUIRY_LINK_DAYS: 30,
});
