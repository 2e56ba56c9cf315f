/**
 * The user's own documents on the device (IndexedDB through `idb`): per document its
 * metadata, its extracted text, the chunks derived from it and their vectors, tagged
 * with the embedding model that computed them. A database of its own (not the audit
 * and settings one), opened where the retrieval worker runs. Nothing here leaves the device.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { DocumentUnit } from '../core/ingest/documents.js';
import type { Chunk } from '../core/model/chunk.js';
import type { UserFileFormat } from '../core/userdocs/form.js';
import { vectorsProblem, type UserDocumentVectors } from '../core/userdocs/user-index.js';
import { lazyDb } from './db.js';
import { isQuotaError, isUnavailableError, mapReadError, mostSpecificError, StorageOperationError, StorageUnavailableError } from './errors.js';

export const USER_DOCS_DB_NAME = 'skycite-user-documents';
export const USER_DOCS_DB_VERSION = 1;
export const USER_DOCS_STORE = 'documents';
export const USER_DOC_SCHEMA_VERSION = 1;

export interface UserDocumentMetaRecord {
  title: string;
  jurisdiction: string;
  edition: string;
  fileName: string;
  format: UserFileFormat;
  /** ISO 8601, UTC. */
  addedAt: string;
}

export interface StoredUserDocument {
  schemaVersion: number;
  id: string;
  meta: UserDocumentMetaRecord;
  /** The extracted text: one string per PDF page, or the whole text (re-indexing starts from it). */
  pages: string[] | string;
  chunks: Chunk[];
  document: DocumentUnit;
  vectors: UserDocumentVectors;
}

interface UserDocsSchema extends DBSchema {
  documents: { key: string; value: StoredUserDocument };
}

export type UserDocsDb = IDBPDatabase<UserDocsSchema>;

/** The storage quota is used up: what was not saved, that nothing was lost, and what to delete. */
export class UserDocumentQuotaError extends Error {
  override readonly name = 'StorageQuotaError';
  readonly kind = 'quota' as const;
  constructor(title: string, bytes: number, options?: { cause?: unknown }) {
    super(
      `The browser's storage for SkyCite is full, so “${title}” (about ${(bytes / 1048576).toFixed(1)} MB with its vectors) could not be saved and was not added. ` +
        'Nothing already stored was lost. Free space and add it again: remove one of your documents (Library → Your documents → Remove), ' +
        'export and clear the audit log (Settings → Audit log), or delete a downloaded language model (Settings).',
      options,
    );
  }
}

export interface UserDocsLoad {
  records: StoredUserDocument[];
  /** One entry per stored document that could not be read; the others are loaded. */
  problems: { id: string; message: string }[];
}

export interface UserDocsStore {
  list(): Promise<UserDocsLoad>;
  put(record: StoredUserDocument): Promise<void>;
  remove(id: string): Promise<void>;
  close(): void;
}

export async function openUserDocsDb(name: string = USER_DOCS_DB_NAME): Promise<UserDocsDb> {
  const factory = (globalThis as { indexedDB?: IDBFactory | null }).indexedDB;
  if (factory === undefined || factory === null) throw new StorageUnavailableError('IndexedDB is not available in this browser context');
  try {
    const db = await openDB<UserDocsSchema>(name, USER_DOCS_DB_VERSION, {
      upgrade(database) {
        if (!database.objectStoreNames.contains(USER_DOCS_STORE)) database.createObjectStore(USER_DOCS_STORE, { keyPath: 'id' });
      },
    });
    db.addEventListener('versionchange', () => db.close());
    return db;
  } catch (e) {
    if (isUnavailableError(e)) throw new StorageUnavailableError('the browser refused to open IndexedDB', { cause: e });
    throw new StorageOperationError('open the documents database', { cause: e });
  }
}

/** Why a stored value is not a usable document, or null. */
export function storedDocumentProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return 'the record is not an object';
  const r = v as Partial<StoredUserDocument>;
  if (r.schemaVersion !== USER_DOC_SCHEMA_VERSION) return `unknown record version ${String(r.schemaVersion)}`;
  if (typeof r.id !== 'string' || !r.meta || typeof r.meta.title !== 'string') return 'its id or metadata is missing';
  if (!Array.isArray(r.chunks) || !r.chunks.length || !r.chunks.every((c) => c && typeof c.id === 'string' && typeof c.text === 'string' && c.docId === r.id)) {
    return 'its passages are missing or damaged';
  }
  if (!r.document || r.document.id !== r.id || !Array.isArray(r.document.sections) || !Array.isArray(r.document.chunkIds)) return 'its document summary is missing';
  if (typeof r.pages !== 'string' && !Array.isArray(r.pages)) return 'its text is missing';
  if (!r.vectors || typeof r.vectors.modelId !== 'string') return 'its vectors are missing';
  const vp = vectorsProblem({ chunks: r.chunks, document: r.document }, r.vectors, r.vectors.dimension);
  return vp;
}

/** Rough size of a record, for the quota message. */
export const recordBytes = (r: StoredUserDocument): number =>
  JSON.stringify({ p: r.pages, c: r.chunks, d: r.document }).length * 2 +
  [r.vectors.retrieval, r.vectors.summary, r.vectors.windows.vectors, r.vectors.nodes].reduce((n, v) => n + v.byteLength, 0);

export function createUserDocsStore(options: { open?: () => Promise<UserDocsDb> } = {}): UserDocsStore {
  const db = lazyDb(options.open ?? (() => openUserDocsDb()));
  return {
    async list() {
      let rows: { key: string; value: unknown }[];
      try {
        const d = await db.get();
        const tx = d.transaction(USER_DOCS_STORE, 'readonly');
        const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
        rows = keys.map((k, i) => ({ key: String(k), value: values[i] }));
      } catch (e) {
        throw mapReadError(e, 'read your documents');
      }
      const out: UserDocsLoad = { records: [], problems: [] };
      for (const { key, value } of rows) {
        const problem = storedDocumentProblem(value);
        if (problem) out.problems.push({ id: key, message: `Your stored document “${key}” is damaged (${problem}) and was not loaded. Remove it and add the file again.` });
        else out.records.push(value as StoredUserDocument);
      }
      return out;
    },
    async put(record) {
      try {
        const d = await db.get();
        const tx = d.transaction(USER_DOCS_STORE, 'readwrite');
        const results = await Promise.allSettled([tx.store.put(record), tx.done]);
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
        if (failed.length) throw mostSpecificError(failed);
      } catch (e) {
        if (isQuotaError(e)) throw new UserDocumentQuotaError(record.meta.title, recordBytes(record), { cause: e });
        if (e instanceof StorageUnavailableError || e instanceof StorageOperationError) throw e;
        throw new StorageOperationError(`store “${record.meta.title}”`, { cause: e });
      }
    },
    async remove(id) {
      try {
        await (await db.get()).delete(USER_DOCS_STORE, id);
      } catch (e) {
        throw mapReadError(e, `remove the document “${id}”`);
      }
    },
    close: () => db.close(),
  };
}
