import type { MetaDescriptor } from "react-router";
import { site } from "#app/config/site.ts";
import { socialImagePath } from "#app/lib/social-image.ts";
import { pageOf } from "#app/pages.ts";

/**
 * The head of one page: its <title>, description and canonical link; Open Graph and Twitter card
 * tags with its social image. Every URL is absolute, from the public site URL (SITE_URL).
 */
export function pageMeta({
  title,
  description,
  path,
  type = "website",
  image: photo,
}: {
  title: string;
  description: string;
  path: string;
  type?: "website" | "article";
  /** A 1200×630 image of the page's own (a post's photo, scripts/photos.ts); otherwise the drawn card. */
  image?: string;
}) {
  const fullTitle = path === "/" ? title : `${title} | ${site.name}`;
  const url = `${site.url}${path}`;
  const image = `${site.url}${photo ?? socialImagePath(path)}`;
  return [
    { title: fullTitle },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: url },
    ...(pageOf(path)?.markdown
      ? [{ tagName: "link", rel: "alternate", type: "text/markdown", href: `${path}.md` }]
      : []),
    { property: "og:type", content: type },
    { property: "og:site_name", content: site.name },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: image },
    { property: "og:image:width", content: "1200" },
    { property: "og:image:height", content: "630" },
    { property: "og:image:alt", content: title },
    { property: "og:locale", content: "en_US" },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: image },
    { name: "twitter:image:alt", content: title },
  ] satisfies MetaDescriptor[];
}
