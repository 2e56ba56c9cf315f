import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openUserDb, SETTINGS_STORE } from '../../src/storage/db.js';
import { StorageQuotaError, StorageUnavailableError } from '../../src/storage/errors.js';
import { createSettingsStore, DEFAULT_SETTINGS, SETTINGS_KEY, SettingsValidationError, validateSettings } from '../../src/storage/settings-store.js';

let n = 0;
const freshName = () => `skycite-settings-test-${++n}-${Math.random().toString(36).slice(2)}`;

afterEach(() => vi.unstubAllGlobals());

async function storeRaw(dbName: string, value: unknown): Promise<void> {
  const db = await openUserDb(dbName);
  await db.put(SETTINGS_STORE, value, SETTINGS_KEY);
  db.close();
}

describe('settings store', () => {
  it('returns the defaults when nothing is stored', async () => {
    const s = createSettingsStore({ dbName: freshName() });
    const r = await s.load();
    expect(r).toEqual({ settings: { ...DEFAULT_SETTINGS }, problems: [], source: 'defaults' });
    s.close();
  });

  it('updates, validates and persists', async () => {
    const dbName = freshName();
    const s = createSettingsStore({ dbName });
    const saved = await s.update({
      modelId: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
      evidenceOnly: true,
      keepQuestionsOutOfLog: true,
      modelBaseUrl: 'https://models.example.eu/webllm/',
      retrievalModel: 'google/embeddinggemma-300m',
      answerFromDocuments: true,
    });
    expect(saved.answerFromDocuments).toBe(true);
    expect(saved.modelBaseUrl).toBe('https://models.example.eu/webllm');
    expect(saved.retrievalModel).toBe('google/embeddinggemma-300m');
    s.close();
    const again = await createSettingsStore({ dbName }).load();
    expect(again.source).toBe('stored');
    expect(again.problems).toEqual([]);
    expect(again.settings).toEqual(saved);
  });

  it('rejects invalid updates and keeps the stored settings', async () => {
    const s = createSettingsStore({ dbName: freshName() });
    await s.update({ evidenceOnly: true });
    await expect(s.update({ modelId: 'GPT-17-Ultra' })).rejects.toBeInstanceOf(SettingsValidationError);
    await expect(s.update({ modelBaseUrl: 'http://evil.example.com' })).rejects.toThrow(/https/);
    await expect(s.update({ modelBaseUrl: 'ftp://x' })).rejects.toThrow(SettingsValidationError);
    await expect(s.update({ retrievalModel: '../../etc/passwd' })).rejects.toThrow(/retrievalModel: .* is not a model id/);
    expect((await s.load()).settings.evidenceOnly).toBe(true);
    expect((await s.load()).settings.retrievalModel).toBeNull();
    expect((await s.load()).settings.modelId).toBeNull();
    await s.update({ modelBaseUrl: '/llm' });
    await s.update({ modelBaseUrl: 'http://localhost:8080/m' });
    expect(await s.reset()).toEqual({ ...DEFAULT_SETTINGS });
    s.close();
  });

  it('falls back to defaults per malformed field and reports it', async () => {
    const dbName = freshName();
    await storeRaw(dbName, {
      schemaVersion: 1,
      modelId: 'no-such-model',
      evidenceOnly: 'yes',
      keepQuestionsOutOfLog: true,
      modelBaseUrl: 42,
      answerFromDocuments: 'on',
    });
    const r = await createSettingsStore({ dbName }).load();
    expect(r.source).toBe('stored');
    expect(r.settings).toEqual({ ...DEFAULT_SETTINGS, keepQuestionsOutOfLog: true });
    expect(r.problems).toHaveLength(4);
    expect(r.problems.join('\n')).toMatch(/answerFromDocuments: expected true or false, got "on"/);
    expect(r.problems.join('\n')).toMatch(/modelId/);
    expect(r.problems.join('\n')).toMatch(/evidenceOnly/);
    expect(r.problems.join('\n')).toMatch(/modelBaseUrl/);
  });

  it('stores "Don\'t ask again" for the retrieval model offer (off by default, also for settings stored before the field existed)', async () => {
    expect(DEFAULT_SETTINGS.retrievalOfferDismissed).toBe(false);
    const dbName = freshName();
    await storeRaw(dbName, { schemaVersion: 1, evidenceOnly: true });
    const old = await createSettingsStore({ dbName }).load();
    expect(old.problems).toEqual([]);
    expect(old.settings.retrievalOfferDismissed).toBe(false);
    const s = createSettingsStore({ dbName });
    expect((await s.update({ retrievalOfferDismissed: true })).retrievalOfferDismissed).toBe(true);
    s.close();
    const again = await createSettingsStore({ dbName }).load();
    expect(again.settings).toMatchObject({ retrievalOfferDismissed: true, evidenceOnly: true });
    expect(again.problems).toEqual([]);
  });

  it('falls back to not dismissed when the stored retrievalOfferDismissed is malformed, and says so', async () => {
    const dbName = freshName();
    await storeRaw(dbName, { schemaVersion: 1, keepQuestionsOutOfLog: true, retrievalOfferDismissed: 'yes' });
    const r = await createSettingsStore({ dbName }).load();
    expect(r.settings).toEqual({ ...DEFAULT_SETTINGS, keepQuestionsOutOfLog: true });
    expect(r.problems).toEqual(['retrievalOfferDismissed: expected true or false, got "yes"; using the default']);
    await expect(createSettingsStore({ dbName }).update({ retrievalOfferDismissed: 1 as unknown as boolean })).rejects.toThrow(
      /retrievalOfferDismissed: expected true or false/,
    );
  });

  it('stores the first visit’s choice of the search model (none by default, also for settings stored before the field existed), and refuses any other value', async () => {
    expect(DEFAULT_SETTINGS.retrievalChoice).toBeNull();
    const dbName = freshName();
    await storeRaw(dbName, { schemaVersion: 1, evidenceOnly: true });
    expect((await createSettingsStore({ dbName }).load()).settings.retrievalChoice).toBeNull();
    const s = createSettingsStore({ dbName });
    expect((await s.update({ retrievalChoice: 'light' })).retrievalChoice).toBe('light');
    await expect(s.update({ retrievalChoice: 'large' as unknown as 'full' })).rejects.toThrow(/retrievalChoice: expected "full", "light" or null/);
    s.close();
    expect((await createSettingsStore({ dbName }).load()).settings.retrievalChoice).toBe('light');
  });

  it('falls back entirely when the stored value is not an object', async () => {
    for (const junk of ['a string', 7, null, [1, 2]]) {
      const dbName = freshName();
      await storeRaw(dbName, junk);
      const r = await createSettingsStore({ dbName }).load();
      expect(r.settings).toEqual({ ...DEFAULT_SETTINGS });
      expect(r.problems[0]).toMatch(/not an object/);
    }
  });

  it('validateSettings reports an unknown schema version', () => {
    const r = validateSettings({ schemaVersion: 3, evidenceOnly: true });
    expect(r.settings.evidenceOnly).toBe(true);
    expect(r.problems[0]).toMatch(/schemaVersion 3/);
  });

  it('never throws on load when IndexedDB is unavailable; update reports it', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const s = createSettingsStore({ dbName: freshName() });
    const r = await s.load();
    expect(r.source).toBe('unavailable');
    expect(r.settings).toEqual({ ...DEFAULT_SETTINGS });
    expect(r.error).toBeInstanceOf(StorageUnavailableError);
    await expect(s.update({ evidenceOnly: true })).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('maps QuotaExceededError on save to StorageQuotaError', async () => {
    const dbName = freshName();
    const s = createSettingsStore({
      open: async () => {
        const db = await openUserDb(dbName);
        return new Proxy(db, {
          get(t, p) {
            if (p === 'put') return () => Promise.reject(new DOMException('full', 'QuotaExceededError'));
            const v = Reflect.get(t, p, t);
            return typeof v === 'function' ? v.bind(t) : v;
          },
        });
      },
    });
    await expect(s.update({ evidenceOnly: true })).rejects.toBeInstanceOf(StorageQuotaError);
    expect((await s.load()).source).toBe('defaults');
  });
});
