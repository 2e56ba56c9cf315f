/**
 * The audit log: one record per answer (Ask) or per assessment (Assess), kept on the device
 * in IndexedDB, so a user (or an inspector) can see afterwards what was asked, how it was
 * routed, what the calculator read and computed (with the table cells), what evidence was
 * retrieved with which configuration and scores, what the model was given and what it answered.
 * Fields added after the first exports are optional, so earlier exports still import.
 */
import type { AuditRecord, AuditKind, AuditRecordInput } from '../core/ask/audit-record.js';
// the record types are the Ask turn's data (core/ask/audit-record.ts); the store's callers keep importing them from here
export type * from '../core/ask/audit-record.js';
import { AUDIT_BY_TIME, AUDIT_STORE, lazyDb, openUserDb, type UserDbOpener } from './db.js';
import { mapReadError, mapWriteError, mostSpecificError } from './errors.js';
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
  offset: number;
  limit: number;
  hasMore: boolean;
}

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

function matches(record: AuditRecord, needle: string): boolean {
  if (record.question !== null && record.question.toLowerCase().includes(needle)) return true;
  return record.answer.toLowerCase().includes(needle);
}

const MODES: readonly string[] = ['generative', 'evidence-only'];
const AUDIT_KINDS: readonly AuditKind[] = ['ask', 'assess', 'requirements'];

/** Problems with one record of an export (empty when it looks like an AuditRecord). */
export function auditRecordProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['not an object'];
  const r = value as Record<string, unknown>;
  const problems: string[] = [];
  const str = (k: string) => {
    if (typeof r[k] !== 'string') problems.push(`${k} must be a string`);
  };
  const strOrNull = (k: string) => {
    if (typeof r[k] !== 'string' && r[k] !== null) problems.push(`${k} must be a string or null`);
  };
  const arr = (k: string) => {
    if (!Array.isArray(r[k])) problems.push(`${k} must be an array`);
  };
  str('id');
  str('time');
  if (typeof r['time'] === 'string' && Number.isNaN(Date.parse(r['time']))) problems.push('time must be an ISO date');
  strOrNull('question');
  arr('subQueries');
  if (typeof r['retrievalConfig'] !== 'object' || r['retrievalConfig'] === null) problems.push('retrievalConfig must be an object');
  arr('trace');
  arr('evidence');
  if (Array.isArray(r['evidence'])) {
    for (const e of r['evidence'] as unknown[]) {
      const ev = e as { id?: unknown; score?: unknown } | null;
      if (typeof ev !== 'object' || ev === null || typeof ev.id !== 'string' || typeof ev.score !== 'number') {
        problems.push('evidence entries must be {id: string, score: number}');
        break;
      }
    }
  }
  str('context');
  strOrNull('modelId');
  if (typeof r['modelParams'] !== 'object') problems.push('modelParams must be an object or null');
  str('answer');
  arr('citedSources');
  if (r['attributedSources'] !== undefined && !Array.isArray(r['attributedSources'])) problems.push('attributedSources must be an array when present');
  if (typeof r['grounding'] !== 'object') problems.push('grounding must be an object or null');
  strOrNull('reasoning');
  if (typeof r['mode'] !== 'string' || !MODES.includes(r['mode'])) problems.push(`mode must be one of ${MODES.join(', ')}`);
  str('indexManifestSha');
  // fields added after the first exports: optional, checked when present
  if (r['kind'] !== undefined && !AUDIT_KINDS.includes(r['kind'] as AuditKind)) problems.push(`kind must be one of ${AUDIT_KINDS.join(', ')} when present`);
  const objOrNull = (k: string) => {
    if (r[k] !== undefined && typeof r[k] !== 'object') problems.push(`${k} must be an object or null when present`);
  };
  objOrNull('route');
  objOrNull('calculator');
  objOrNull('assessment');
  objOrNull('requirements');
  if (r['models'] !== undefined && (typeof r['models'] !== 'object' || r['models'] === null)) problems.push('models must be an object when present');
  problems.push(...nestedProblems(r));
  return problems;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isStrArray = (x: unknown): boolean => Array.isArray(x) && x.every((v) => typeof v === 'string');
const isStrOrNull = (x: unknown): boolean => typeof x === 'string' || x === null;

/**
 * The parts of a record the audit view and the exports read inside its fields: a record that
 * passes the top-level checks but holds, say, a route without its jurisdictions would still
 * break the list when shown, so it is refused (on import) or counted as damaged (on read).
 */
