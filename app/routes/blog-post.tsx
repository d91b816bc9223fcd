import { ArrowLeft, ArrowRight, Clock, FileQuestion, User } from "lucide-react";
import { data, isRouteErrorResponse, useRouteError } from "react-router";
import { NamedIcon } from "#app/components/ui/NamedIcon.tsx";
import { NotLive } from "#app/components/ui/NotLive.tsx";
import { Picture } from "#app/components/ui/Picture.tsx";
import {
  buttonOnDark,
  buttonPrimary,
  container,
  focusRing,
  readingColumn,
} from "#app/components/ui/styles.ts";
import { site } from "#app/config/site.ts";
import { postsFor } from "#app/content/blog.server.ts";
import { pageMeta } from "#app/lib/seo.ts";
import { blogPosting, breadcrumbs, JsonLd } from "#app/lib/structured-data.tsx";
import { link, postLink } from "#app/pages.ts";
import type { Route } from "./+types/blog-post";

export function loader({ params, context }: Route.LoaderArgs) {
  const post = postsFor(context).find((p) => p.slug === params.slug);
  if (!post) throw data(null, { status: 404 });
  return { post };
}

export const meta: Route.MetaFunction = ({ loaderData, params }) =>
  loaderData
    ? [
        ...pageMeta({
          title: loaderData.post.title,
          description: loaderData.post.excerpt,
          path: postLink(params.slug),
          type: "article",
          image: loaderData.post.image.og,
        }),
        { property: "article:published_time", content: loaderData.post.date },
        { property: "article:author", content: loaderData.post.author },
        { property: "article:section", content: loaderData.post.category },
      ]
    : [{ title: `Post Not Found | ${site.name}` }, { name: "robots", content: "noindex" }];

/** The hero's width: the reading column (39rem at most), less its padding on narrower screens. */
const HERO_SIZES =
  "(min-width: 42rem) 39rem, (min-width: 40rem) calc(100vw - 3rem), calc(100vw - 2rem)";

const backLink = `inline-flex items-center gap-2 rounded font-semibold text-blue-800 hover:underline dark:text-blue-300 ${focusRing}`;

export default function BlogPost({ loaderData: { post } }: Route.ComponentProps) {
  return (
    <article>
      <JsonLd
        graph={[
          blogPosting(post),
          breadcrumbs([
            { name: "Home", path: link.home },
            { name: "Blog", path: link.blog },
            { name: post.title, path: postLink(post.slug) },
          ]),
        ]}
      />
      <header className="bg-slate-50 dark:bg-slate-900">
        <div className={`${readingColumn} py-10`}>
          <a href={link.blog} className={`${backLink} print:hidden`}>
            <ArrowLeft aria-hidden="true" className="size-4" /> Back to Blog
          </a>
          {post.notLive ? (
            <p className="mt-6">
              <NotLive>{post.notLive}</NotLive> Only the preview shows this article
              {post.draft ? " while it is a draft" : " before that day"}.
            </p>
          ) : null}
          <p className="mt-6">
            <span className="inline-flex items-center gap-1.5 rounded-full bg-blue-100 px-3 py-1 text-sm font-semibold text-blue-900 dark:bg-slate-800 dark:text-blue-100">
              <NamedIcon name={post.icon} className="size-4" />
              {post.category}
            </span>
          </p>
          <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            {post.title}
          </h1>
          <p className="mt-6 flex flex-wrap items-center gap-x-6 gap-y-2 text-sm">
            <span className="inline-flex items-center gap-1.5">
              <User aria-hidden="true" className="size-4" />
              {post.author}
            </span>
            <span className="inline-flex items-center gap-1.5">
              <Clock aria-hidden="true" className="size-4" />
              {post.readTime}
            </span>
            <time dateTime={post.date}>
              {new Date(`${post.date}T12:00:00Z`).toLocaleDateString("en-US", {
                year: "numeric",
                month: "long",
                day: "numeric",
                timeZone: "UTC",
              })}
            </time>
          </p>
          <div className="mt-8 overflow-hidden rounded-2xl">
            {/* The page's largest element: fetched first, never lazily. */}
            <Picture
              picture={post.image}
              alt={post.imageAlt}
              sizes={HERO_SIZES}
              priority
              className="h-auto w-full"
            />
          </div>
        </div>
      </header>
      <div className={`${readingColumn} py-12`}>
        {/* Rendered from Markdown at build time; raw HTML in the source is escaped (app/content/post-parser.ts). */}
        <div
          data-print-links
          className="prose-article text-lg"
          dangerouslySetInnerHTML={{ __html: post.html }}
        />
        <aside
          aria-label="About the author"
          className="mt-12 flex gap-4 rounded-2xl bg-slate-50 p-6 dark:bg-slate-900"
        >
          <span className="inline-flex size-14 shrink-0 items-center justify-center rounded-full bg-blue-700 text-white">
            <User aria-hidden="true" className="size-7" />
          </span>
          <div>
            <p className="font-semibold text-slate-900 dark:text-white">{post.author}</p>
            <p className="text-sm">{site.blog.authorTitle}</p>
            <p className="mt-2 text-sm">
              Writes about infrastructure, AI and compliance at {site.name}, and works with clients
              on the projects these articles come from.
            </p>
          </div>
        </aside>
        <section
          aria-labelledby="cta-heading"
          className="mt-12 rounded-2xl bg-blue-800 p-8 text-center text-white print:hidden"
        >
          <h2 id="cta-heading" className="text-2xl font-bold">
            Have a project like this in mind?
          </h2>
          <p className="mt-3 text-blue-100">
            Talk to our team — the first {site.consultationMinutes}-minute consultation is free.
          </p>
          <a href={link.contact} className={`${buttonOnDark} mt-6`}>
            Contact Us <ArrowRight aria-hidden="true" className="size-5" />
          </a>
        </section>
        <p className="mt-10 print:hidden">
          <a href={link.blog} className={backLink}>
            <ArrowLeft aria-hidden="true" className="size-4" /> Back to Blog
          </a>
        </p>
      </div>
    </article>
  );
}

/** An unknown slug: "Post Not Found", HTTP 404. */
export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <section className={`${container} py-24 text-center`}>
      <FileQuestion
        aria-hidden="true"
        className="mx-auto size-14 text-blue-700 dark:text-blue-300"
      />
      <h1 className="mt-6 text-4xl font-bold text-slate-900 dark:text-white">
        {notFound ? "Post Not Found" : "This article could not be shown"}
      </h1>
      <p className="mx-auto mt-4 max-w-xl text-lg">
        {notFound
          ? "The article you are looking for does not exist or has been moved."
          : "Please try again in a moment."}
      </p>
      <a href={link.blog} className={`${buttonPrimary} mt-8`}>
        <ArrowLeft aria-hidden="true" className="size-5" /> Return to Blog
      </a>
    </section>
  );
}
