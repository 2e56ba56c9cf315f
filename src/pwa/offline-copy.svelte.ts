/**
 * The offline copy as the status line and Settings show it, told truthfully: what the service
 * worker really holds (saving, ready, failed to install, cleared while the app was open), the
 * self-repair of a damaged file, and the notice of a page that reloaded itself. One instance
 * (`offlineCopy`), wired by main.ts; nothing here touches IndexedDB.
 */
import { untrack } from 'svelte';
import type { PwaUpdater } from './register';
import { INTEGRITY_FILE } from './pwa-config';
import { describeAssets, healOfflineCopy, type CachesLike, type HealResult, type RepairEnv } from './repair';
import { reloadAfterRepair, takeReloadNotice } from './reload-notice';
import { estimateStorage, hasRoomFor, WORKBOX_PRECACHE_PREFIX } from './storage';

export type CopyState = 'none' | 'saving' | 'ready' | 'failed' | 'lost';
export type RepairPhase = 'idle' | 'checking' | 'repairing' | 'waiting-online' | 'done' | 'failed';

/** How much the offline copy needs (app, index, model, ORT wasm), for the "storage is full" message. */
export const OFFLINE_COPY_BYTES = 40 * 1024 * 1024;

export const COPY_MESSAGES = {
  lost:
    'SkyCite’s stored data on this device was cleared (by the browser or its settings) while the app was open: the offline copy is gone, and so may be your own documents and the audit log. ' +
    'SkyCite still works while online; reload the page to store the offline copy again.',
  quota: (quota: number | null) =>
    `There is not enough storage space for SkyCite’s offline copy (it needs about ${Math.round(OFFLINE_COPY_BYTES / 1024 ** 2)} MB${quota !== null ? `; the browser allows ${Math.max(1, Math.round(quota / 1024 ** 2))} MB` : ''}). ` +
    'SkyCite works while online. Free some space on the device, then choose Settings → Repair offline copy.',
  installFailed:
    'SkyCite could not store its offline copy on this device (a download failed). It works while online; reload later or choose Settings → Repair offline copy.',
};

const removedCopy = (what: string) => `SkyCite found a damaged copy of ${what} on this device and removed it; its verified offline copy is used instead.`;

/** What a finished check and repair means for the user. */
export function describeHeal(r: HealResult): { phase: RepairPhase; message: string | null } {
  // copies in transformers.js' cache (or another runtime cache) are named like the files they copy
  const damaged = [...r.check.damaged.map((d) => d.url), ...r.check.damagedElsewhere.map((c) => c.file)];
  const what = describeAssets(damaged);
  if (!r.check.available) return { phase: 'idle', message: null };
  if (r.refetched === null) {
    // offline: a damaged copy was evicted now, or earlier (then it is missing)
    const bad = [...damaged, ...r.check.missing.map((m) => m.url)];
    if (!bad.length) return { phase: 'idle', message: null };
    if (!r.check.damaged.length && !r.check.missing.length) return { phase: 'done', message: removedCopy(what) };
    return {
      phase: 'waiting-online',
      message: `Part of SkyCite’s offline copy on this device is damaged (${describeAssets(bad)}). SkyCite will repair itself the next time this device is online. Your own documents, settings and audit log are not affected.`,
    };
  }
  if (r.refetched.failed.length) {
    const failed = describeAssets(r.refetched.failed.map((f) => f.url));
    return {
      phase: 'failed',
      message: `SkyCite could not repair ${failed}: the server did not deliver an intact copy. Try again later; your own documents, settings and audit log are not affected.`,
    };
  }
  if (!damaged.length && !r.check.missing.length) return { phase: 'idle', message: null };
  // only a library's own copy was damaged: removed, and the intact offline copy is used instead
  if (!r.check.damaged.length && !r.check.missing.length) return { phase: 'done', message: removedCopy(what) };
  return {
    phase: 'done',
    message: damaged.length ? `SkyCite found ${what} damaged on this device and downloaded a verified copy.` : 'SkyCite completed its offline copy.',
  };
}

export interface CopyEnv extends RepairEnv {
  /** Default: navigator.serviceWorker.getRegistration(). */
  getRegistration?: () => Promise<unknown>;
}

