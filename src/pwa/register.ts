/**
 * Service worker registration with workbox-window (not the `virtual:pwa-register` module:
 * vite-plugin-pwa is configured with `injectRegister: false` and this file registers
 * `<base>sw.js` itself).
 *
 * Update flow (registerType 'prompt'): when a new version has installed and is waiting,
 * `onUpdateAvailable` callbacks run; the UI asks the user; `applyUpdate()` tells the
 * waiting worker to skip waiting. Every open tab follows: when the new version takes control
 * (accepted here or in another tab), the page reloads into it with a notice — a tab left on the
 * old version would ask for chunks the new version no longer keeps.
 *
 * Truthful offline status: `offlineReady` resolves when a service worker is active (its precache
 * installed) and rejects with OfflineCopyError when the install fails (a download refused, the
 * storage quota exceeded): the status then says so instead of "Saving…" forever.
 */
import { SkyCiteError } from '../core/errors.js';
import { Workbox } from 'workbox-window';
import { setReloadNotice } from './reload-notice';
import { afterImports, type LocksLike } from './import-lock';

/** The BroadcastChannel on which a tab that accepted an update tells the others. */
export const UPDATE_CHANNEL = 'skycite-updates';

/** The offline copy could not be stored (the service worker's install failed). */
export class OfflineCopyError extends SkyCiteError {
  override name = 'OfflineCopyError';
  override readonly code = 'offline-copy';
}

/** The parts of a ServiceWorker / ServiceWorkerRegistration watched for a failed install. */
interface WorkerLike {
  state: string;
  addEventListener(type: 'statechange', listener: () => void): void;
}
interface RegistrationLike {
  installing: WorkerLike | null;
  waiting: WorkerLike | null;
  active: WorkerLike | null;
  addEventListener(type: 'updatefound', listener: () => void): void;
}

/**
 * Call `onFail` when a worker of the registration that is installing becomes redundant without
 * ever having installed: its install step (the precache) failed. Returns nothing to undo: it
 * lives as long as the page.
 */
export function watchInstallFailures(registration: RegistrationLike, onFail: () => void): void {
  const track = (sw: WorkerLike | null) => {
    if (!sw) return;
    let installed = sw.state !== 'installing' && sw.state !== 'parsed';
    sw.addEventListener('statechange', () => {
      if (sw.state === 'installed' || sw.state === 'activating' || sw.state === 'activated') installed = true;
      else if (sw.state === 'redundant' && !installed) onFail();
    });
  };
  track(registration.installing);
  registration.addEventListener('updatefound', () => track(registration.installing));
}

/** The part of workbox-window's Workbox used here (a fake one in tests). */
export interface WorkboxLike {
  addEventListener(type: 'waiting', listener: (event: { isUpdate?: boolean; wasWaitingBeforeRegister?: boolean }) => void): void;
  addEventListener(type: 'controlling', listener: (event: { isUpdate?: boolean }) => void): void;
  register(options?: { immediate?: boolean }): Promise<ServiceWorkerRegistration | undefined>;
  update(): Promise<void>;
  messageSkipWaiting(): void;
}

export interface RegisterOptions {
  /** Default: `${import.meta.env.BASE_URL}sw.js`. */
  url?: string;
  scope?: string;
  /** Default: production builds only (the dev server serves no sw.js). */
  enabled?: boolean;
  /** Default: 'serviceWorker' in navigator. */
  supported?: boolean;
  createWorkbox?: (url: string, options: { scope?: string }) => WorkboxLike;
  /** Default: location.reload(). */
  reload?: () => void;
  /** Resolves once a service worker is active, i.e. its install step (the precache) is complete. Default: navigator.serviceWorker.ready. */
  whenActive?: () => Promise<unknown>;
  /** Default: sessionStorage (reload-notice.ts); what the reloaded page tells the user. */
  notice?: (reason: 'updated' | 'updated-elsewhere') => void;
  /** Whether a service worker controls the page now (default: navigator.serviceWorker.controller). */
  hasController?: () => boolean;
  /** The channel on which tabs tell each other that a new version was accepted (default: a BroadcastChannel; null: none). */
  channel?: Pick<BroadcastChannel, 'postMessage' | 'addEventListener'> | null;
  /** Register again after a failed install (default: navigator.serviceWorker.register). */
  reRegister?: (url: string, options: { scope?: string }) => Promise<unknown>;
  /** The Web Locks an update waits on for the imports running in any tab (default: navigator.locks; null: none). */
  locks?: LocksLike | null;
}

export interface PwaUpdater {
  /** Called when a new version is waiting (at once if one already is). Returns an unsubscribe function. */
  onUpdateAvailable(cb: () => void): () => void;
  /**
   * Activate the waiting version and reload into it (every open tab follows), once no tab is importing
   * a document (import-lock.ts): `onWaiting` is called when an import is running and the update waits
   * for it. No-op when nothing is waiting.
   */
  applyUpdate(onWaiting?: () => void): Promise<void>;
  /** After a failed install or cleared site data: register again; resolves once the offline copy is stored, rejects (OfflineCopyError) when the install fails again. */
  retryInstall(): Promise<void>;
  /** Ask the browser to look for a new version now. */
  checkForUpdate(): Promise<void>;
  readonly updateAvailable: boolean;
  readonly registration: ServiceWorkerRegistration | undefined;
  /**
   * Resolves when this device holds the offline copy: a service worker is active, so its
   * install step — precaching the app, the index and the embedding model — has completed.
   */
  readonly offlineReady: Promise<void>;
}

