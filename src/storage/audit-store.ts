/**
 * The audit log: one record per answer (Ask) or per assessment (Assess), kept on the device
 * in IndexedDB, so a user (or an inspector) can see afterwards what was asked, how it was
 * routed, what the calculator read and computed (with the table cells), what evidence was
 * retrieved with which configuration and scores, what the model was given and what it answered.
 * Fields added after the first exports are optional, so earlier exports still import.
 */
import type { AuditRecord, AuditRecordInput } from '../core/ask/audit-record.js';
import { auditRecordProblems } from '../core/ask/audit-schema.js';
import { concerns, schemaErrors } from '../core/schema/check.js';
import * as generated from '../core/schema/validators.generated.js';
import { shown } from '../core/userdocs/validate.js';
// the record types are the Ask turn's data (core/ask/audit-record.ts); the store's callers keep importing them from here
export type * from '../core/ask/audit-record.js';
import { AUDIT_BY_TIME, AUDIT_STORE, lazyDb, openUserDb, type UserDbOpener } from './db.js';
import { AuditImportError, mapReadError, mapWriteError, mostSpecificError } from './errors.js';
import { createSettingsStore } from './settings-store.js';

export interface AuditPage {
  records: AuditRecord[];
  /** Total matching records (all valid records for `list`). */
  total: number;
  /**
   * Stored records that are damaged (not the shape of an AuditRecord, see `auditRecordProblems`):
   * never listed, searched or exported, only counted; `removeDamaged` or `clear` deletes them.
   */
  damaged: number;
  /** The damaged records by their id (cut short) with their first problem: listed so the user knows which were set aside. */
  damagedRecords: DamagedAuditRecord[];
  offset: number;
  limit: number;
  hasMore: boolean;
}

/** A stored record that is not shown: its key as text (at most 60 characters) and what is wrong with it. */
export interface DamagedAuditRecord {
  id: string;
  problem: string;
}

/** Damaged records listed by name at most (the count is always complete). */
export const MAX_DAMAGED_LISTED = 50;

export interface PageOptions {
  offset?: number;
  limit?: number;
}

export const AUDIT_EXPORT_FORMAT = 'skycite-audit-log';
export const AUDIT_EXPORT_SCHEMA_VERSION = 1;

export interface AuditExport {
  format: typeof AUDIT_EXPORT_FORMAT;
  schemaVersion: number;
  exportedAt: string;
  recordCount: number;
  /** Newest first. */
  records: AuditRecord[];
}

export interface AuditStoreOptions {
  /** Database name (tests use a fresh one each). */
  dbName?: string;
  /** Opens the database; defaults to `openUserDb(dbName)`. Tests wrap it to inject failures. */
  open?: UserDbOpener;
  /**
   * Whether to keep questions out of the log; consulted on every `add`. Defaults to the
   * `keepQuestionsOutOfLog` setting of the settings store in the same database.
   */
  keepQuestionsOutOfLog?: () => boolean | Promise<boolean>;
  now?: () => Date;
  newId?: () => string;
}

export interface AuditStore {
  /** Store one record; returns it as stored (question removed if so chosen). */
  add(input: AuditRecordInput, options?: { keepQuestionOutOfLog?: boolean }): Promise<AuditRecord>;
  get(id: string): Promise<AuditRecord | undefined>;
  /** Newest first, paged. */
  list(options?: PageOptions): Promise<AuditPage>;
  /** Case-insensitive substring search over question and answer; newest first, paged. */
  search(text: string, options?: PageOptions): Promise<AuditPage>;
  /** Stored records, damaged ones included. */
  count(): Promise<number>;
  /** True when a record was deleted. */
  delete(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Delete the damaged records (those `list` counts in `damaged`); returns how many were deleted. */
  removeDamaged(): Promise<number>;
  /** All valid records with the schema version, as JSON text (damaged records are left out). */
  exportJson(): Promise<string>;
  /** The same as a downloadable Blob (application/json). */
  exportBlob(): Promise<Blob>;
  /** Add the records of an export; records whose id already exists are skipped. */
  importJson(text: string): Promise<{ added: number; skipped: number }>;
  close(): void;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 500;

function clampPage(options: PageOptions | undefined): { offset: number; limit: number } {
  const offset = Math.max(0, Math.floor(options?.offset ?? 0));
  const rawLimit = Math.floor(options?.limit ?? DEFAULT_PAGE_SIZE);
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Number.isFinite(rawLimit) ? rawLimit : DEFAULT_PAGE_SIZE));
  return { offset, limit };
}

function defaultId(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** A stored record's key as the damaged list shows it: text without control characters, at most 60 characters. */
function recordName(key: IDBValidKey): string {
  return shown(typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key)));
}

function matches(record: AuditRecord, needle: string): boolean {
  if (record.question !== null && record.question.toLowerCase().includes(needle)) return true;
  return record.answer.toLowerCase().includes(needle);
}

/**
 * Problems with one record (empty when it is the shape of an AuditRecord): checked against the audit
 * record's JSON schema (core/ask/audit-schema.ts), which names every field the audit view, its search
 * and both exports read, with its type and shape.
 */
