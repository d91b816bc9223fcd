/** Every public route of the site, with what a visitor must find on it. */
export const contentRoutes = [
  { path: "/", h1: /IT infrastructure and AI solutions/, nav: "Home" },
  { path: "/services", h1: "Our Services", nav: "Services" },
  { path: "/blog", h1: "Insights & Articles", nav: "Blog" },
  { path: "/blog/ai-infrastructure-us-goldmine", h1: "AI Infrastructure: The Next American Goldmine", nav: "Blog" },
  { path: "/blog/startup-ai-scaling-success", h1: /Case Study/, nav: "Blog" },
  { path: "/blog/eu-guidelines-it-infrastructure", h1: /EU Guidelines/, nav: "Blog" },
  { path: "/blog/rent-or-buy-it-infrastructure", h1: /Rent or Buy/, nav: "Blog" },
  { path: "/imprint", h1: "Imprint", nav: null },
] as const;

export const contactRoute = { path: "/contact", h1: "Contact Us", nav: "Contact" } as const;

export const allRoutes = [...contentRoutes, contactRoute];
