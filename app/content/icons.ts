/**
 * The icon names content may use: a post's `icon` (frontmatter, checked by post-parser.ts) and a
 * service line's. components/ui/NamedIcon.tsx maps each to its drawing; the compiler checks it has all.
 */
export const postIcons = ["TrendingUp", "Building", "Globe"] as const;
export const serviceIcons = ["Server", "Lightbulb", "Brain", "Code"] as const;
export type IconName = (typeof postIcons)[number] | (typeof serviceIcons)[number];