export class OfflineCopyStatus {
  state: CopyState = $state('none');
  /** The problem in the user's words (failed, lost). */
  problem: string | null = $state(null);
  repair: { phase: RepairPhase; message: string | null; progress: { done: number; total: number } | null } = $state({
    phase: 'idle',
    message: null,
    progress: null,
  });
  /** The notice of a page that reloaded itself (an update, a missing chunk); dismissible. */
  notice: string | null = $state(null);
  /** Whether this page came from the offline copy (a service worker controlled it when it loaded). */
  readonly controlled: boolean;
  updater: PwaUpdater | null = null;
  private autoRepairs = 0;
  private watching = false;
  private waitingOnline: (() => void) | null = null;

  constructor(private readonly env: CopyEnv = {}) {
    this.notice = takeReloadNotice();
    const nav = (globalThis as { navigator?: { serviceWorker?: { controller?: unknown } } }).navigator;
    this.controlled = nav?.serviceWorker?.controller != null;
  }

  /** Whether this device holds the offline copy: the page came from it, or it is stored now. */
  get stored(): boolean {
    return this.controlled || this.state === 'ready';
  }

  /** Follow the service worker's install: saving → ready, or failed with the reason. */
  follow(updater: PwaUpdater): void {
    this.updater = updater;
    this.state = 'saving';
    this.problem = null;
    updater.offlineReady.then(
      () => {
        this.state = 'ready';
        this.watchForLoss();
      },
      async () => {
        this.state = 'failed';
        this.problem = await this.failureProblem();
      },
    );
  }

  /** Why the install failed, in the user's words: the storage is full, or a download failed. */
  private async failureProblem(): Promise<string> {
    const est = await estimateStorage().catch(() => null);
    const small =
      est !== null && est.quota !== null && (est.quota < OFFLINE_COPY_BYTES * 1.2 || (est.usage !== null && est.quota - est.usage < OFFLINE_COPY_BYTES));
    // the estimate does not always show an enforced quota: try the space for real
    const full = small || (await hasRoomFor(OFFLINE_COPY_BYTES).catch(() => null)) === false;
    return full ? COPY_MESSAGES.quota(small ? (est?.quota ?? null) : null) : COPY_MESSAGES.installFailed;
  }

  /**
   * Whether the service worker and its precache are still there: false once site data was cleared
   * (the registration gone, or the precache gone or without its list of files — a running service
   * worker re-creates an empty cache of the same name on its next request).
   */
  async stillStored(): Promise<boolean> {
    const g = globalThis as { navigator?: { serviceWorker?: { getRegistration(): Promise<unknown> } }; caches?: CachesLike };
    const getReg = this.env.getRegistration ?? (g.navigator?.serviceWorker ? () => g.navigator!.serviceWorker!.getRegistration() : null);
    const caches = 'caches' in this.env ? this.env.caches : g.caches;
    try {
      if (getReg && !(await getReg())) return false;
      if (!caches) return true;
      const name = (await caches.keys()).find((n) => n.startsWith(WORKBOX_PRECACHE_PREFIX));
      if (!name) return false;
      const keys = await (await caches.open(name)).keys();
      return keys.some((k) => k.url.includes(`/${INTEGRITY_FILE}`));
    } catch {
      return true; // unknown: claim nothing
    }
  }

  /** Check now (and every `everyMs`, on focus and when the tab is shown again) that the offline copy is still stored. */
  watchForLoss(everyMs = 15_000): void {
    if (this.watching) return;
    this.watching = true;
    const check = async () => {
      if (this.state !== 'ready') return;
      if (!(await this.stillStored())) {
        this.state = 'lost';
        this.problem = COPY_MESSAGES.lost;
      }
    };
    const g = globalThis as {
      addEventListener?: (t: string, f: () => void) => void;
      document?: { addEventListener(t: string, f: () => void): void };
      navigator?: { serviceWorker?: { addEventListener(t: string, f: () => void): void } };
    };
    g.addEventListener?.('focus', () => void check());
    g.document?.addEventListener('visibilitychange', () => void check());
    // the service worker unregistered under the page (site data cleared) changes its controller
    g.navigator?.serviceWorker?.addEventListener('controllerchange', () => void check());
    const timer = setInterval(() => void check(), everyMs);
    (timer as { unref?: () => void }).unref?.();
  }

