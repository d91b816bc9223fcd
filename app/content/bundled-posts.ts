import type { RouterContextProvider } from "react-router";
import type { PictureData } from "#app/components/ui/Picture.tsx";
import { type Post, PostError, parsePost, publishedPosts } from "#app/content/post-parser.ts";
import { publishDateContext, todayAtOffice } from "#app/content/publish-date.ts";

/**
 * The blog, bundled at build time: Vite inlines every Markdown file and turns every image into its
 * responsive variants (scripts/photos.ts), so the server needs no content folder at run time. The
 * content check (scripts/content-check.ts) has read every post before this runs.
 */

// Paths relative to this file, so the same files are found whatever Vite's root is (bench/spa-baseline).
const sources = import.meta.glob<string>("../../content/blog/*.md", {
  query: "?raw",
  import: "default",
  eager: true,
});
const images = import.meta.glob<PictureData>(
  "../../content/blog/images/*.{svg,jpg,jpeg,png,webp,avif}",
  {
    query: "?picture",
    import: "default",
    eager: true,
  },
);

/** `notLive`: in the preview only, what a visitor would not see yet ("Draft", "Goes live Tue, Dec 1"). */
export type PostView = Omit<Post, "image"> & { image: PictureData; notLive?: string };

const posts: PostView[] = Object.entries(sources).map(([path, raw]) => {
  const p = parsePost(path.replace("../../", ""), raw);
  const image = images[`../../content/blog/${p.image.slice(2)}`];
  if (!image)
    throw new PostError([
      { file: p.file, field: "image", message: `no file content/blog/${p.image.slice(2)}` },
    ]);
  return { ...p, image };
});

/**
 * The posts a visitor sees on `today` (the office's date), newest first. `npm run dev` is the
 * preview: there drafts and posts dated later are shown too, and only there.
 */
export const allPosts = (today = todayAtOffice()): PostView[] =>
  preview
    ? publishedPosts(posts, "9999-12-31", { drafts: true }).map((p) => ({
        ...p,
        notLive: notLiveOn(p, today),
      }))
    : publishedPosts(posts, today);

/** What the preview says of a post a visitor would not see on `today`. */
export function notLiveOn(post: Pick<Post, "date" | "draft">, today: string): string | undefined {
  if (post.draft) return "Draft";
  if (post.date <= today) return undefined;
  const day = new Date(`${post.date}T12:00:00Z`).toLocaleDateString("en-US", {
    weekday: "short",
    month: "short",
    day: "numeric",
    year: post.date.slice(0, 4) === today.slice(0, 4) ? undefined : "numeric",
    timeZone: "UTC",
  });
  return `Goes live ${day}`;
}

// Vite's mode, not NODE_ENV: `vite build` is "production" whatever NODE_ENV says, so no build shows a draft.
const preview = import.meta.env.MODE === "development";

/** The posts of the day a page is made for: today, or a scheduled state's date (publish-date.ts). */
export const postsFor = (context: Readonly<RouterContextProvider>) =>
  allPosts(context.get(publishDateContext) ?? undefined);
