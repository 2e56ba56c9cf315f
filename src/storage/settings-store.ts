/**
 * User settings, validated, with defaults. Stored in the user database (settings store,
 * one key). A malformed stored value never breaks the app: each bad field falls back to
 * its default and the problem is reported.
 */
import { StorageError } from './errors.js';
import { isOfferableModelId } from '../core/model-catalog.js';
import { lazyDb, openUserDb, SETTINGS_STORE, type UserDbOpener } from './db.js';
import { mapReadError, mapWriteError } from './errors.js';

export const SETTINGS_KEY = 'user-settings';
export const SETTINGS_SCHEMA_VERSION = 1;

export interface Settings {
  schemaVersion: number;
  /** Chosen WebLLM model id; null = none chosen yet (offer the recommendation). */
  modelId: string | null;
  /** Answer from the evidence only, never with the language model. */
  evidenceOnly: boolean;
  /** Store null instead of the question (and no sub-queries) in the audit log. */
  keepQuestionsOutOfLog: boolean;
  /** Self-hosted model artifacts (https URL or a same-origin path); null = WebLLM's default hosts. */
  modelBaseUrl: string | null;
  /**
   * The retrieval model the user downloaded and chose (a vector set's model id, e.g.
   * 'google/embeddinggemma-300m'); null = the built-in one. Restored at start, from the cache.
   */
  retrievalModel: string | null;
  /**
   * With a model loaded, answer from the document agents' contexts, each condensed by the model
   * (src/core/agents/condense.ts), instead of the flat retrieval's passages. Off by default: on the
   * dev questions the agents' contexts gave the 0.5B model less consistent answers (docs/answers.md).
   */
  answerFromDocuments: boolean;
  /**
   * "Don't ask again" on the Ask view's offer of the downloadable retrieval model
   * (src/ui/ask/RetrievalModelOffer.svelte); Settings → Retrieval model still offers it.
   */
  retrievalOfferDismissed: boolean;
  /**
   * The choice made on the first visit's card (src/ui/ask/RetrievalModelOffer.svelte) or in Settings:
   * 'full' = the downloadable retrieval model (the full offline package), 'light' = the built-in one;
   * null = not chosen yet (the card offers the choice).
   */
  retrievalChoice: 'full' | 'light' | null;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  schemaVersion: SETTINGS_SCHEMA_VERSION,
  modelId: null,
  evidenceOnly: false,
  keepQuestionsOutOfLog: false,
  modelBaseUrl: null,
  retrievalModel: null,
  answerFromDocuments: false,
  retrievalOfferDismissed: false,
  retrievalChoice: null,
});

export interface SettingsLoad {
  settings: Settings;
  /** One line per field that was malformed and replaced by its default. Empty when all was fine. */
  problems: string[];
  /** 'stored', 'defaults' (nothing stored yet) or 'unavailable' (IndexedDB cannot be used). */
  source: 'stored' | 'defaults' | 'unavailable';
  /** Set when source is 'unavailable': the error to show. */
  error?: Error;
}

export class SettingsValidationError extends StorageError {
  override readonly name = 'SettingsValidationError';
  override readonly code = 'settings-invalid';
  constructor(readonly problems: string[]) {
    super(`These settings are not valid: ${problems.join('; ')}`);
  }
}

/** Null when acceptable; otherwise why not. https anywhere, http only for localhost, or a path on this site. */
export function modelBaseUrlProblem(value: string): string | null {
  const v = value.trim();
  if (v === '') return 'the model base URL is empty';
  if (v.startsWith('/') && !v.startsWith('//')) return null;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return `the model base URL "${value}" is not a URL (use https://… or a path such as /llm)`;
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]')) {
    return null;
  }
  return `the model base URL must use https (got ${url.protocol}//${url.host})`;
}

