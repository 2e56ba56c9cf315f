/**
 * What the user was doing, kept across a reload and offline: the Ask conversation (each turn as it
 * was shown, with its evidence) and the Assess form's values. One record per kind in the settings
 * object store of the user database (no schema change); read back checked, never trusted: a record
 * that does not have the expected shape is dropped and said so, never shown half.
 */
import { lazyDb, openUserDb, SETTINGS_STORE, type UserDbOpener } from './db.js';
import { mapReadError, mapWriteError } from './errors.js';

export const SESSION_FORMAT_VERSION = 1;
const KEYS = { conversation: 'session-conversation', assessForm: 'session-assess-form' } as const;
export type SessionKind = keyof typeof KEYS;

/** A stored conversation: the turns as plain data (the Ask session writes and checks their shape). */
export interface StoredSession<T> {
  format: typeof SESSION_FORMAT_VERSION;
  savedAt: string;
  value: T;
}

/** A kind's schema check: a type guard, or a parse that says whether a refused value is of another version or damaged. */
export type SessionCheck<T> = ((value: unknown) => value is T) | ((value: unknown) => { ok: true; value: T } | { ok: false; problem: 'version' | 'damaged' });

export interface SessionStore {
  /**
   * The stored value, or null when none; `problem` says why a stored one was dropped. Never throws.
   * `check` is the kind's schema check: a type guard, or a parser that tells another version from damage.
   */
  load<T>(kind: SessionKind, check: SessionCheck<T>): Promise<{ value: T | null; problem: string | null }>;
  /** Throws the storage layer's errors (quota, unavailable) with their messages. */
  save<T>(kind: SessionKind, value: T): Promise<void>;
  clear(kind: SessionKind): Promise<void>;
  close(): void;
}

export function createSessionStore(options: { dbName?: string; open?: UserDbOpener; now?: () => Date } = {}): SessionStore {
  const db = lazyDb(options.open ?? (() => openUserDb(options.dbName)));
  const now = options.now ?? (() => new Date());
  return {
    async load<T>(kind: SessionKind, check: SessionCheck<T>) {
      let raw: unknown;
      try {
        raw = await (await db.get()).get(SETTINGS_STORE, KEYS[kind]);
      } catch (e) {
        return { value: null, problem: mapReadError(e, 'read your last session').message };
      }
      if (raw === undefined) return { value: null, problem: null };
      const r = raw as Partial<StoredSession<unknown>> | null;
      if (!r || typeof r !== 'object' || r.format !== SESSION_FORMAT_VERSION) {
        return { value: null, problem: 'The conversation saved before the reload was written by another version of SkyCite and was not restored.' };
      }
      const verdict = check(r.value);
      if (verdict === true || (typeof verdict === 'object' && verdict.ok))
        return { value: (verdict === true ? r.value : (verdict as { value: T }).value) as T, problem: null };
      if (typeof verdict === 'object' && !verdict.ok && verdict.problem === 'version') {
        return { value: null, problem: 'The conversation saved before the reload was written by another version of SkyCite and was not restored.' };
      }
      return { value: null, problem: 'The conversation saved before the reload is damaged and was not restored.' };
    },
    async save<T>(kind: SessionKind, value: T) {
      const record: StoredSession<T> = { format: SESSION_FORMAT_VERSION, savedAt: now().toISOString(), value };
      try {
        await (await db.get()).put(SETTINGS_STORE, record, KEYS[kind]);
      } catch (e) {
        throw mapWriteError(e, kind === 'conversation' ? 'the conversation' : 'the Assess form', 'keep it for the next visit');
      }
    },
    async clear(kind: SessionKind) {
      try {
        await (await db.get()).delete(SETTINGS_STORE, KEYS[kind]);
      } catch {
        // nothing stored, or the database is gone: nothing to clear
      }
    },
    close() {
      db.close();
    },
  };
}
