/**
 * "Offline before the first full load": SkyCite works offline only after the service
 * worker has installed and cached the app shell, the index and the embedding model. Until
 * then, being offline (or failing to fetch the index) needs a clear, actionable message.
 */
import { IndexFetchError } from '../runtime/fetch-bytes.js';

export type OfflineReason = 'offline-before-first-load' | 'index-unreachable' | 'index-http-error';

export interface OfflineProblem {
  reason: OfflineReason;
  message: string;
}

export interface OfflineEnv {
  /** navigator.onLine; undefined when unknown. */
  onLine?: boolean | undefined;
  /** Whether a service worker controls this page (navigator.serviceWorker.controller !== null). */
  controlled?: boolean | undefined;
}

function currentEnv(): OfflineEnv {
  const nav = (globalThis as { navigator?: { onLine?: boolean; serviceWorker?: { controller?: unknown } } }).navigator;
  return {
    onLine: typeof nav?.onLine === 'boolean' ? nav.onLine : undefined,
    controlled: nav?.serviceWorker ? nav.serviceWorker.controller != null : undefined,
  };
}

export const OFFLINE_MESSAGES: Record<OfflineReason, string> = {
  'offline-before-first-load':
    'You are offline and SkyCite has not finished its first load on this device, so the regulation index is not stored yet. ' +
    'Connect to the internet (Wi-Fi is best: the first load downloads tens of megabytes), reload this page and wait until the status line says "Ready for offline use". ' +
    'After that, SkyCite works without a connection.',
  'index-unreachable':
    'The regulation index could not be downloaded. Check the internet connection and reload the page. ' +
    'Once SkyCite has loaded completely once, it works offline.',
  'index-http-error':
    'The server did not deliver the regulation index. Reload the page; if this persists, the site is misconfigured: contact whoever hosts SkyCite.',
};

/** True offline-before-first-load state: no service worker controls the page and the browser reports offline. */
export function detectOfflineBeforeFirstLoad(e: OfflineEnv = currentEnv()): OfflineProblem | null {
  if (e.controlled !== true && e.onLine === false) {
    return { reason: 'offline-before-first-load', message: OFFLINE_MESSAGES['offline-before-first-load'] };
  }
  return null;
}

/**
 * Classify a failed index fetch (the error thrown by fetch, or the HTTP status).
 * A network error before the first full load (no controlling service worker, not known to be online) is reported as such.
 */
export function classifyIndexFailure(failure: { error?: unknown; status?: number }, e: OfflineEnv = currentEnv()): OfflineProblem {
  if (failure.status !== undefined && failure.error === undefined) {
    return {
      reason: 'index-http-error',
      message: `${OFFLINE_MESSAGES['index-http-error']} (HTTP ${failure.status})`,
    };
  }
  // A network error while no service worker controls the page and the browser is not
  // known to be online: the first full load has not happened yet.
  if (e.controlled !== true && e.onLine !== true) {
    return { reason: 'offline-before-first-load', message: OFFLINE_MESSAGES['offline-before-first-load'] };
  }
  return { reason: 'index-unreachable', message: OFFLINE_MESSAGES['index-unreachable'] };
}

/**
 * Probe the index manifest; null when it is reachable (from the network or the service
 * worker's precache), otherwise the problem to show.
 */
export async function checkIndexReachable(
  url = 'static-index/manifest.json',
  fetchFn: (input: string, init?: RequestInit) => Promise<{ ok: boolean; status: number }> = (i, init) => fetch(i, init),
  e: OfflineEnv = currentEnv(),
): Promise<OfflineProblem | null> {
  try {
    const res = await fetchFn(url, { method: 'GET', cache: 'no-cache' });
    if (res.ok) return null;
    return classifyIndexFailure({ status: res.status }, e);
  } catch (error) {
    return classifyIndexFailure({ error }, e);
  }
}

/** Call `cb` with the connection state whenever it changes; returns an unsubscribe function. */
export function watchConnectivity(
  cb: (online: boolean) => void,
  target: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | undefined = globalThis as unknown as EventTarget,
): () => void {
  if (!target || typeof target.addEventListener !== 'function') return () => undefined;
  const on = () => cb(true);
  const off = () => cb(false);
  target.addEventListener('online', on);
  target.addEventListener('offline', off);
  return () => {
    target.removeEventListener('online', on);
    target.removeEventListener('offline', off);
  };
}

/**
 * The built-in index failed to load: what to tell the user, in their words. The error's own
 * message (file names, SHA-256 values, `npm run index`) is for developers; the status line shows
 * it only inside its "Technical details (for developers)" element.
 */
export function indexProblemForUser(error: unknown, e: OfflineEnv = currentEnv(), source: 'host' | 'device' | null = null): string {
  // where the file at fault is, as the runtime found it: the server's copy, or this device's
  if (source === 'host') return INDEX_HOST_MESSAGE;
  if (source === 'device') return INDEX_DAMAGED_MESSAGE;
  // a file that could not be fetched, here or behind the model's load: the server's answer, or none
  for (let x: unknown = error, depth = 0; x instanceof Error && depth < 5; x = x.cause, depth++) {
    if (x instanceof IndexFetchError) return classifyIndexFailure(x.status !== null ? { status: x.status } : { error: x }, e).message;
    // fetch() rejects with a TypeError when no answer came (the Fetch standard's one sign of a network failure)
    if (x instanceof TypeError) return classifyIndexFailure({ error: x }, e).message;
  }
  return INDEX_DAMAGED_MESSAGE;
}

export const INDEX_DAMAGED_MESSAGE =
  'The built-in regulation index (or the search model) stored on this device failed its integrity check, so SkyCite does not use it. ' +
  'SkyCite checks its offline copy and replaces what is damaged; your own documents, settings and audit log are not affected.';

/** The server delivered an index file or a model file that is not this build's (a first visit, or a changed file on the host). */
export const INDEX_HOST_MESSAGE =
  'The server sent a regulation index (or search model) that is not the one this version of SkyCite was built with, so SkyCite does not use it. ' +
  'The problem is on the server, not on this device: nothing kept here is damaged or changed. Reload later; if this persists, the site’s files are incomplete or damaged: tell whoever hosts SkyCite.';

/** The status line's words for being offline: from the offline copy, or with nothing stored yet. */
export function offlineStatusText(stored: boolean): string {
  return stored
    ? 'working from stored data'
    : 'nothing is stored on this device yet: SkyCite needs one complete load while online (until "Ready for offline use") before it works offline';
}
