/**
 * A photo's variants as the build makes them (scripts/photos.ts, through a `?picture` import): `src`
 * is the original format at up to 1200 px, for what reads neither AVIF nor WebP.
 */
export type PictureData = {
  src: string;
  width: number;
  height: number;
  sources: Array<{ type: string; srcset: string }>;
  /** A 1200×630 JPEG for social cards; an SVG has none. */
  og?: string;
};

/**
 * One picture: AVIF, then WebP, then the original format; width and height always set, so nothing
 * moves while it loads. `priority` where it is the page's largest element (eager, fetched first);
 * otherwise loaded when it nears the screen.
 */
export function Picture({
  picture,
  alt,
  sizes,
  priority = false,
  className,
}: {
  picture: PictureData;
  alt: string;
  sizes: string;
  priority?: boolean;
  className?: string;
}) {
  const img = (
    <img
      src={picture.src}
      alt={alt}
      width={picture.width}
      height={picture.height}
      loading={priority ? undefined : "lazy"}
      decoding={priority ? undefined : "async"}
      fetchPriority={priority ? "high" : undefined}
      className={className}
    />
  );
  if (picture.sources.length === 0) return img;
  return (
    <picture>
      {picture.sources.map((s) => (
        <source key={s.type} type={s.type} srcSet={s.srcset} sizes={sizes} />
      ))}
      {img}
    </picture>
  );
}
