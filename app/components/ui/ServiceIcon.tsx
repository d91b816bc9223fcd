import { Brain, Building, Code, Globe, Lightbulb, type LucideProps, Server, TrendingUp } from "lucide-react";

const icons = { Server, Lightbulb, Brain, Code, TrendingUp, Building, Globe };

export type IconName = keyof typeof icons;

/** Icons named in content (service lines, post frontmatter), rendered as inline SVG at build time. */
export function NamedIcon({ name, ...props }: { name: IconName } & LucideProps) {
  const Icon = icons[name];
  return <Icon aria-hidden="true" {...props} />;
}
