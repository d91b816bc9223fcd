import {
  Brain,
  Building,
  Code,
  Globe,
  Lightbulb,
  type LucideIcon,
  type LucideProps,
  Server,
  TrendingUp,
} from "lucide-react";
import type { IconName } from "#app/content/icons.ts";

const icons = { Server, Lightbulb, Brain, Code, TrendingUp, Building, Globe } satisfies Record<
  IconName,
  LucideIcon
>;

/** Icons named in content (service lines, post frontmatter), rendered as inline SVG at build time. */
export function NamedIcon({ name, ...props }: { name: IconName } & LucideProps) {
  const Icon = icons[name];
  return <Icon aria-hidden="true" {...props} />;
}
