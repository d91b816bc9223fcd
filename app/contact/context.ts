import { createContext } from "react-router";
import type { ContactService } from "../../server/contact/service.ts";

/**
 * How the contact route's action reaches the server's pipeline. server.js sets it per request in
 * the load context; entry.server.tsx re-exports this key so server.js uses the bundled instance.
 */
export type ContactContext = { service: ContactService; clientIp?: string };

export const contactContext = createContext<ContactContext | null>(null);
