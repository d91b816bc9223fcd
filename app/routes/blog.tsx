import { ArrowRight, Clock } from "lucide-react";
import type { RouterContextProvider } from "react-router";
import { NamedIcon } from "#app/components/ui/NamedIcon.tsx";
import { NotLive } from "#app/components/ui/NotLive.tsx";
import { PageHeader } from "#app/components/ui/PageHeader.tsx";
import { Picture } from "#app/components/ui/Picture.tsx";
import { cardFrame, container } from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { postsFor } from "#app/content/blog.server.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { link, postLink } from "#app/pages.ts";
import type { Route } from "./+types/blog";

export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  // Only what the list shows: the article bodies stay out of this page's data.
  return {
    posts: postsFor(context).map(
      ({ slug, title, category, excerpt, readTime, icon, image, imageAlt, date, notLive }) => ({
        slug,
        title,
        category,
        excerpt,
        readTime,
        icon,
        image,
        imageAlt,
        date,
        notLive,
      }),
    ),
  };
}

export const meta: Route.MetaFunction = () =>
  pageMeta({
    title: "Blog",
    description: `${site.blog.about}, from the ${site.name} team.`,
    path: link.blog,
  });

/**
 * A card is one link: the title's link is stretched over the whole card (its ::after), so the
 * image, the excerpt and "Read more" all lead to the article with one tab stop, and the card
 * shows the focus ring.
 */
const cardLink = "after:absolute after:inset-0 after:content-[''] focus-visible:outline-none";
const cardFocus =
  "relative transition-shadow hover:shadow-md has-[a:focus-visible]:outline-2 has-[a:focus-visible]:outline-offset-4 has-[a:focus-visible]:outline-blue-700 dark:has-[a:focus-visible]:outline-blue-300";
const readMore = "inline-flex items-center gap-1 font-semibold text-blue-800 dark:text-blue-300";

const category =
  "inline-flex items-center gap-1.5 rounded-full bg-blue-100 px-3 py-1 text-xs font-semibold text-blue-900 dark:bg-slate-800 dark:text-blue-100";

type CardPost = Route.ComponentProps["loaderData"]["posts"][number];

/** The images' widths in the container (1rem padding on a phone, 1.5rem from 40rem, 2rem from 64rem). */
const FEATURED_SIZES =
  "(min-width: 72rem) 34rem, (min-width: 64rem) calc(50vw - 2rem), (min-width: 40rem) calc(100vw - 3rem), calc(100vw - 2rem)";
const CARD_SIZES =
  "(min-width: 72rem) 22rem, (min-width: 64rem) calc(33vw - 2rem), (min-width: 48rem) calc(50vw - 2.25rem), (min-width: 40rem) calc(100vw - 3rem), calc(100vw - 2rem)";

/** The post's image, cut to 1200:630; the featured one is the page's largest element, the list's load lazily. */
function CardImage({ post, featured = false }: { post: CardPost; featured?: boolean }) {
  return (
    <Picture
      picture={post.image}
      alt={post.imageAlt}
      sizes={featured ? FEATURED_SIZES : CARD_SIZES}
      priority={featured}
      className="aspect-[1200/630] h-auto w-full object-cover"
    />
  );
}

function Category({ post }: { post: CardPost }) {
  return (
    <>
      <span className={category}>
        <NamedIcon name={post.icon} className="size-3.5" />
        {post.category}
      </span>
      {post.notLive ? <NotLive className="ml-2">{post.notLive}</NotLive> : null}
    </>
  );
}

/** Reading time, and the "read" cue (decorative: the title is the card's link). */
function CardFooter(props: {
  post: CardPost;
  action: string;
  className: string;
  timeClassName?: string;
}) {
  return (
    <div className={`${props.className} flex items-center justify-between gap-4`}>
      <span className={`inline-flex items-center gap-1.5 ${props.timeClassName ?? ""}`.trim()}>
        <Clock aria-hidden="true" className="size-4" />
        {props.post.readTime}
      </span>
      <span aria-hidden="true" className={readMore}>
        {props.action}
        <ArrowRight className="size-4" />
      </span>
    </div>
  );
}

export default function Blog({ loaderData }: Route.ComponentProps) {
  // In the preview, the article the live site features: never a draft or a later post (marked in the list).
  const featured = loaderData.posts.find((p) => !p.notLive);
  const rest = loaderData.posts.filter((p) => p !== featured);
  return (
    <>
      <PageHeader title="Insights & Articles">
        Practical thinking on infrastructure, AI and compliance from the people who build it.
      </PageHeader>
      <div className={`${container} py-16`}>
        {featured ? (
          <article
            className={`${cardFrame} ${cardFocus} grid overflow-hidden lg:grid-cols-2 lg:items-center`}
            aria-labelledby="featured-title"
          >
            <CardImage post={featured} featured />
            <div className="flex flex-col justify-center p-6 lg:p-10">
              <p className="text-sm font-semibold text-blue-800 dark:text-blue-300">
                Featured article
              </p>
              <p className="mt-3">
                <Category post={featured} />
              </p>
              <h2
                id="featured-title"
                className="mt-4 text-3xl font-bold text-slate-900 dark:text-white"
              >
                <a href={postLink(featured.slug)} className={cardLink}>
                  {featured.title}
                </a>
              </h2>
              <p className="mt-4 leading-relaxed">{featured.excerpt}</p>
              <CardFooter
                post={featured}
                action="Read article"
                className="mt-6"
                timeClassName="text-sm"
              />
            </div>
          </article>
        ) : (
          <p>No articles yet.</p>
        )}
        {rest.length > 0 ? (
          <section aria-labelledby="more-heading" className="mt-16">
            <h2 id="more-heading" className="text-2xl font-bold text-slate-900 dark:text-white">
              More articles
            </h2>
            <ul className="mt-8 grid gap-6 md:grid-cols-2 lg:grid-cols-3">
              {rest.map((p) => (
                <li key={p.slug}>
                  <article
                    className={`${cardFrame} ${cardFocus} flex h-full flex-col overflow-hidden`}
                  >
                    <CardImage post={p} />
                    <div className="flex flex-1 flex-col p-6">
                      <p>
                        <Category post={p} />
                      </p>
                      <h3 className="mt-3 text-xl font-semibold text-slate-900 dark:text-white">
                        <a href={postLink(p.slug)} className={cardLink}>
                          {p.title}
                        </a>
                      </h3>
                      <p className="mt-3 flex-1 text-sm leading-relaxed">{p.excerpt}</p>
                      <CardFooter post={p} action="Read more" className="mt-5 text-sm" />
                    </div>
                  </article>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
    </>
  );
}