function nestedProblems(r: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (Array.isArray(r['subQueries']) && !isStrArray(r['subQueries'])) problems.push('subQueries must hold strings');
  if (Array.isArray(r['citedSources']) && !isStrArray(r['citedSources'])) problems.push('citedSources must hold strings');
  if (
    Array.isArray(r['attributedSources']) &&
    !r['attributedSources'].every((a) => isObj(a) && typeof a['id'] === 'string' && typeof a['sentence'] === 'string')
  ) {
    problems.push('attributedSources entries must be {id: string, sentence: string}');
  }
  const sa = r['structuredAnswer'];
  if (sa !== undefined && (!isObj(sa) || typeof sa['raw'] !== 'string' || !Array.isArray(sa['claims']) || !Array.isArray(sa['modelClaims']))) {
    problems.push('structuredAnswer must be {raw: string, claims: [], modelClaims: [], …} when present');
  }
  if (Array.isArray(r['trace']) && !r['trace'].every(isObj)) problems.push('trace entries must be objects');
  if (Array.isArray(r['retrievalConfig'])) problems.push('retrievalConfig must be an object');
  if (Array.isArray(r['modelParams'])) problems.push('modelParams must be an object or null');
  const g = r['grounding'];
  if (isObj(g) && (typeof g['verdict'] !== 'string' || typeof g['verdictReason'] !== 'string')) problems.push('grounding must have a verdict and its reason');
  const route = r['route'];
  if (isObj(route) && (typeof route['path'] !== 'string' || typeof route['reasoning'] !== 'string' || !isStrArray(route['jurisdictions']))) {
    problems.push('route must have a path, its reasoning and jurisdictions');
  }
  const calc = r['calculator'];
  if (isObj(calc)) {
    const items = calc['items'];
    const itemOk = (i: unknown) =>
      isObj(i) &&
      typeof i['label'] === 'string' &&
      typeof i['status'] === 'string' &&
      isStrOrNull(i['value']) &&
      Array.isArray(i['cells']) &&
      i['cells'].every(isObj);
    if (!Array.isArray(items) || !items.every(itemOk)) problems.push('calculator items must each have a label, a status, a value and the cells read');
  }
  const req = r['requirements'];
  if (isObj(req) && !(isObj(req['draft']) && Array.isArray(req['draft']['requirements'])))
    problems.push('requirements must hold a draft with its requirements');
  const models = r['models'];
  if (isObj(models)) {
    const e = models['embedding'];
    if (e !== undefined && e !== null && !(isObj(e) && typeof e['id'] === 'string' && typeof e['dtype'] === 'string' && typeof e['sha256'] === 'string')) {
      problems.push('models.embedding must be null or {id, dtype, sha256}');
    }
    const gen = models['generation'];
    if (gen !== undefined && gen !== null && !(isObj(gen) && typeof gen['id'] === 'string')) problems.push('models.generation must be null or have an id');
  }
  const ctx = r['answerContext'];
  if (ctx !== undefined && ctx !== null && !(isObj(ctx) && Array.isArray(ctx['documents']))) problems.push('answerContext must be null or list its documents');
  const assist = r['assistance'];
  if (assist !== undefined && assist !== null && !(isObj(assist) && Array.isArray(assist['alternatives'])))
    problems.push('assistance must be null or list its alternatives');
  return problems;
}

/** True when a stored value can be listed, searched and exported as an AuditRecord. */
export function isAuditRecord(value: unknown): value is AuditRecord {
  return auditRecordProblems(value).length === 0;
}

/** Parse and check an export; throws with the first problems found. */
export function parseAuditExport(text: string): AuditExport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`The file is not JSON: ${(e as Error).message}`);
  }
  const d = data as Partial<AuditExport> | null;
  if (typeof d !== 'object' || d === null || d.format !== AUDIT_EXPORT_FORMAT) {
    throw new Error(`The file is not a SkyCite audit log export (expected "format": "${AUDIT_EXPORT_FORMAT}").`);
  }
  if (typeof d.schemaVersion !== 'number' || d.schemaVersion > AUDIT_EXPORT_SCHEMA_VERSION) {
    throw new Error(`The export has schema version ${String(d.schemaVersion)}; this version of SkyCite reads up to ${AUDIT_EXPORT_SCHEMA_VERSION}.`);
  }
  if (!Array.isArray(d.records)) throw new Error('The export has no "records" array.');
  d.records.forEach((rec, i) => {
    const problems = auditRecordProblems(rec);
    if (problems.length > 0) throw new Error(`Record ${i + 1} of the export is malformed: ${problems.slice(0, 3).join('; ')}.`);
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
   * Every valid record, newest first, and how many stored records are damaged. A record whose
   * time or id is not a string is not in the by-time index at all: counted from the store's total.
   */
  async function readAll(): Promise<{ records: AuditRecord[]; damaged: number }> {
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
    await tx.done;
    return { records, damaged: stored - records.length };
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
        const { records: all, damaged } = await readAll();
        const records = all.slice(offset, offset + limit);
        return { records, total: all.length, damaged, offset, limit, hasMore: offset + records.length < all.length };
      } catch (e) {
        throw mapReadError(e, 'list the audit log');
      }
    },

    async search(text, pageOptions) {
      const { offset, limit } = clampPage(pageOptions);
      const needle = text.trim().toLowerCase();
      try {
        const { records: all, damaged } = await readAll();
        const hits = needle === '' ? all : all.filter((r) => matches(r, needle));
        const records = hits.slice(offset, offset + limit);
        return { records, total: hits.length, damaged, offset, limit, hasMore: offset + records.length < hits.length };
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
