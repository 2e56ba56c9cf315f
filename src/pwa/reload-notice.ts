/**
 * What a page that reloaded itself tells the user once it is back: kept in sessionStorage (this
 * tab only) across the reload, read once. Also the guard against a reload loop when a part of the
 * app stays missing.
 */
export type ReloadReason = 'updated' | 'updated-elsewhere' | 'missing-chunk' | 'repaired';

const KEY = 'skycite-reload-notice';
const CHUNK_KEY = 'skycite-chunk-reload-at';

export const RELOAD_NOTICES: Record<ReloadReason, string> = {
  updated: 'SkyCite was updated to its new version.',
  'updated-elsewhere': 'SkyCite was updated in another tab; this tab reloaded to the new version as well. Nothing you stored was changed.',
  'missing-chunk': 'A new version of SkyCite had been installed, so this tab reloaded to load it. Please repeat your last action.',
  repaired:
    'Part of SkyCite’s offline copy on this device was damaged; SkyCite downloaded a verified copy and restarted. Your own documents, settings and audit log were not affected.',
};

export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const session = (): SessionStore | null => {
  try {
    return (globalThis as { sessionStorage?: SessionStore }).sessionStorage ?? null;
  } catch {
    return null;
  }
};

export function setReloadNotice(reason: ReloadReason, store: SessionStore | null = session()): void {
  try {
    store?.setItem(KEY, reason);
  } catch {
    // storage full or refused: the reload still happens, without its notice
  }
}

/** The notice left by the reload, once (then forgotten); null when the page was not reloaded by SkyCite. */
export function takeReloadNotice(store: SessionStore | null = session()): string | null {
  try {
    const reason = store?.getItem(KEY) as ReloadReason | null | undefined;
    store?.removeItem(KEY);
    return reason && reason in RELOAD_NOTICES ? RELOAD_NOTICES[reason] : null;
  } catch {
    return null;
  }
}

/** The "Failed to fetch dynamically imported module" family of errors (Chromium, Firefox, Safari wordings). */
export function isMissingChunkError(e: unknown): boolean {
  const m = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  return /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(
    m,
  );
}

/**
 * Whether to reload for a missing chunk now: not when this tab already did so in the last
 * `windowMs` (the chunk is still missing after a reload: a reload loop would help nobody).
 */
export function shouldReloadForChunk(now: number, store: SessionStore | null = session(), windowMs = 60_000, key = CHUNK_KEY): boolean {
  try {
    const last = Number(store?.getItem(key) ?? NaN);
    if (Number.isFinite(last) && now - last < windowMs) return false;
    store?.setItem(key, String(now));
    return true;
  } catch {
    return false;
  }
}

/**
 * A tab whose lazily loaded code is gone (a new version replaced it on the server and in the
 * service worker's cache) reloads itself with a notice, once, instead of breaking
 * (Vite's `vite:preloadError` event; the error is stopped when the page reloads).
 */
export function reloadOnMissingChunks(
  target: Pick<EventTarget, 'addEventListener'> = globalThis as unknown as EventTarget,
  reload: () => void = () => globalThis.location?.reload(),
): void {
  target.addEventListener('vite:preloadError', (event) => {
    if (!shouldReloadForChunk(Date.now())) return; // let the caller report the error
    event.preventDefault();
    setReloadNotice('missing-chunk');
    reload();
  });
}

/**
 * After the offline copy was repaired, start again from a fresh page (a worker that loaded the
 * damaged files may keep them in memory), with a notice; at most once a minute, else `fallback`
 * (load again in place).
 */
export function reloadAfterRepair(fallback: () => Promise<void>, reload: () => void = () => globalThis.location?.reload()): Promise<void> {
  if (!shouldReloadForChunk(Date.now(), session(), 60_000, 'skycite-repair-reload-at')) return fallback();
  setReloadNotice('repaired');
  reload();
  return Promise.resolve();
}
