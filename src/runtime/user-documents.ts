/**
 * The user's own documents in the runtime (issue 12, item 4): add, load, remove,
 * re-index and export. A document is chunked by the shared core, embedded with the
 * runtime's model (progress reported), saved in IndexedDB, then added to BM25 and
 * merged into the index the engine searches. A failed add or re-index changes
 * nothing: the index and the store only change once everything before has succeeded.
 *
 * Imports run in the background (issue 27): the texts are embedded in small batches and,
 * before each batch, the import gives the event loop a turn (so a question's message reaches
 * the worker) and waits while a question is being answered (ImportScheduler). An import can
 * be cancelled until it is being saved; a cancelled one stores nothing and leaves the index
 * as it was. Documents over IMPORT_LIMITS are refused at once, before anything is chunked.
 */
import { RuntimeError } from './errors.js';
import type { Embedder } from '../core/embedding/embedder.js';
import type { LoadedIndex } from '../core/index/load.js';
import { ingestUserDocument, markdownDocument, textToDocument } from '../core/ingest/user-document.js';
import type { Chunk } from '../core/model/chunk.js';
import type { DocumentUnit } from '../core/ingest/documents.js';
import { userDocumentId, validateUserDocumentForm, type UserFileFormat } from '../core/userdocs/form.js';
import { USER_DOCUMENT_EXPORT_FORMAT, USER_DOCUMENT_EXPORT_VERSION, type UserDocumentInput } from '../core/userdocs/export-file.js';
import { addToBm25, embedUserDocument, mergeUserDocuments, removeFromBm25, userDocumentTexts } from '../core/userdocs/user-index.js';
import { type UserDocumentVectors } from '../core/userdocs/vectors.js';
import { allFinite, shown, UserDocumentError, userDocumentIdProblem } from '../core/userdocs/validate.js';
import { StorageUnavailableError } from '../storage/errors.js';
import {
  damagedDocumentMessage,
  damagedDocumentName,
  StoredDocumentMissingError,
  USER_DOC_SCHEMA_VERSION,
  type StoredUserDocument,
  type UserDocsStore,
  type UserDocumentMetaRecord,
} from '../storage/user-docs-store.js';

export type { UserDocumentInput };

export interface UserDocumentInfo extends UserDocumentMetaRecord {
  id: string;
  chunkCount: number;
  pageStart: number | null;
  pageEnd: number | null;
  /** False when the browser's database could not be used: the document is searchable until the page is closed. */
  stored: boolean;
}

/**
 * What one document may hold, so that an import ends in reasonable time on a phone, tablet or
 * laptop: about 5 minutes of embedding in the browser. Measured with `npm run bench:import`
 * (docs/agents.md, "Imports in the background"): the production build in Chromium on WASM embeds
 * 3.5 texts/s ≈ 660 characters of prose per second on this 2-core Xeon (shared, load ≈ 13), so
 * 5 minutes ≈ 200,000 characters ≈ 1,000 texts (≈ 175 passages). Files are refused by size before
 * they are read where the size alone proves them too long; the text is counted after reading and
 * again here.
 */
export const IMPORT_LIMITS = {
  /** Characters of text (after reading the file): ≈ 80 pages of prose. */
  maxTextChars: 200_000,
  /** Pages of a PDF (its page count is known before its text is read; a denser one stops at maxTextChars). */
  maxPdfPages: 300,
  /** Bytes of a text or Markdown file: a UTF-8 character has at most 4 bytes, so a larger file has more characters than allowed. */
  maxTextFileBytes: 800_000,
  /** Bytes of an HTML file (markup around the text: 10 bytes per character of text). */
  maxHtmlFileBytes: 2_000_000,
  /** The time budget the limits come from, in minutes (said to the user). */
  budgetMinutes: 5,
} as const;

/** The limits in the user's words, said before an import and in a refusal. */
export const IMPORT_LIMITS_TEXT =
  `A document can have up to ${IMPORT_LIMITS.maxTextChars.toLocaleString('en')} characters of text (about 80 pages of prose; a PDF at most ` +
  `${IMPORT_LIMITS.maxPdfPages} pages, a text or Markdown file at most ${IMPORT_LIMITS.maxTextFileBytes / 1e6} MB, an HTML file at most ` +
  `${IMPORT_LIMITS.maxHtmlFileBytes / 1e6} MB): what a phone, tablet or laptop indexes in about ${IMPORT_LIMITS.budgetMinutes} minutes.`;

