/** The public site URL, fixed at build time from SITE_URL (see vite.config.ts). */
declare const __SITE_URL__: string;
/** Where the contact page sends the form, and its public key (CONTACT_ENDPOINT, CONTACT_PUBLIC_KEY at build time). */
declare const __CONTACT_ENDPOINT__: string;
declare const __CONTACT_PUBLIC_KEY__: string;

/** True only in the client-rendered baseline build of `npm run bench:site` (vite.config.ts). */

/** A photo or SVG imported with `?picture` (scripts/photos.ts): its responsive variants. */
declare module "*?picture" {
  const picture: import("#app/components/ui/Picture.tsx").PictureData;
  export default picture;
}
