/**
 * Imports and updates across tabs (issue 36, item 4): an update waits for every tab's import (and
 * says so), and no import starts while an update is being applied. A small lock manager with the Web
 * Locks rules the code relies on (shared and exclusive modes, first come first served, ifAvailable)
 * stands in for navigator.locks, shared by "tabs" as the browser shares it across an origin.
 */
import { describe, expect, it, vi } from 'vitest';
import { afterImports, importRunning, UpdatePendingError, whileImporting, type LocksLike } from '../../src/pwa/import-lock.js';
import { registerServiceWorker, type WorkboxLike } from '../../src/pwa/register.js';

class FakeLocks implements LocksLike {
  private held: { mode: 'shared' | 'exclusive' }[] = [];
  private queue: { mode: 'shared' | 'exclusive'; grant: () => void }[] = [];
  private grantable(mode: 'shared' | 'exclusive', queued: boolean): boolean {
    if (!queued && this.queue.length) return false;
    return mode === 'shared' ? this.held.every((h) => h.mode === 'shared') : this.held.length === 0;
  }
  private pump(): void {
    while (this.queue.length && this.grantable(this.queue[0]!.mode, true)) this.queue.shift()!.grant();
  }
  async request<T>(_name: string, options: { mode: 'shared' | 'exclusive'; ifAvailable?: boolean }, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
    const run = async () => {
      const lock = { mode: options.mode };
      this.held.push(lock);
      try {
        return await callback(lock);
      } finally {
        this.held.splice(this.held.indexOf(lock), 1);
        this.pump();
      }
    };
    if (this.grantable(options.mode, false)) return run();
    if (options.ifAvailable) return callback(null);
    await new Promise<void>((grant) => this.queue.push({ mode: options.mode, grant }));
    return run();
  }
  async query() {
    return { held: this.held.map(() => ({ name: 'skycite-import' })), pending: this.queue.map(() => ({ name: 'skycite-import' })) };
  }
}

const deferred = (): { promise: Promise<void>; resolve: () => void } => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('imports and updates across tabs', () => {
  it('an update waits until the import running in another tab has finished, and says that it waits', async () => {
    const locks = new FakeLocks();
    const importDone = deferred();
    const events: string[] = [];
    const importing = whileImporting(async () => {
      await importDone.promise;
      events.push('import stored');
    }, locks);
    expect(await importRunning(locks)).toBe(true);
    const onWaiting = vi.fn();
    const update = afterImports(() => void events.push('update applied'), { onWaiting, holdMs: 0, locks });
    await new Promise((r) => setTimeout(r, 10));
    expect(onWaiting).toHaveBeenCalledTimes(1);
    expect(events).toEqual([]);
    importDone.resolve();
    await Promise.all([importing, update]);
    expect(events).toEqual(['import stored', 'update applied']);
  });

  it('refuses a new import while an update is being applied (nothing half-done), and allows it again after', async () => {
    const locks = new FakeLocks();
    // applied; the lock is held on while the tabs reload (here 50 ms)
    await afterImports(() => undefined, { holdMs: 50, locks });
    const work = vi.fn(async () => 'added');
    await expect(whileImporting(work, locks)).rejects.toBeInstanceOf(UpdatePendingError);
    expect(work).not.toHaveBeenCalled();
    await new Promise((r) => setTimeout(r, 80));
    await expect(whileImporting(work, locks)).resolves.toBe('added');
  });

  it('applies at once where no import runs, and where the browser has no Web Locks', async () => {
    const onWaiting = vi.fn();
    const applied = vi.fn();
    await afterImports(applied, { onWaiting, holdMs: 0, locks: new FakeLocks() });
    await afterImports(applied, { onWaiting, locks: null });
    expect(applied).toHaveBeenCalledTimes(2);
    expect(onWaiting).not.toHaveBeenCalled();
    await expect(whileImporting(async () => 1, null)).resolves.toBe(1);
  });

  it('the service worker update is applied (skip waiting) only once the import has finished', async () => {
    const locks = new FakeLocks();
    const listeners: Record<string, ((e: object) => void)[]> = {};
    const wb: WorkboxLike = {
      addEventListener: (type: string, l: (e: object) => void) => void (listeners[type] ??= []).push(l),
      register: async () => undefined,
      update: async () => undefined,
      messageSkipWaiting: vi.fn(),
    } as unknown as WorkboxLike;
    const updater = (await registerServiceWorker({
      enabled: true,
      supported: true,
      createWorkbox: () => wb,
      reload: () => undefined,
      whenActive: () => new Promise(() => undefined),
      notice: () => undefined,
      channel: null,
      locks,
    }))!;
    for (const l of listeners['waiting'] ?? []) l({});
    const importDone = deferred();
    const importing = whileImporting(() => importDone.promise, locks);
    const onWaiting = vi.fn();
    const applying = updater.applyUpdate(onWaiting);
    await new Promise((r) => setTimeout(r, 10));
    expect(onWaiting).toHaveBeenCalled();
    expect(wb.messageSkipWaiting).not.toHaveBeenCalled();
    importDone.resolve();
    await importing;
    await applying;
    expect(wb.messageSkipWaiting).toHaveBeenCalledTimes(1);
  });
});