/** The texts embedded per batch: between two batches a question goes first (and Cancel is seen). */
export const IMPORT_BATCH = 4;

export interface UserDocumentProgress {
  stage: 'reading' | 'embedding' | 'saving';
  title: string;
  done: number;
  total: number;
}

export interface UserDocumentsLoad {
  documents: UserDocumentInfo[];
  /** Messages for documents that could not be loaded (the others are), or for the store itself. */
  problems: string[];
}

export { USER_DOCUMENT_EXPORT_FORMAT };

/** The Library's "Export (JSON)" file; Library → "Import an exported document" reads it back (core/userdocs/export-file.ts). */
export interface UserDocumentExport {
  format: typeof USER_DOCUMENT_EXPORT_FORMAT;
  version: typeof USER_DOCUMENT_EXPORT_VERSION;
  exportedAt: string;
  document: Omit<UserDocumentInfo, 'stored'> & { embeddingModel: string };
  /** The extracted text as it was indexed (what an import chunks and embeds again). */
  source: { fileName: string; format: UserFileFormat; pages: string[] | string };
  summary: DocumentUnit;
  chunks: Chunk[];
}

export class UserDocumentNotFoundError extends RuntimeError {
  override name = 'UserDocumentNotFoundError';
  override readonly code = 'user-document-not-found';
  constructor(id: string) {
    super(`There is no document “${shown(id)}” among your documents (it may have been removed in another tab). Reload the Library.`);
  }
}

/** The embedding model returned numbers that cannot be searched (NaN, infinity): nothing is added or changed. */
export class UserDocumentVectorsError extends RuntimeError {
  override name = 'UserDocumentVectorsError';
  override readonly code = 'user-document-vectors';
  constructor(title: string) {
    super(
      `The retrieval model returned invalid numbers for “${shown(title)}”, so it was not added or changed. ` +
        'Reload the page and try again; if it happens again, switch to the built-in retrieval model in Settings.',
    );
  }
}

/** The user cancelled the import: nothing was stored and the index is as it was. */
export class UserDocumentImportCancelledError extends RuntimeError {
  override name = 'UserDocumentImportCancelledError';
  override readonly code = 'import-cancelled';
  constructor(title: string) {
    super(`Adding “${shown(title)}” was cancelled. Nothing was stored and your library is as it was.`);
  }
}

/** A document larger than a device can index in reasonable time (IMPORT_LIMITS): refused before it is chunked. */
export class UserDocumentTooLargeError extends RuntimeError {
  override name = 'UserDocumentTooLargeError';
  override readonly code = 'user-document-too-large';
  constructor(title: string, chars: number) {
    super(
      `“${shown(title)}” has ${chars.toLocaleString('en')} characters of text; a document can have at most ${IMPORT_LIMITS.maxTextChars.toLocaleString('en')} ` +
        `(about ${IMPORT_LIMITS.budgetMinutes} minutes of indexing on a phone, tablet or laptop). Nothing was added. Split it, or add only the chapters you need.`,
    );
  }
}

/** The characters of text of a document's pages (or its one text). */
export const textChars = (pages: readonly string[] | string): number => (typeof pages === 'string' ? pages.length : pages.reduce((n, p) => n + p.length, 0));

/**
 * Questions before imports. A question's work runs in `foreground`; an import calls `turn()`
 * before each batch: it yields a macrotask (a message posted to the worker is delivered then),
 * then waits until no question's work is running.
 */
export interface ImportScheduler {
  foreground<T>(work: () => Promise<T>): Promise<T>;
  turn(): Promise<void>;
}

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export function createImportScheduler(yieldTask: () => Promise<void> = nextTask): ImportScheduler {
  let active = 0;
  let waiting: (() => void)[] = [];
  return {
    async foreground(work) {
      active++;
      try {
        return await work();
      } finally {
        if (--active === 0) {
          const wake = waiting;
          waiting = [];
          for (const w of wake) w();
        }
      }
    },
    async turn() {
      await yieldTask();
      while (active > 0) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        await yieldTask();
      }
    },
  };
}

