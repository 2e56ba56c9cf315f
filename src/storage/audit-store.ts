/**
 * The audit log: one record per answer (Ask) or per assessment (Assess), kept on the device
 * in IndexedDB, so a user (or an inspector) can see afterwards what was asked, how it was
 * routed, what the calculator read and computed (with the table cells), what evidence was
 * retrieved with which configuration and scores, what the model was given and what it answered.
 * Fields added after the first exports are optional, so earlier exports still import.
 */
import type { AnswerMode, AuditEvidence, AuditStageScore, AuditRoute, AuditCalcItem, AuditCalculator, AuditModels, AuditAssistance, AuditAnswerContext, AuditAssessment, AuditRequirements, AuditRecord, AuditKind, AuditRecordInput } from '../core/ask/audit-record.js';
export type { AnswerMode, AuditEvidence, AuditStageScore, AuditRoute, AuditCalcItem, AuditCalculator, AuditModels, AuditAssistance, AuditAnswerContext, AuditAssessment, AuditRequirements, AuditRecord, AuditKind, AuditRecordInput } from '../core/ask/audit-record.js';
import { AUDIT_BY_TIME, AUDIT_STORE, lazyDb, openUserDb, type UserDbOpener } from './db.js';
import { mapReadError, mapWriteError, mostSpecificError } from './errors.js';
import { createSettingsStore } from './settings-store.js';


export interface AuditPage {
  records: AuditRecord[];
  /** Total matching records (all records for `list`). */
  total: number;
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
  count(): Promise<number>;
  /** True when a record was deleted. */
  delete(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** All records with the schema version, as JSON text. */
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
  return problems;
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
    throw new Error(
      `The export has schema version ${String(d.schemaVersion)}; this version of SkyCite reads up to ${AUDIT_EXPORT_SCHEMA_VERSION}.`,
    );
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

  async function readAll(): Promise<AuditRecord[]> {
    const d = await db.get();
    const out: AuditRecord[] = [];
    let cursor = await d.transaction(AUDIT_STORE).store.index(AUDIT_BY_TIME).openCursor(null, 'prev');
    while (cursor) {
      out.push(cursor.value);
      cursor = await cursor.continue();
    }
    return out;
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
      results = await Promise.allSettled([
        ...records.map((r) => (mode === 'add' ? tx.store.add(r) : tx.store.put(r))),
        tx.done,
      ]);
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
        ...(input.assistance !== undefined ? { assistance: keep && input.assistance ? { ...input.assistance, alternatives: [], raw: '' } : input.assistance } : {}),
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
      try {
        return await (await db.get()).get(AUDIT_STORE, id);
      } catch (e) {
        throw mapReadError(e, 'read the audit record');
      }
    },

    async list(pageOptions) {
      const { offset, limit } = clampPage(pageOptions);
      try {
        const d = await db.get();
        const tx = d.transaction(AUDIT_STORE);
        const total = await tx.store.count();
        const records: AuditRecord[] = [];
        let cursor = await tx.store.index(AUDIT_BY_TIME).openCursor(null, 'prev');
        if (cursor && offset > 0) cursor = await cursor.advance(offset);
        while (cursor && records.length < limit) {
          records.push(cursor.value);
          cursor = await cursor.continue();
        }
        await tx.done;
        return { records, total, offset, limit, hasMore: offset + records.length < total };
      } catch (e) {
        throw mapReadError(e, 'list the audit log');
      }
    },

    async search(text, pageOptions) {
      const { offset, limit } = clampPage(pageOptions);
      const needle = text.trim().toLowerCase();
      try {
        const all = await readAll();
        const hits = needle === '' ? all : all.filter((r) => matches(r, needle));
        const records = hits.slice(offset, offset + limit);
        return { records, total: hits.length, offset, limit, hasMore: offset + records.length < hits.length };
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

    async exportJson() {
      let records: AuditRecord[];
      try {
        records = await readAll();
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
      const fresh = data.records.filter((r) => !existing.has(r.id));
      if (fresh.length > 0) await putRecords(fresh, 'put', 'the imported records');
      return { added: fresh.length, skipped: data.records.length - fresh.length };
    },

    close() {
      db.close();
    },
  };
}