/** Validate a whole settings object; returns the cleaned settings and the problems found. */
export function validateSettings(raw: unknown): { settings: Settings; problems: string[] } {
  const settings: Settings = { ...DEFAULT_SETTINGS };
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { settings, problems: ['the stored settings are not an object; all settings were reset to their defaults'] };
  }
  const r = raw as Record<string, unknown>;
  const reset = (field: string, why: string) => problems.push(`${field}: ${why}; using the default`);

  if ('modelId' in r) {
    const v = r['modelId'];
    if (v === null) settings.modelId = null;
    else if (typeof v === 'string' && isOfferableModelId(v)) settings.modelId = v;
    else reset('modelId', `"${String(v)}" is not one of the offered models`);
  }
  for (const key of ['evidenceOnly', 'keepQuestionsOutOfLog', 'answerFromDocuments', 'retrievalOfferDismissed'] as const) {
    if (key in r) {
      const v = r[key];
      if (typeof v === 'boolean') settings[key] = v;
      else reset(key, `expected true or false, got ${JSON.stringify(v)}`);
    }
  }
  if ('modelBaseUrl' in r) {
    const v = r['modelBaseUrl'];
    if (v === null || v === '') settings.modelBaseUrl = null;
    else if (typeof v !== 'string') reset('modelBaseUrl', 'expected a URL string');
    else {
      const problem = modelBaseUrlProblem(v);
      if (problem === null) settings.modelBaseUrl = v.trim().replace(/\/+$/, '');
      else reset('modelBaseUrl', problem);
    }
  }
  if ('retrievalModel' in r) {
    const v = r['retrievalModel'];
    if (v === null) settings.retrievalModel = null;
    else if (typeof v === 'string' && /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/.test(v)) settings.retrievalModel = v;
    else reset('retrievalModel', `"${String(v)}" is not a model id (owner/name)`);
  }
  if ('retrievalChoice' in r) {
    const v = r['retrievalChoice'];
    if (v === null || v === 'full' || v === 'light') settings.retrievalChoice = v;
    else reset('retrievalChoice', `expected "full", "light" or null, got ${JSON.stringify(v)}`);
  }
  if ('schemaVersion' in r && r['schemaVersion'] !== SETTINGS_SCHEMA_VERSION) {
    problems.push(
      `schemaVersion ${JSON.stringify(r['schemaVersion'])} is not ${SETTINGS_SCHEMA_VERSION}; fields were read as version ${SETTINGS_SCHEMA_VERSION}`,
    );
  }
  return { settings, problems };
}

export interface SettingsStoreOptions {
  dbName?: string;
  open?: UserDbOpener;
}

export interface SettingsStore {
  /** Never throws: falls back to defaults and reports why. */
  load(): Promise<SettingsLoad>;
  /** Validate a change and store the merged settings; throws SettingsValidationError or a storage error. */
  update(patch: Partial<Omit<Settings, 'schemaVersion'>>): Promise<Settings>;
  /** Store the defaults. */
  reset(): Promise<Settings>;
  close(): void;
}

export function createSettingsStore(options: SettingsStoreOptions = {}): SettingsStore {
  const db = lazyDb(options.open ?? (() => openUserDb(options.dbName)));

  async function readRaw(): Promise<unknown> {
    return (await db.get()).get(SETTINGS_STORE, SETTINGS_KEY);
  }

  async function write(settings: Settings): Promise<void> {
    try {
      await (await db.get()).put(SETTINGS_STORE, settings, SETTINGS_KEY);
    } catch (e) {
      throw mapWriteError(e, 'your settings', 'save your settings');
    }
  }

  return {
    async load() {
      let raw: unknown;
      try {
        raw = await readRaw();
      } catch (e) {
        const error = mapReadError(e, 'read your settings');
        return { settings: { ...DEFAULT_SETTINGS }, problems: [], source: 'unavailable', error };
      }
      if (raw === undefined) return { settings: { ...DEFAULT_SETTINGS }, problems: [], source: 'defaults' };
      const { settings, problems } = validateSettings(raw);
      return { settings, problems, source: 'stored' };
    },

    async update(patch) {
      const current = await this.load();
      if (current.error) throw current.error;
      const merged = { ...current.settings, ...patch, schemaVersion: SETTINGS_SCHEMA_VERSION };
      const { settings, problems } = validateSettings(merged);
      if (problems.length > 0) throw new SettingsValidationError(problems);
      await write(settings);
      return settings;
    },

    async reset() {
      const settings = { ...DEFAULT_SETTINGS };
      await write(settings);
      return settings;
    },

    close() {
      db.close();
    },
  };
}
