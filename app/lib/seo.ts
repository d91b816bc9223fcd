import type { MetaDescriptor } from "react-router";
import { site } from "~/config/site";

/** The <title>, description and canonical link of one page. */
export function pageMeta({ title, description, path }: { title: string; description: string; path: string }) {
  const fullTitle = path === "/" ? title : `${title} | ${site.name}`;
  return [
    { title: fullTitle },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: `${site.url}${path}` },
  ] satisfies MetaDescriptor[];
}
