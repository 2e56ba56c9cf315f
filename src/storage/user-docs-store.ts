/**
 * The user's own documents on the device (IndexedDB through `idb`): per document its
 * metadata, its extracted text, the chunks derived from it and their vectors, tagged
 * with the embedding model that computed them. A database of its own (not the audit
 * and settings one), opened where the retrieval worker runs. Nothing here leaves the device.
 */
import { StorageError } from './errors.js';
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { DocumentUnit } from '../core/ingest/documents.js';
import type { Chunk } from '../core/model/chunk.js';
import { MAX_FILE_NAME_CHARS, USER_FILE_FORMATS, validateUserDocumentForm, type UserFileFormat } from '../core/userdocs/form.js';
import type { UserDocumentVectors } from '../core/userdocs/vectors.js';
import { indexedDocumentProblem, MAX_DOCUMENT_ID_CHARS, shown, userDocumentIdProblem } from '../core/userdocs/validate.js';
import { lazyDb } from './db.js';
import { isQuotaError, isUnavailableError, mapReadError, mapWriteError, mostSpecificError, StorageOperationError, StorageUnavailableError } from './errors.js';

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
export class UserDocumentQuotaError extends StorageError {
  override readonly name = 'UserDocumentQuotaError';
  override readonly code = 'storage-quota';
  constructor(title: string, bytes: number, options?: { cause?: unknown }) {
    super(
      `The browser's storage for SkyCite is full, so “${shown(title)}” (about ${(bytes / 1048576).toFixed(1)} MB with its vectors) could not be saved and was not added. ` +
        'Nothing already stored was lost. Free space and add it again: remove one of your documents (Library → Your documents → Remove), ' +
        'export and clear the audit log (Settings → Audit log), or delete a downloaded language model (Settings).',
      options,
    );
  }
}

/** A stored document that is not loaded (damaged, or quarantined by the runtime), and why. */
export interface UserDocsProblem {
  /** The record's id as shown in `message` (cut short and cleaned when needed; see `damagedDocumentName`). */
  id: string;
  /** The record's key in the store (what `remove` takes). */
  key: IDBValidKey;
  message: string;
}

export interface UserDocsLoad {
  records: StoredUserDocument[];
  /** One entry per stored document that could not be read; the others are loaded. */
  problems: UserDocsProblem[];
}

/**
 * A new document's id is stored already (another tab stored a document with the same title since this
 * one was named) and it could not be given another: nothing was stored.
 */
export class UserDocumentIdTakenError extends StorageError {
  override readonly name = 'UserDocumentIdTakenError';
  override readonly code = 'user-document-id-taken';
  constructor(title: string) {
    super(
      `Another SkyCite tab stored a document named like “${shown(title)}” while this one was being added, so it was not stored. ` +
        'Nothing stored was changed. Add it again: it is then kept beside the other one.',
    );
  }
}

/** The document to replace is no longer stored (removed in another tab): nothing was stored. */
export class StoredDocumentMissingError extends StorageError {
  override readonly name = 'StoredDocumentMissingError';
  override readonly code = 'stored-document-missing';
  constructor(title: string) {
    super(
      `“${shown(title)}” is no longer stored on this device (it was removed in another tab), so it was not stored again. Add the file again if you need it.`,
    );
  }
}

export interface UserDocsStore {
  list(): Promise<UserDocsLoad>;
  /**
   * Store a new document under an id no stored document has, checked inside the write transaction (so
   * two tabs never overwrite each other): when `record.id` is taken, `renamed(taken)` gives the same
   * document under a free id (synchronously; null when it cannot), and that is stored. Returns the
   * record as stored. Throws UserDocumentIdTakenError when no free id is given.
   */
  add(record: StoredUserDocument, renamed?: (taken: ReadonlySet<string>) => StoredUserDocument | null): Promise<StoredUserDocument>;
  /** Store a document again under its id (re-indexed, embedded again), only if it is still stored: StoredDocumentMissingError otherwise. */
  replace(record: StoredUserDocument): Promise<void>;
  /** Store a record as it is (tests, and a record whose id was checked already). */
  put(record: StoredUserDocument): Promise<void>;
  /** Delete a stored document by its key (a damaged record's key may be any IndexedDB key). */
  remove(id: IDBValidKey): Promise<void>;
  close(): void;
}

/** A short hash (FNV-1a, 32 bits, hex) telling two long ids with the same beginning apart. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * How a damaged record is named in its message: its id when it is short, plain text, otherwise its
 * beginning (cut short, cleaned) with a hash of the whole. The Library reads this name back from the
 * message for "Remove it", so it never holds the closing quote.
 */
export function damagedDocumentName(key: IDBValidKey): string {
  const s = typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key));
  const plain = s.length > 0 && s.length <= MAX_DOCUMENT_ID_CHARS && !/[\p{Cc}\p{Cf}“”]/u.test(s);
  return plain && typeof key === 'string' ? s : `${shown(s).replace(/[“”]/g, '"')} #${shortHash(s)}`;
}

