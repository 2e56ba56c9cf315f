/**
 * Service worker registration with workbox-window (not the `virtual:pwa-register` module:
 * vite-plugin-pwa is configured with `injectRegister: false` and this file registers
 * `<base>sw.js` itself).
 *
 * Update flow (registerType 'prompt'): when a new version has installed and is waiting,
 * `onUpdateAvailable` callbacks run; the UI asks the user; `applyUpdate()` tells the
 * waiting worker to skip waiting and reloads the page once it controls it.
 */
import { Workbox } from 'workbox-window';

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
}

export interface PwaUpdater {
  /** Called when a new version is waiting (at once if one already is). Returns an unsubscribe function. */
  onUpdateAvailable(cb: () => void): () => void;
  /** Activate the waiting version and reload into it. No-op when nothing is waiting. */
  applyUpdate(): Promise<void>;
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
  const reload = options.reload ?? (() => globalThis.location?.reload());

  let waiting = false;
  let applying = false;
  const listeners = new Set<() => void>();

  wb.addEventListener('waiting', () => {
    waiting = true;
    for (const cb of [...listeners]) cb();
  });
  wb.addEventListener('controlling', (event) => {
    // Reload only for the update we asked for, not for the first install taking control.
    if (applying && event.isUpdate !== false) reload();
  });

  const registration = await wb.register();
  // never resolves where there is no serviceWorker container (then nothing is stored for offline use)
  const whenActive = options.whenActive ?? (() => nav?.serviceWorker?.ready ?? new Promise<never>(() => undefined));
  const offlineReady = whenActive().then(() => undefined);

  return {
    onUpdateAvailable(cb) {
      listeners.add(cb);
      if (waiting) cb();
      return () => listeners.delete(cb);
    },
    async applyUpdate() {
      if (!waiting || applying) return;
      applying = true;
      wb.messageSkipWaiting();
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
