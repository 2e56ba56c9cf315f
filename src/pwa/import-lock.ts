/**
 * Imports and updates across tabs (issue 36, item 4). Accepting a new version reloads every open tab;
 * a tab that is adding a document at that moment would lose it. So an import (add, import, re-index)
 * holds a shared Web Lock for as long as it runs, and applying an update takes the same lock
 * exclusively: it waits until every tab's import has finished (and says so), and while it is being
 * applied no tab starts a new one (it is refused with a message, nothing half-done). Where the
 * browser has no Web Locks, both run at once, as before.
 */
import { SkyCiteError } from '../core/errors.js';

/** The lock's name (one per origin: every tab of SkyCite). */
export const IMPORT_LOCK = 'skycite-import';

/** How long an update holds off new imports while the new version takes over (the page reloads well before). */
export const UPDATE_HOLD_MS = 60_000;

/** The part of the Web Locks API used here (navigator.locks; a fake one in tests). */
export interface LocksLike {
  request<T>(name: string, options: { mode: 'shared' | 'exclusive'; ifAvailable?: boolean }, callback: (lock: unknown) => Promise<T> | T): Promise<T>;
  query(): Promise<{ held?: { name?: string }[]; pending?: { name?: string }[] }>;
}

const browserLocks = (): LocksLike | null => (globalThis as { navigator?: { locks?: LocksLike } }).navigator?.locks ?? null;

/** A new version is being applied (in this tab or another): the import was not started. */
export class UpdatePendingError extends SkyCiteError {
  override name = 'UpdatePendingError';
  override readonly code = 'update-pending';
  constructor() {
    super(
      'SkyCite is being updated to its new version, which reloads every open tab in a moment, so nothing was added or changed now. ' +
        'Add it again once the page has reloaded.',
    );
  }
}

/**
 * Run an import while holding the import lock shared: an update waits until it has finished. Throws
 * UpdatePendingError, without running it, when an update is being applied or waits to be.
 */
export async function whileImporting<T>(work: () => Promise<T>, locks: LocksLike | null = browserLocks()): Promise<T> {
  if (!locks) return work();
  return locks.request(IMPORT_LOCK, { mode: 'shared', ifAvailable: true }, async (lock) => {
    if (!lock) throw new UpdatePendingError();
    return work();
  });
}

/** Whether an import runs now in some tab of this app (false where unknown). */
export async function importRunning(locks: LocksLike | null = browserLocks()): Promise<boolean> {
  if (!locks) return false;
  try {
    return ((await locks.query()).held ?? []).some((l) => l.name === IMPORT_LOCK);
  } catch {
    return false;
  }
}

/**
 * Wait until no tab runs an import, then run `apply` holding every new import off (exclusively, for
 * `holdMs` at most: the tabs reload into the new version meanwhile). `onWaiting` is called first
 * when an import is running, so the page can say what it waits for.
 */
export async function afterImports(
  apply: () => void | Promise<void>,
  options: { onWaiting?: () => void; holdMs?: number; locks?: LocksLike | null } = {},
): Promise<void> {
  const locks = options.locks !== undefined ? options.locks : browserLocks();
  if (!locks) return void (await apply());
  if (await importRunning(locks)) options.onWaiting?.();
  let applied!: () => void;
  const done = new Promise<void>((resolve) => (applied = resolve));
  void locks
    .request(IMPORT_LOCK, { mode: 'exclusive' }, async () => {
      try {
        await apply();
      } finally {
        applied();
      }
      await new Promise((resolve) => setTimeout(resolve, options.holdMs ?? UPDATE_HOLD_MS));
    })
    .catch(() => applied());
  await done;
}
