import { CheckCircle } from "lucide-react";

/** A short list of points, each after a green check mark (the service cards on home and services). */
export function CheckList({ items, className }: { items: readonly string[]; className: string }) {
  return (
    <ul className={`${className} space-y-2 text-sm`}>
      {items.map((item) => (
        <li key={item} className="flex gap-2">
          <CheckCircle
            aria-hidden="true"
            className="mt-0.5 size-4 shrink-0 text-green-700 dark:text-green-400"
          />
          {item}
        </li>
      ))}
    </ul>
  );
}
