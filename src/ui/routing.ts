/**
 * Hash-based routing without a router library. Routes look like `#/library?q=oso`.
 * A hash that does not start with "#/" (for example an in-page anchor) is not a route:
 * `parseHash` returns null for it and the current view stays.
 */

export const VIEWS = ['ask', 'assess', 'requirements', 'library', 'settings', 'about'] as const;
export type View = (typeof VIEWS)[number];

export const VIEW_LABELS: Readonly<Record<View, string>> = {
  ask: 'Ask',
  assess: 'Assess',
  requirements: 'Requirements',
  library: 'Library',
  settings: 'Settings',
  about: 'About',
};

export const DEFAULT_VIEW: View = 'ask';

export interface Route {
  view: View;
  /** Query parameters after "?", decoded. */
  params: Record<string, string>;
}

const isView = (v: string): v is View => (VIEWS as readonly string[]).includes(v);

/**
 * Parse a location hash. "" and "#" and "#/" give the default view; "#/unknown" gives the
 * default view too (so a stale bookmark still opens the app); anything not starting with
 * "#/" returns null (not a route).
 */
export function parseHash(hash: string): Route | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (h === '' || h === '/') return { view: DEFAULT_VIEW, params: {} };
  if (!h.startsWith('/')) return null;
  const [path = '', query = ''] = h.slice(1).split('?', 2) as [string?, string?];
  const name = decodeURIComponent(path.split('/')[0] ?? '').toLowerCase();
  const params: Record<string, string> = {};
  if (query) {
    for (const [k, v] of new URLSearchParams(query)) params[k] = v;
  }
  return { view: isView(name) ? name : DEFAULT_VIEW, params };
}

/** The hash for a route: `#/view` or `#/view?k=v`. Parameters with empty values are left out. */
export function formatHash(view: View, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return `#/${view}${s ? `?${s}` : ''}`;
}
