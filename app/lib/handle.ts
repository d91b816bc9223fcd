/**
 * A route's `handle`. Only a route that says `hydrate: true` ships JavaScript: every other page is
 * plain prerendered HTML (the root layout leaves out <Scripts/>).
 */
export type RouteHandle = { hydrate?: boolean };

export function handleOf(matches: ReadonlyArray<{ handle?: unknown }>): RouteHandle {
  return Object.assign({}, ...matches.map((m) => (m.handle ?? {}) as RouteHandle));
}
