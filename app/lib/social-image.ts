/**
 * Where a page's social image lives: the page's meta tags point to it (seo.ts) and the build draws
 * it there (scripts/images.ts). No aliases, so Node runs this file as it is.
 */
export function socialImagePath(path: string): string {
  const name =
    path === "/" ? "home" : path.replace(/^\//, "").replace(/\/$/, "").replace(/\//g, "-");
  return `/social/${name}.png`;
}
