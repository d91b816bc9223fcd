import { site } from "#app/config/site.ts";
import type { ServiceLine } from "#app/content/services.ts";
import { socialImagePath } from "#app/lib/social-image.ts";
import { link, postLink } from "#app/pages.ts";

/**
 * schema.org JSON-LD, built from the company facts (app/config/site.ts) so search engines read the
 * same address, phone and hours the pages show. Rendered as <script type="application/ld+json">:
 * data, never executed, so the CSP does not need to allow it.
 */

type Thing = Record<string, unknown> & { "@type": string };

const ORG_ID = `${site.url}/#organization`;
const abs = (path: string) => (path.startsWith("http") ? path : `${site.url}${path}`);

const DAY_URL = (d: string) => `https://schema.org/${d}`;

export function organization(): Thing {
  return {
    // LocalBusiness: schema.org marks ProfessionalService as deprecated.
    "@type": "LocalBusiness",
    "@id": ORG_ID,
    name: site.name,
    legalName: site.legalName,
    description: site.description,
    url: site.url,
    logo: abs("/icon-512.png"),
    image: abs(socialImagePath(link.home)),
    email: site.email,
    telephone: site.phone.e164,
    foundingDate: site.foundingDate,
    areaServed: { "@type": "Country", name: "United States" },
    address: {
      "@type": "PostalAddress",
      streetAddress: site.address.street,
      addressLocality: site.address.city,
      addressRegion: site.address.region,
      postalCode: site.address.postalCode,
      addressCountry: site.address.country,
    },
    geo: {
      "@type": "GeoCoordinates",
      latitude: site.address.geo.latitude,
      longitude: site.address.geo.longitude,
    },
    openingHoursSpecification: site.officeHours
      .filter((h) => h.opens && h.closes)
      .map((h) => ({
        "@type": "OpeningHoursSpecification",
        dayOfWeek: h.days.map(DAY_URL),
        opens: h.opens,
        closes: h.closes,
      })),
    contactPoint: {
      "@type": "ContactPoint",
      contactType: "sales",
      telephone: site.phone.e164,
      email: site.email,
      areaServed: "US",
      availableLanguage: "English",
    },
  };
}

export function website(): Thing {
  return {
    "@type": "WebSite",
    "@id": `${site.url}/#website`,
    url: site.url,
    name: site.name,
    publisher: { "@id": ORG_ID },
  };
}

export function services(lines: ServiceLine[]): Thing[] {
  return lines.map((line) => ({
    "@type": "Service",
    "@id": `${site.url}/services#${line.id}`,
    name: line.title,
    serviceType: line.title,
    description: line.summary,
    url: `${site.url}/services#${line.id}`,
    provider: { "@id": ORG_ID },
    areaServed: { "@type": "Country", name: "United States" },
    hasOfferCatalog: {
      "@type": "OfferCatalog",
      name: line.title,
      itemListElement: line.offerings.map((o) => ({
        "@type": "Offer",
        itemOffered: { "@type": "Service", name: o.title, description: o.description },
      })),
    },
  }));
}

export function blogPosting(post: {
  slug: string;
  title: string;
  excerpt: string;
  author: string;
  date: string;
  image: { src: string; og?: string };
  category: string;
}): Thing {
  const url = `${site.url}/blog/${post.slug}`;
  return {
    "@type": "BlogPosting",
    "@id": `${url}#article`,
    headline: post.title,
    description: post.excerpt,
    image: [abs(post.image.src), abs(post.image.og ?? socialImagePath(postLink(post.slug)))],
    author: { "@type": "Person", name: post.author, jobTitle: site.blog.authorTitle },
    // With a time zone, as Google's rules ask: the office's (Mountain Standard Time), at the start of the day.
    datePublished: `${post.date}T00:00:00-07:00`,
    dateModified: `${post.date}T00:00:00-07:00`,
    articleSection: post.category,
    inLanguage: "en-US",
    mainEntityOfPage: { "@type": "WebPage", "@id": url },
    publisher: { "@id": ORG_ID },
  };
}

export function breadcrumbs(items: Array<{ name: string; path: string }>): Thing {
  return {
    "@type": "BreadcrumbList",
    itemListElement: items.map((item, i) => ({
      "@type": "ListItem",
      position: i + 1,
      name: item.name,
      item: abs(item.path),
    })),
  };
}

/** One JSON-LD block: a graph of things. `<` is escaped so the data can never close the element. */
export function JsonLd({ graph }: { graph: Thing[] }) {
  const json = JSON.stringify({ "@context": "https://schema.org", "@graph": graph }).replace(
    /</g,
    "\\u003c",
  );
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