/** The message for a stored document that is not loaded; the Library offers "Remove it" for it. */
export function damagedDocumentMessage(name: string, problem: string): string {
  return `Your stored document “${name}” is damaged (${problem}) and was not loaded. Remove it and add the file again.`;
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

/**
 * Why a stored value is not a usable document, or null: the record's version, id, metadata (the
 * form's rules), text, passages, document summary and vectors (lengths and finite values). Never throws.
 */
export function storedDocumentProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'the record is not an object';
  const r = v as Partial<Record<keyof StoredUserDocument, unknown>>;
  if (r.schemaVersion !== USER_DOC_SCHEMA_VERSION) return `unknown record version ${shown(String(r.schemaVersion), 20)}`;
  const idProblem = userDocumentIdProblem(r.id);
  if (idProblem) return idProblem;
  const id = r.id as string;
  const meta = r.meta as Partial<Record<keyof UserDocumentMetaRecord, unknown>> | null | undefined;
  if (typeof meta !== 'object' || meta === null) return 'its metadata is missing';
  for (const k of ['title', 'jurisdiction', 'edition', 'fileName', 'addedAt'] as const) if (typeof meta[k] !== 'string') return `its ${k} is missing`;
  if (!USER_FILE_FORMATS.includes(meta.format as UserFileFormat)) return 'its file format is unknown';
  // the form's rules (the file name's length is not checked here: see `withinLimits`)
  const form = validateUserDocumentForm({
    fileName: 'document.txt',
    fileBytes: 1,
    title: meta.title as string,
    jurisdiction: meta.jurisdiction as string,
    edition: meta.edition as string,
  });
  if (!form.ok) return 'its title, edition or jurisdiction is not valid';
  if ((meta.addedAt as string).length > 40) return 'its date is not valid';
  const pages = r.pages;
  if (typeof pages !== 'string' && !(Array.isArray(pages) && pages.every((p) => typeof p === 'string'))) return 'its text is missing';
  return indexedDocumentProblem(id, r.chunks, r.document, r.vectors);
}

/**
 * A valid record with its file name held to the limit: documents stored before the limit existed
 * keep their text and passages (a too-long file name is not worth losing a document over).
 */
function withinLimits(r: StoredUserDocument): StoredUserDocument {
  if (r.meta.fileName.length <= MAX_FILE_NAME_CHARS) return r;
  return { ...r, meta: { ...r.meta, fileName: shown(r.meta.fileName, MAX_FILE_NAME_CHARS - 1) } };
}

/** Rough size of a record, for the quota message. */
export const recordBytes = (r: StoredUserDocument): number =>
  JSON.stringify({ p: r.pages, c: r.chunks, d: r.document }).length * 2 +
  [r.vectors.retrieval, r.vectors.summary, r.vectors.windows.vectors, r.vectors.nodes].reduce((n, v) => n + v.byteLength, 0);

export function createUserDocsStore(options: { open?: () => Promise<UserDocsDb> } = {}): UserDocsStore {
  const db = lazyDb(options.open ?? (() => openUserDocsDb()));
  type WriteTx = IDBPTransaction<UserDocsSchema, ['documents'], 'readwrite'>;
  /**
   * One write transaction: `work` runs in it, then the transaction must complete. An error of `work`
   * aborts it (nothing is stored); quota and other browser errors are mapped to typed ones.
   */
  async function write(record: StoredUserDocument, work: (tx: WriteTx) => Promise<void>): Promise<void> {
    try {
      const d = await db.get();
      const tx = d.transaction(USER_DOCS_STORE, 'readwrite');
      const done = tx.done;
      const results = await Promise.allSettled([
        work(tx).catch((e: unknown) => {
          try {
            tx.abort();
          } catch {
            // already finished
          }
          throw e;
        }),
        done,
      ]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
      const own = failed.find((e) => e instanceof StorageError);
      if (own) throw own;
      if (failed.length) throw mostSpecificError(failed);
    } catch (e) {
      if (e instanceof StorageError) throw e;
      if (isQuotaError(e)) throw new UserDocumentQuotaError(record.meta.title, recordBytes(record), { cause: e });
      throw new StorageOperationError(`store “${shown(record.meta.title)}”`, { cause: e });
    }
  }
  return {
    async list() {
      let rows: { key: IDBValidKey; value: unknown }[];
      try {
        const d = await db.get();
        const tx = d.transaction(USER_DOCS_STORE, 'readonly');
        const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
        rows = keys.map((k, i) => ({ key: k as IDBValidKey, value: values[i] }));
      } catch (e) {
        throw mapReadError(e, 'read your documents');
      }
      const out: UserDocsLoad = { records: [], problems: [] };
      for (const { key, value } of rows) {
        let problem: string | null;
        try {
          problem = storedDocumentProblem(value);
        } catch {
          problem = 'it cannot be read';
        }
        if (!problem && (value as StoredUserDocument).id !== key) problem = 'its id is not the one it is stored under';
        const name = damagedDocumentName(key);
        if (problem) out.problems.push({ id: name, key, message: damagedDocumentMessage(name, problem) });
        else out.records.push(withinLimits(value as StoredUserDocument));
      }
      return out;
    },
    async add(record, renamed) {
      let stored = record;
      await write(record, async (tx) => {
        const keys = new Set((await tx.store.getAllKeys()).filter((k): k is string => typeof k === 'string'));
        if (keys.has(record.id)) {
          // synchronous: the transaction stays open while the document is renamed
          const other = renamed?.(keys) ?? null;
          if (!other || keys.has(other.id)) throw new UserDocumentIdTakenError(record.meta.title);
          stored = other;
        }
        await tx.store.add(stored);
      });
      return stored;
    },
    async replace(record) {
      await write(record, async (tx) => {
        if ((await tx.store.getKey(record.id)) === undefined) throw new StoredDocumentMissingError(record.meta.title);
        await tx.store.put(record);
      });
    },
    async put(record) {
      await write(record, async (tx) => {
        await tx.store.put(record);
      });
    },
    async remove(id) {
      try {
        await (await db.get()).delete(USER_DOCS_STORE, id as string);
      } catch (e) {
        throw mapWriteError(e, 'the change', `remove the document “${damagedDocumentName(id)}”`);
      }
    },
    close: () => db.close(),
  };
}