export { auditRecordProblems };

/** True when a stored value can be listed, searched and exported as an AuditRecord. */
export function isAuditRecord(value: unknown): value is AuditRecord {
  return auditRecordProblems(value).length === 0;
}

/** An export's envelope (compiled by tools/generate-validators.ts); each record is checked against the audit record's schema. */
export const AUDIT_EXPORT_SCHEMA = {
  $id: 'skycite/audit-export',
  type: 'object',
  required: ['format', 'schemaVersion', 'records'],
  properties: {
    format: { const: AUDIT_EXPORT_FORMAT },
    schemaVersion: { type: 'number', maximum: AUDIT_EXPORT_SCHEMA_VERSION },
    records: { type: 'array' },
  },
} as const;

/** Parse and check an export; throws with the first problems found. */
export function parseAuditExport(text: string): AuditExport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new AuditImportError(`The file is not JSON: ${(e as Error).message}`);
  }
  const errors = schemaErrors(generated.auditExport, data);
  if (errors.some((e) => e.instancePath === '' && e.keyword === 'type') || concerns(errors, '', 'format')) {
    throw new AuditImportError(`The file is not a SkyCite audit log export (expected "format": "${AUDIT_EXPORT_FORMAT}").`);
  }
  const d = data as AuditExport;
  if (concerns(errors, '', 'schemaVersion')) {
    throw new AuditImportError(`The export has schema version ${String(d.schemaVersion)}; this version of SkyCite reads up to ${AUDIT_EXPORT_SCHEMA_VERSION}.`);
  }
  if (errors.length) throw new AuditImportError('The export has no "records" array.');
  d.records.forEach((rec, i) => {
    const problems = auditRecordProblems(rec);
    if (problems.length > 0) throw new AuditImportError(`Record ${i + 1} of the export is malformed: ${problems.slice(0, 3).join('; ')}.`);
  });
  return d as AuditExport;
}