  /**
   * The built-in index failed to load: check the offline copy, evict what is damaged and, online,
   * download it again and `retry` loading; offline, say so and repair when the device is online.
   * At most two automatic repairs per page (a server that keeps delivering damaged files is reported).
   */
  async healAfterFailure(retry: () => Promise<void>): Promise<void> {
    if (this.repair.phase === 'checking' || this.repair.phase === 'repairing' || this.autoRepairs >= 2) return;
    this.autoRepairs++;
    await this.run(false, retry);
  }

  /** Settings → Repair offline copy: download every file of the offline copy again (IndexedDB untouched). */
  async repairAll(retry?: () => Promise<void>): Promise<void> {
    if (this.repair.phase === 'checking' || this.repair.phase === 'repairing') return;
    if ((this.state === 'failed' || this.state === 'lost' || this.state === 'none') && this.updater && !(await this.stillStored())) {
      // no offline copy to repair: store it anew (a new install), and say how that went
      this.repair = { phase: 'repairing', message: 'Storing the offline copy again…', progress: null };
      this.state = 'saving';
      this.problem = null;
      try {
        await this.updater.retryInstall();
        this.state = 'ready';
        this.repair = {
          phase: 'done',
          message: 'The offline copy is stored again: SkyCite works without a connection. Your own documents, settings and audit log were not touched.',
          progress: null,
        };
        this.watchForLoss();
      } catch {
        this.state = 'failed';
        this.problem = await this.failureProblem();
        this.repair = { phase: 'failed', message: this.problem, progress: null };
      }
      return;
    }
    await this.run(true, retry);
  }

  private async run(full: boolean, retry?: () => Promise<void>): Promise<void> {
    this.repair = {
      phase: full ? 'repairing' : 'checking',
      message: full ? 'Downloading the offline copy again…' : 'Checking SkyCite’s offline copy…',
      progress: null,
    };
    let result: HealResult;
    try {
      result = await healOfflineCopy({ full, onProgress: (done, total) => (this.repair.progress = { done, total }) }, this.env);
    } catch (e) {
      this.repair = { phase: 'failed', message: `The offline copy could not be checked: ${e instanceof Error ? e.message : String(e)}`, progress: null };
      return;
    }
    let { phase, message } = describeHeal(result);
    if (full && result.refetched && !result.refetched.failed.length) {
      phase = 'done';
      const removed = result.check.damagedElsewhere.length;
      message =
        `Offline copy repaired: ${result.refetched.restored.length} files downloaded again and verified` +
        (removed
          ? `; ${removed} damaged cop${removed === 1 ? 'y' : 'ies'} of ${describeAssets(result.check.damagedElsewhere.map((c) => c.file))} removed`
          : '') +
        '. Your own documents, settings and audit log were not touched.';
    }
    this.repair = { phase, message, progress: null };
    if (phase === 'waiting-online') this.repairWhenOnline(retry);
    if (phase === 'done' && retry) await retry();
  }

  private repairWhenOnline(retry?: () => Promise<void>): void {
    const g = globalThis as { addEventListener?: (t: string, f: () => void, o?: { once: boolean }) => void };
    if (this.waitingOnline || !g.addEventListener) return;
    this.waitingOnline = () => {
      this.waitingOnline = null;
      this.autoRepairs = 0;
      void this.run(false, retry);
    };
    g.addEventListener('online', this.waitingOnline, { once: true });
  }
}

export const offlineCopy = new OfflineCopyStatus();

/**
 * Each time the built-in index fails to load, check and repair the offline copy, then load it
 * again (a fresh page, or `app.initIndex`); `onFailure` runs first. Returns the function that stops watching.
 */
export function healOnIndexFailure(
  app: { readonly indexState: string; initIndex(): Promise<void> },
  options: { copy?: OfflineCopyStatus; onFailure?: () => void } = {},
): () => void {
  const copy = options.copy ?? offlineCopy;
  return $effect.root(() => {
    $effect(() => {
      if (app.indexState !== 'error') return;
      untrack(() => {
        // the user's own data stays reachable meanwhile (e.g. their documents, listed from the device store)
        options.onFailure?.();
        void copy.healAfterFailure(() => reloadAfterRepair(() => app.initIndex()));
      });
    });
  });
}