/** One add or re-index: cancelled by the user, or past the point where it can be (saving). */
interface ImportTicket {
  title: string;
  cancelled: boolean;
  committing: boolean;
}

const vectorsFinite = (v: UserDocumentVectors): boolean => [v.retrieval, v.summary, v.windows.vectors, v.nodes].every(allFinite);

type Progress = (p: UserDocumentProgress) => void;

export interface UserDocumentsDeps {
  /** The static index (the user's documents are merged onto it). */
  base: LoadedIndex;
  embedder: Pick<Embedder, 'embed' | 'modelId' | 'dimension'>;
  /** The device store; null where there is none (Node). Opened lazily. */
  store: () => UserDocsStore | null;
  /** Called with the merged index after every change. */
  apply: (merged: LoadedIndex) => void;
  now?: () => Date;
  /** Questions before imports (default: a scheduler of its own, which no question waits on). */
  scheduler?: ImportScheduler;
}

export interface UserDocuments {
  load(onProgress?: Progress): Promise<UserDocumentsLoad>;
  list(): UserDocumentInfo[];
  add(input: UserDocumentInput, onProgress?: Progress): Promise<UserDocumentInfo>;
  remove(id: string): Promise<void>;
  reindex(id: string, onProgress?: Progress): Promise<UserDocumentInfo>;
  export(id: string): UserDocumentExport;
  /** Cancel the running and queued adds and re-indexes (not one that is being saved); false when there was none. */
  cancel(): boolean;
  /**
   * Read the device store again and follow what another tab changed: documents it added join the
   * search, documents it removed leave it. Returns the list and the problems as `load` does.
   */
  sync(onProgress?: Progress): Promise<UserDocumentsLoad>;
}

interface Entry {
  record: StoredUserDocument;
  stored: boolean;
}

/**
 * The export file of a stored document (pure: the Library also builds it straight from the device
 * store while the index cannot load).
 */
export function userDocumentExport(record: StoredUserDocument, exportedAt: Date): UserDocumentExport {
  const { stored: _stored, ...doc } = info({ record, stored: true });
  return {
    format: USER_DOCUMENT_EXPORT_FORMAT,
    version: USER_DOCUMENT_EXPORT_VERSION,
    exportedAt: exportedAt.toISOString(),
    document: { ...doc, embeddingModel: record.vectors.modelId },
    source: { fileName: record.meta.fileName, format: record.meta.format, pages: record.pages },
    summary: record.document,
    chunks: record.chunks,
  };
}

const info = ({ record: r, stored }: Entry): UserDocumentInfo => ({
  id: r.id,
  ...r.meta,
  chunkCount: r.chunks.length,
  pageStart: r.document.pageStart,
  pageEnd: r.document.pageEnd,
  stored,
});