export function createAuditStore(options: AuditStoreOptions = {}): AuditStore {
  const db = lazyDb(options.open ?? (() => openUserDb(options.dbName)));
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? defaultId;
  const keepOut =
    options.keepQuestionsOutOfLog ??
    (async () => {
      // The setting from the same database (load() never throws: defaults on any problem).
      const { settings } = await createSettingsStore({ open: () => db.get() }).load();
      return settings.keepQuestionsOutOfLog;
    });

  /**
   * Every valid record, newest first, and the damaged ones (by key, with their first problem). A
   * record whose time or id is not a string is not in the by-time index at all: the damaged ones are
   * read from the store itself.
   */
  async function readAll(): Promise<{ records: AuditRecord[]; damaged: number; damagedRecords: DamagedAuditRecord[] }> {
    const d = await db.get();
    const tx = d.transaction(AUDIT_STORE);
    const stored = await tx.store.count();
    const records: AuditRecord[] = [];
    let cursor = await tx.store.index(AUDIT_BY_TIME).openCursor(null, 'prev');
    while (cursor) {
      const value: unknown = cursor.value;
      if (isAuditRecord(value)) records.push(value);
      cursor = await cursor.continue();
    }
    const damagedRecords: DamagedAuditRecord[] = [];
    if (stored > records.length) {
      let all = await tx.store.openCursor();
      while (all && damagedRecords.length < MAX_DAMAGED_LISTED) {
        const problems = auditRecordProblems(all.value as unknown, 1);
        if (problems.length) damagedRecords.push({ id: recordName(all.primaryKey), problem: problems[0]! });
        all = await all.continue();
      }
    }
    await tx.done;
    return { records, damaged: stored - records.length, damagedRecords };
  }

  /** The keys of the damaged records (every stored record that is not a valid one). */
  async function damagedKeys(): Promise<IDBValidKey[]> {
    const d = await db.get();
    const keys: IDBValidKey[] = [];
    let cursor = await d.transaction(AUDIT_STORE).store.openCursor();
    while (cursor) {
      if (!isAuditRecord(cursor.value as unknown)) keys.push(cursor.primaryKey);
      cursor = await cursor.continue();
    }
    return keys;
  }

  async function putRecords(records: AuditRecord[], mode: 'add' | 'put', what: string): Promise<void> {
    let d;
    try {
      d = await db.get();
    } catch (e) {
      throw mapWriteError(e, what, `save ${what}`);
    }
    // Wait for every request and for the transaction, then report the most specific error:
    // on quota the requests reject with AbortError and the transaction with QuotaExceededError.
    let results: PromiseSettledResult<unknown>[];
    try {
      const tx = d.transaction(AUDIT_STORE, 'readwrite');
      results = await Promise.allSettled([...records.map((r) => (mode === 'add' ? tx.store.add(r) : tx.store.put(r))), tx.done]);
    } catch (e) {
      throw mapWriteError(e, what, `save ${what}`);
    }
    const errors = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
    if (errors.length > 0) {
      throw mapWriteError(mostSpecificError(errors), what, `save ${what}`);
    }
  }

  return {
    async add(input, addOptions) {
      let keep: boolean;
      try {
        keep = addOptions?.keepQuestionOutOfLog ?? (await keepOut());
      } catch {
        keep = true; // cannot tell what the user chose: err on the side of privacy
      }
      const record: AuditRecord = {
        ...input,
        id: input.id ?? newId(),
        time: input.time ?? now().toISOString(),
        question: keep ? null : input.question,
        subQueries: keep ? [] : [...input.subQueries],
        // the model's rewrite restates the question: kept out with it
        ...(input.assistance !== undefined
          ? { assistance: keep && input.assistance ? { ...input.assistance, alternatives: [], raw: '' } : input.assistance }
          : {}),
        // a draft's query is the user's description: kept out with the question
        ...(input.requirements !== undefined
          ? {
              requirements:
                keep && input.requirements
                  ? {
                      draft: { ...input.requirements.draft, query: '' },
                      ...(input.requirements.modelDraft ? { modelDraft: { ...input.requirements.modelDraft, description: '' } } : {}),
                    }
                  : input.requirements,
            }
          : {}),
      };
      await putRecords([record], 'add', 'this answer in the audit log');
      return record;
    },

    async get(id) {
      let value: unknown;
      try {
        value = await (await db.get()).get(AUDIT_STORE, id);
      } catch (e) {
        throw mapReadError(e, 'read the audit record');
      }
      // a damaged record is not returned (it is counted by `list` and removed by `removeDamaged`)
      return isAuditRecord(value) ? value : undefined;
    },

    async list(pageOptions) {
      const { offset, limit } = clampPage(pageOptions);
      try {
        // every record is read and checked: a damaged one is skipped and counted, so one bad
        // record never hides the others nor shifts the pages
        const { records: all, damaged, damagedRecords } = await readAll();
        const records = all.slice(offset, offset + limit);
        return { records, total: all.length, damaged, damagedRecords, offset, limit, hasMore: offset + records.length < all.length };
      } catch (e) {
        throw mapReadError(e, 'list the audit log');
      }
    },

    async search(text, pageOptions) {
      const { offset, limit } = clampPage(pageOptions);
      const needle = text.trim().toLowerCase();
      try {
        const { records: all, damaged, damagedRecords } = await readAll();
        const hits = needle === '' ? all : all.filter((r) => matches(r, needle));
        const records = hits.slice(offset, offset + limit);
        return { records, total: hits.length, damaged, damagedRecords, offset, limit, hasMore: offset + records.length < hits.length };
      } catch (e) {
        throw mapReadError(e, 'search the audit log');
      }
    },

    async count() {
      try {
        return await (await db.get()).count(AUDIT_STORE);
      } catch (e) {
        throw mapReadError(e, 'count the audit records');
      }
    },

    async delete(id) {
      try {
        const d = await db.get();
        const tx = d.transaction(AUDIT_STORE, 'readwrite');
        const existing = await tx.store.getKey(id);
        if (existing !== undefined) await tx.store.delete(id);
        await tx.done;
        return existing !== undefined;
      } catch (e) {
        throw mapWriteError(e, 'the change', 'delete the audit record');
      }
    },

    async clear() {
      try {
        await (await db.get()).clear(AUDIT_STORE);
      } catch (e) {
        throw mapWriteError(e, 'the change', 'clear the audit log');
      }
    },

    async removeDamaged() {
      try {
        const keys = await damagedKeys();
        if (keys.length === 0) return 0;
        const tx = (await db.get()).transaction(AUDIT_STORE, 'readwrite');
        await Promise.all([...keys.map((k) => tx.store.delete(k as string)), tx.done]);
        return keys.length;
      } catch (e) {
        throw mapWriteError(e, 'the change', 'remove the damaged audit records');
      }
    },

    async exportJson() {
      let records: AuditRecord[];
      try {
        ({ records } = await readAll());
      } catch (e) {
        throw mapReadError(e, 'export the audit log');
      }
      const data: AuditExport = {
        format: AUDIT_EXPORT_FORMAT,
        schemaVersion: AUDIT_EXPORT_SCHEMA_VERSION,
        exportedAt: now().toISOString(),
        recordCount: records.length,
        records,
      };
      return JSON.stringify(data, null, 2);
    },

    async exportBlob() {
      return new Blob([await this.exportJson()], { type: 'application/json' });
    },

    async importJson(text) {
      const data = parseAuditExport(text);
      const d = await db.get().catch((e: unknown) => {
        throw mapReadError(e, 'open the audit log');
      });
      const existing = new Set(await d.getAllKeys(AUDIT_STORE));
      // a damaged stored record is replaced by the export's copy of it
      const damaged = existing.size > 0 ? new Set(await damagedKeys()) : new Set<IDBValidKey>();
      const fresh = data.records.filter((r) => !existing.has(r.id) || damaged.has(r.id));
      if (fresh.length > 0) await putRecords(fresh, 'put', 'the imported records');
      return { added: fresh.length, skipped: data.records.length - fresh.length };
    },

    close() {
      db.close();
    },
  };
}
