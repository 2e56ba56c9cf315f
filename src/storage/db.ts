/**
 * The user's on-device database (IndexedDB through `idb`): the audit log and the settings.
 * Nothing here leaves the device.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AuditRecord } from '../core/ask/audit-record.js';
import { isQuotaError, isUnavailableError, StorageOperationError, StorageQuotaError, StorageUnavailableError } from './errors.js';

export const USER_DB_NAME = 'skycite-user';
export const USER_DB_VERSION = 1;

export const AUDIT_STORE = 'audit';
export const SETTINGS_STORE = 'settings';
export const AUDIT_BY_TIME = 'by-time';

export interface UserDbSchema extends DBSchema {
  audit: {
    key: string;
    value: AuditRecord;
    /** [time (ISO 8601, UTC), id]: sorts by time, ties broken by id. */
    indexes: { 'by-time': [string, string] };
  };
  settings: {
    key: string;
    /** Stored as found: validated on read (see settings-store.ts). */
    value: unknown;
  };
}

export type UserDb = IDBPDatabase<UserDbSchema>;

/** Opens a database; injectable so tests can wrap the real one. */
export type UserDbOpener = () => Promise<UserDb>;

/**
 * Open (and create or upgrade) the user database. Throws StorageUnavailableError when
 * IndexedDB is missing or refuses to open (private mode, blocked site data).
 */
export async function openUserDb(name: string = USER_DB_NAME): Promise<UserDb> {
  const factory = (globalThis as { indexedDB?: IDBFactory | null }).indexedDB;
  if (factory === undefined || factory === null) {
    throw new StorageUnavailableError('IndexedDB is not available in this browser context');
  }
  let db: UserDb;
  try {
    db = await openDB<UserDbSchema>(name, USER_DB_VERSION, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          const audit = database.createObjectStore(AUDIT_STORE, { keyPath: 'id' });
          audit.createIndex(AUDIT_BY_TIME, ['time', 'id']);
          database.createObjectStore(SETTINGS_STORE);
        }
      },
    });
  } catch (e) {
    if (isQuotaError(e)) throw new StorageQuotaError('the local database', { cause: e });
    if (isUnavailableError(e)) {
      throw new StorageUnavailableError('the browser refused to open IndexedDB', { cause: e });
    }
    throw new StorageOperationError('open the database', { cause: e });
  }
  // Let a newer version of the app (another tab) upgrade the schema.
  db.addEventListener('versionchange', () => db.close());
  return db;
}

/** A lazily opened, shared connection; a failed open is retried on the next call. */
export function lazyDb<D extends { close(): void } = UserDb>(open: () => Promise<D>): { get(): Promise<D>; close(): void } {
  let pending: Promise<D> | null = null;
  return {
    get() {
      if (pending === null) {
        pending = open().catch((e: unknown) => {
          pending = null;
          throw e;
        });
      }
      return pending;
    },
    close() {
      const p = pending;
      pending = null;
      if (p) p.then((db) => db.close()).catch(() => undefined);
    },
  };
}
