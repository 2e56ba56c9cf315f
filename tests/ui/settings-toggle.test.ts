/**
 * A settings checkbox whose save fails (issue 27, item 8): with the browser's storage full the
 * box goes back to the stored value and the message says why; nothing stored changes.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openUserDb, type UserDb } from '../../src/storage/db';
import { createSettingsStore } from '../../src/storage/settings-store';
import { saveCheckbox } from '../../src/ui/settings/toggle';

let n = 0;
const fresh = () => `skycite-toggle-${++n}-${Math.random().toString(36).slice(2)}`;

/** The user database, with every write refused as a full disk refuses it while `state.full`. */
function fullWhen(state: { full: boolean }, name: string) {
  return async (): Promise<UserDb> => {
    const db = await openUserDb(name);
    return new Proxy(db, {
      get(target, prop) {
        if ((prop === 'put' || prop === 'add') && state.full)
          return () => Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };
}

describe('a settings checkbox whose save fails', () => {
  it('goes back to its previous value and says the storage is full', async () => {
    const state = { full: false };
    const store = createSettingsStore({ open: fullWhen(state, fresh()) });
    await store.update({ evidenceOnly: false });
    state.full = true;
    const box = { checked: true }; // the user ticked it: the browser ticks the box before the save
    const message = await saveCheckbox(box, false, (v) => store.update({ evidenceOnly: v }));
    expect(box.checked).toBe(false);
    expect(message).toMatch(/storage for SkyCite is full, so your settings could not be saved/);
    expect(message).toMatch(/The setting was not changed: it is still off\.$/);
    state.full = false;
    expect((await store.load()).settings.evidenceOnly).toBe(false);
    store.close();
  });

  it('keeps the new value when the save succeeds', async () => {
    const store = createSettingsStore({ dbName: fresh() });
    const box = { checked: true };
    expect(await saveCheckbox(box, false, (v) => store.update({ keepQuestionsOutOfLog: v }))).toBeNull();
    expect(box.checked).toBe(true);
    expect((await store.load()).settings.keepQuestionsOutOfLog).toBe(true);
    store.close();
  });
});