export function createUserDocuments(deps: UserDocumentsDeps): UserDocuments {
  const { base, embedder } = deps;
  const now = deps.now ?? (() => new Date());
  const scheduler = deps.scheduler ?? createImportScheduler();
  /** The adds and re-indexes asked for and not settled yet (running or queued). */
  const tickets = new Set<ImportTicket>();
  const ticket = (title: string): ImportTicket => {
    const t = { title, cancelled: false, committing: false };
    tickets.add(t);
    return t;
  };
  const check = (t: ImportTicket | null) => {
    if (t?.cancelled) throw new UserDocumentImportCancelledError(t.title);
  };
  /** The embedder as an import uses it: a question goes first before each batch, and a cancel is seen there. */
  const paced = (t: ImportTicket | null): Pick<Embedder, 'embed' | 'modelId' | 'dimension'> => ({
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    embed: async (texts) => {
      check(t);
      await scheduler.turn();
      check(t);
      return embedder.embed(texts);
    },
  });
  const entries = new Map<string, Entry>();
  /** The damaged or quarantined records (only removal is offered for them): the name their message shows → their key in the store. */
  const damaged = new Map<string, IDBValidKey>();
  let loaded: Promise<UserDocumentsLoad> | null = null;
  // one change at a time: each operation starts after the previous one settled
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = queue.then(f, f);
    queue = run.catch(() => undefined);
    return run;
  };

  const builtInIds = new Set([...base.manifest.sources.map((s) => s.id), ...base.documents.units.map((d) => d.id)]);
  /** Ids of the damaged records' keys that are strings (never given to a new document). */
  const damagedIds = () => [...damaged.values()].filter((k): k is string => typeof k === 'string');
  const apply = () =>
    deps.apply(
      mergeUserDocuments(
        base,
        [...entries.values()].map((e) => e.record),
      ),
    );
  const get = (id: string): Entry => {
    const e = entries.get(id);
    if (!e) throw new UserDocumentNotFoundError(id);
    return e;
  };

  /** Chunk and embed: everything that can fail before anything is changed. */
  async function build(
    id: string,
    meta: StoredUserDocument['meta'],
    pages: string[] | string,
    reserved: string[],
    onProgress: Progress,
    t: ImportTicket,
  ): Promise<StoredUserDocument> {
    onProgress({ stage: 'reading', title: meta.title, done: 0, total: 1 });
    await scheduler.turn();
    check(t);
    // Markdown: its headings are marked, so each section is a passage of its own under its heading
    const { chunks, document } = ingestUserDocument(
      { id, title: meta.title, jurisdiction: meta.jurisdiction, edition: meta.edition },
      meta.format === 'markdown' ? markdownDocument(id, pages) : textToDocument(id, pages),
      reserved,
    );
    const vectors = await embedUserDocument(chunks, document, paced(t), (p) => onProgress({ stage: 'embedding', title: meta.title, ...p }), IMPORT_BATCH);
    if (!vectorsFinite(vectors)) throw new UserDocumentVectorsError(meta.title);
    await scheduler.turn();
    check(t);
    // from here on the import is saved and indexed: too late to cancel
    t.committing = true;
    return { schemaVersion: USER_DOC_SCHEMA_VERSION, id, meta, pages, chunks, document, vectors };
  }

  /**
   * Save a new document; false (kept in memory only) when the browser has no usable database. Its id
   * is checked against what is stored inside the write transaction: when another tab stored one under
   * the same id meanwhile, this one is stored beside it under the next free id (its passages renamed
   * with it, its vectors kept). Returns the record as stored. Quota and other errors are thrown.
   */
  async function saveNew(record: StoredUserDocument, onProgress: Progress): Promise<{ record: StoredUserDocument; stored: boolean }> {
    const store = deps.store();
    if (!store) return { record, stored: false };
    onProgress({ stage: 'saving', title: record.meta.title, done: 0, total: 1 });
    try {
      return { record: await store.add(record, (taken) => renamed(record, taken)), stored: true };
    } catch (e) {
      if (e instanceof StorageUnavailableError) return { record, stored: false };
      throw e;
    }
  }

  /** Save a re-indexed document over its stored copy; false when the browser has no usable database. */
  async function saveAgain(record: StoredUserDocument, onProgress: Progress): Promise<boolean> {
    const store = deps.store();
    if (!store) return false;
    onProgress({ stage: 'saving', title: record.meta.title, done: 0, total: 1 });
    try {
      await store.replace(record);
      return true;
    } catch (e) {
      if (e instanceof StorageUnavailableError) return false;
      throw e;
    }
  }

  /**
   * The same document under an id none of `taken` (the ids stored now), this tab's documents or the
   * built-in ones has: chunked again under the new id (synchronous; the texts it embeds are the same,
   * so its vectors are kept), or null when the texts would differ.
   */
  function renamed(record: StoredUserDocument, taken: ReadonlySet<string>): StoredUserDocument | null {
    const reserved = [...builtInIds, ...entries.keys(), ...damagedIds(), ...taken];
    const id = userDocumentId(record.meta.title, reserved);
    const { meta } = record;
    const { chunks, document } = ingestUserDocument(
      { id, title: meta.title, jurisdiction: meta.jurisdiction, edition: meta.edition },
      meta.format === 'markdown' ? markdownDocument(id, record.pages) : textToDocument(id, record.pages),
      reserved,
    );
    const before = userDocumentTexts(record.chunks, record.document);
    const after = userDocumentTexts(chunks, document);
    return JSON.stringify(before) === JSON.stringify(after) ? { ...record, id, chunks, document } : null;
  }

  /** Keep a stored record out of the search, with the message the Library shows beside "Remove it". */
  function quarantine(key: IDBValidKey, problem: string, problems: string[]): void {
    const name = damagedDocumentName(key);
    damaged.set(name, key);
    problems.push(damagedDocumentMessage(name, problem));
  }

  /**
   * Why a record that is valid on its own cannot join the search: an id that is a built-in
   * document's (or another reserved one), or passages whose ids are already in the index.
   */
  function conflict(record: StoredUserDocument, chunkIds: ReadonlySet<string>): string | null {
    const idProblem = userDocumentIdProblem(record.id, builtInIds);
    if (idProblem) return idProblem;
    if (record.chunks.some((c) => base.rowOf.has(c.id) || chunkIds.has(c.id))) return 'its passages have the ids of passages already in the library';
    return null;
  }

  /**
   * Merge and apply the index. Each record was checked, so this succeeds; if the merge still
   * fails, the records it fails on are quarantined one by one and the others applied, so one
   * document never leaves the search without the rest.
   */
  async function applyAll(problems: string[]): Promise<void> {
    try {
      apply();
      return;
    } catch {
      // find the records the merge refuses
    }
    const good: StoredUserDocument[] = [];
    for (const [id, e] of [...entries]) {
      try {
        mergeUserDocuments(base, [...good, e.record]);
        good.push(e.record);
      } catch {
        entries.delete(id);
        await removeFromBm25(
          base.bm25,
          e.record.chunks.map((c) => c.id),
        );
        quarantine(id, 'its passages and summary do not fit together', problems);
      }
    }
    apply();
  }

  /** Take a document out of this tab's search (its index is applied by the caller). */
  async function forget(id: string): Promise<void> {
    const e = entries.get(id);
    if (!e) return;
    entries.delete(id);
    await removeFromBm25(
      base.bm25,
      e.record.chunks.map((c) => c.id),
    );
  }

  /**
   * Read the device store into the search: every stored document not searched yet joins it (checked,
   * embedded again when stored with another model). `follow`: also take out the documents another
   * tab removed, and name the damaged records as the store has them now.
   */
  async function readStore(onProgress: Progress, follow: boolean): Promise<UserDocumentsLoad> {
    const store = deps.store();
    const problems: string[] = [];
    if (!store) return { documents: [...entries.values()].map(info), problems };
    let records: StoredUserDocument[];
    try {
      const r = await store.list();
      records = r.records;
      if (follow) {
        damaged.clear();
        const still = new Set<IDBValidKey>([...r.records.map((x) => x.id), ...r.problems.map((x) => x.key)]);
        for (const [id, e] of [...entries]) if (e.stored && !still.has(id)) await forget(id);
      }
      for (const p of r.problems) {
        damaged.set(p.id, p.key);
        problems.push(p.message);
      }
    } catch (e) {
      return { documents: [...entries.values()].map(info), problems: [(e as Error).message] };
    }
    const chunkIds = new Set([...entries.values()].flatMap((e) => e.record.chunks.map((c) => c.id)));
    for (let record of records) {
      if (entries.has(record.id)) continue; // already searched (added in this tab, or read before)
      const why = conflict(record, chunkIds);
      if (why) {
        quarantine(record.id, why, problems);
        continue;
      }
      if (record.vectors.modelId !== embedder.modelId || record.vectors.dimension !== embedder.dimension) {
        // stored with another embedding model: embed again with this one, then keep the new vectors
        try {
          const vectors = await embedUserDocument(
            record.chunks,
            record.document,
            paced(null),
            (p) => onProgress({ stage: 'embedding', title: record.meta.title, ...p }),
            IMPORT_BATCH,
          );
          if (!vectorsFinite(vectors)) throw new UserDocumentVectorsError(record.meta.title);
          record = { ...record, vectors };
        } catch (e) {
          problems.push(
            `“${shown(record.meta.title)}” could not be embedded with ${embedder.modelId} (${(e as Error).message}) and is not searchable; re-index it.`,
          );
          continue;
        }
        try {
          await store.replace(record);
        } catch (e) {
          if (e instanceof StoredDocumentMissingError) continue; // removed in another tab meanwhile
          problems.push(
            `“${shown(record.meta.title)}” was embedded again for ${embedder.modelId} but not saved (${(e as Error).message}); it will be embedded again on the next start.`,
          );
        }
      }
      try {
        addToBm25(base.bm25, record.chunks);
      } catch {
        await removeFromBm25(
          base.bm25,
          record.chunks.map((c) => c.id),
        ).catch(() => undefined);
        quarantine(record.id, 'its passages cannot be indexed', problems);
        continue;
      }
      for (const c of record.chunks) chunkIds.add(c.id);
      entries.set(record.id, { record, stored: true });
    }
    await applyAll(problems);
    return { documents: [...entries.values()].map(info), problems };
  }

  return {
    load: (onProgress = () => undefined) => (loaded ??= serial(() => readStore(onProgress, false))),

    sync: (onProgress = () => undefined) => (loaded ? serial(() => readStore(onProgress, true)) : (loaded = serial(() => readStore(onProgress, false)))),

    list: () => [...entries.values()].map(info),

    add: (input, onProgress = () => undefined) => {
      const t = ticket(input.title);
      return serial(async () => {
        check(t);
        // refused before anything is chunked (a document already in the library is re-indexed whatever its size)
        const chars = textChars(input.pages);
        if (chars > IMPORT_LIMITS.maxTextChars) throw new UserDocumentTooLargeError(input.title, chars);
        const form = validateUserDocumentForm({
          fileName: input.fileName,
          fileBytes: 1,
          title: input.title,
          jurisdiction: input.jurisdiction,
          edition: input.edition,
        });
        if (!form.ok) throw new UserDocumentError(Object.values(form.problems).join(' '));
        const taken = [...builtInIds, ...entries.keys(), ...damagedIds()];
        const id = userDocumentId(form.value.title, taken);
        const meta = {
          title: form.value.title,
          jurisdiction: form.value.jurisdiction,
          edition: form.value.edition,
          fileName: input.fileName,
          format: input.format,
          addedAt: now().toISOString(),
        };
        const built = await build(id, meta, input.pages, taken, onProgress, t);
        const { record, stored } = await saveNew(built, onProgress);
        addToBm25(base.bm25, record.chunks);
        entries.set(record.id, { record, stored });
        apply();
        return info(entries.get(record.id)!);
      }).finally(() => tickets.delete(t));
    },

    remove: (id) =>
      serial(async () => {
        const e = entries.get(id);
        const damagedKey = damaged.get(id);
        if (!e && damagedKey === undefined) throw new UserDocumentNotFoundError(id);
        // the store first: if that fails the document stays, in the index and on the device
        if (!e) await deps.store()?.remove(damagedKey!);
        else if (e.stored !== false) await deps.store()?.remove(id);
        damaged.delete(id);
        if (!e) return;
        entries.delete(id);
        await removeFromBm25(
          base.bm25,
          e.record.chunks.map((c) => c.id),
        );
        apply();
      }),

    reindex: (id, onProgress = () => undefined) => {
      const t = ticket(entries.get(id)?.record.meta.title ?? id);
      return serial(async () => {
        check(t);
        const old = get(id);
        const taken = [...builtInIds, ...[...entries.keys()].filter((k) => k !== id)];
        const record = await build(id, old.record.meta, old.record.pages, taken, onProgress, t);
        let stored: boolean;
        try {
          stored = old.stored ? await saveAgain(record, onProgress) : false;
        } catch (e) {
          if (!(e instanceof StoredDocumentMissingError)) throw e;
          // removed in another tab meanwhile: it leaves this tab's search too
          await forget(id);
          apply();
          throw new UserDocumentNotFoundError(id);
        }
        await removeFromBm25(
          base.bm25,
          old.record.chunks.map((c) => c.id),
        );
        addToBm25(base.bm25, record.chunks);
        entries.set(id, { record, stored });
        apply();
        return info(entries.get(id)!);
      }).finally(() => tickets.delete(t));
    },

    export(id) {
      return userDocumentExport(get(id).record, now());
    },

    cancel() {
      let any = false;
      for (const t of tickets) {
        if (t.committing) continue;
        t.cancelled = true;
        any = true;
      }
      return any;
    },
  };
}
