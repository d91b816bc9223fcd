import { type Post, PostError, parsePost, publishedPosts } from "#app/content/post-parser.ts";

/**
 * The blog, bundled at build time: Vite inlines every Markdown file and hashes every image, so the
 * server needs no content folder at run time. A bad post throws while prerendering and fails the build.
 */

// Paths relative to this file, so the same files are found whatever Vite's root is (bench/spa-baseline).
const sources = import.meta.glob<string>("../../content/blog/*.md", { query: "?raw", import: "default", eager: true });
const images = import.meta.glob<string>("../../content/blog/images/*.svg", {
  query: "?url",
  import: "default",
  eager: true,
});

export type PostView = Omit<Post, "image"> & { image: string; imageWidth: number; imageHeight: number };

function load(): PostView[] {
  const posts = Object.entries(sources).map(([path, raw]) => parsePost(path.replace("../../", ""), raw));
  return publishedPosts(posts).map((p) => {
    const url = images[`../../content/blog/${p.image.slice(2)}`];
    if (!url) throw new PostError(p.file, "image", `no such file: content/blog/${p.image.slice(2)}`);
    return { ...p, image: url, imageWidth: 1200, imageHeight: 630 };
  });
}

const posts = load();

export const allPosts = (): PostView[] => posts;
export const findPost = (slug: string): PostView | undefined => posts.find((p) => p.slug === slug);