function defaultUrl(): string {
  const base = (import.meta.env.BASE_URL as string | undefined) ?? '/';
  return `${base.endsWith('/') ? base : `${base}/`}sw.js`;
}

/**
 * Register the service worker. Resolves to null when service workers are unsupported or
 * disabled (dev server); rejects only when registration itself fails.
 */
export async function registerServiceWorker(options: RegisterOptions = {}): Promise<PwaUpdater | null> {
  const enabled = options.enabled ?? import.meta.env.PROD === true;
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  const supported = options.supported ?? (nav !== undefined && 'serviceWorker' in nav);
  if (!enabled || !supported) return null;

  const url = options.url ?? defaultUrl();
  const wbOptions = options.scope !== undefined ? { scope: options.scope } : {};
  const wb: WorkboxLike = options.createWorkbox ? options.createWorkbox(url, wbOptions) : new Workbox(url, wbOptions);
  const reloadPage = options.reload ?? (() => globalThis.location?.reload());
  let reloading = false;
  const reload = () => {
    if (reloading) return;
    reloading = true;
    reloadPage();
  };

  let waiting = false;
  let applying = false;
  const listeners = new Set<() => void>();

  wb.addEventListener('waiting', () => {
    waiting = true;
    for (const cb of [...listeners]) cb();
  });
  const notice = options.notice ?? setReloadNotice;
  const hasController = options.hasController ?? (() => nav?.serviceWorker?.controller != null);
  const channel = options.channel !== undefined ? options.channel : typeof BroadcastChannel === 'function' ? new BroadcastChannel(UPDATE_CHANNEL) : null;
  /** Another tab accepted the new version: follow it (a tab no service worker controls gets no controllerchange). */
  const follow = () => {
    if (applying) return;
    applying = true;
    notice('updated-elsewhere');
    reload();
  };
  channel?.addEventListener('message', (event) => {
    if ((event as MessageEvent).data?.type === 'skycite-updated') follow();
  });
  wb.addEventListener('controlling', (event) => {
    // a controller gone (site data cleared) is no new version: nothing to reload into
    if (event.isUpdate === false || !hasController()) return;
    if (applying) {
      // the version this tab accepted is in control: tell the other tabs, then reload into it
      channel?.postMessage({ type: 'skycite-updated' });
      reload();
    } else if (event.isUpdate === true) {
      // accepted in another tab (this page was controlled by the old version)
      follow();
    }
  });

  const registration = await wb.register();
  // never resolves where there is no serviceWorker container (then nothing is stored for offline use)
  const whenActive = options.whenActive ?? (() => nav?.serviceWorker?.ready ?? new Promise<never>(() => undefined));
  let failInstall: (e: Error) => void = () => undefined;
  const installFailed = new Promise<never>((_, reject) => (failInstall = reject));
  // a rejection nobody awaits yet is not an error of the page
  installFailed.catch(() => undefined);
  if (registration && typeof (registration as unknown as RegistrationLike).addEventListener === 'function') {
    watchInstallFailures(registration as unknown as RegistrationLike, () =>
      failInstall(new OfflineCopyError('The service worker could not store the offline copy (its install failed: a download failed or the storage is full).')),
    );
  }
  const offlineReady = Promise.race([whenActive().then(() => undefined), installFailed]);

  return {
    onUpdateAvailable(cb) {
      listeners.add(cb);
      if (waiting) cb();
      return () => listeners.delete(cb);
    },
    async applyUpdate(onWaiting) {
      if (!waiting || applying) return;
      applying = true;
      // every tab reloads into the new version: an import running in one of them finishes first
      await afterImports(
        () => {
          notice('updated');
          // the version already took over (accepted in another tab a moment ago): just reload into it
          if (registration && !registration.waiting && registration.active) {
            reload();
            return;
          }
          wb.messageSkipWaiting();
        },
        { ...(onWaiting ? { onWaiting } : {}), ...(options.locks !== undefined ? { locks: options.locks } : {}) },
      );
    },
    async retryInstall() {
      const again = options.reRegister ?? ((u: string, o: { scope?: string }) => nav!.serviceWorker.register(u, o));
      const reg = (await again(url, wbOptions)) as RegistrationLike | undefined;
      const failed = new Promise<never>((_, reject) => {
        if (reg && typeof reg.addEventListener === 'function')
          watchInstallFailures(reg, () => reject(new OfflineCopyError('The service worker could not store the offline copy again (its install failed).')));
      });
      await Promise.race([whenActive(), failed]);
    },
    async checkForUpdate() {
      await wb.update();
    },
    get updateAvailable() {
      return waiting;
    },
    registration,
    offlineReady,
  };
}
