/**
 * The audit log: one record per answer (Ask) or per assessment (Assess), kept on the device
 * in IndexedDB, so a user (or an inspector) can see afterwards what was asked, how it was
 * routed, what the calculator read and computed (with the table cells), what evidence was
 * retrieved with which configuration and scores, what the model was given and what it answered.
 * Fields added after the first exports are optional, so earlier exports still import.
 */
import type { GenerationParams } from '../core/answer/config.js';
import type { GroundingReport } from '../core/answer/grounding.js';
import type { RequirementDraft } from '../core/answer/requirements.js';
import type { ModelDraft } from '../core/answer/requirements-model.js';
import type { ExportDocument } from '../core/assess/indicators/export.js';
import type { RoutePath } from '../core/assess/router.js';
import type { TraceStep } from '../core/assess/types.js';
import type { RetrievalConfig } from '../core/retrieval/config.js';
import type { Evidence, StageTrace } from '../core/retrieval/types.js';
import { AUDIT_BY_TIME, AUDIT_STORE, lazyDb, openUserDb, type UserDbOpener } from './db.js';
import { mapReadError, mapWriteError, mostSpecificError } from './errors.js';
import { createSettingsStore } from './settings-store.js';


export type AnswerMode = 'generative' | 'evidence-only';

export interface AuditEvidence {
  /** Chunk id. */
  id: string;
  /** Final score (the one evidence was ranked and cut on). */
  score: number;
  /** Score components (dense, window, summary, fused, keyword hits, reranker); absent in records before they were kept. */
  parts?: Evidence['parts'];
  /** Rank (1-based) and score of the passage in every retrieval stage whose candidate list holds it. */
  stages?: AuditStageScore[];
}

export interface AuditStageScore {
  stage: string;
  rank: number;
  score: number;
}

/** How the router sent the question (Ask). */
export interface AuditRoute {
  path: RoutePath;
  confidence: number;
  jurisdictions: string[];
  reasoning: string;
}

/** One calculator output of an Ask turn, with the table cells it was read from. */
export interface AuditCalcItem {
  target: string;
  label: string;
  status: string;
  value: string | null;
  /** Table cells (or printed rules) the value was read from, in order. */
  cells: TraceStep[];
  missing: string[];
  reason: string | null;
  notes: string[];
}

/** The SORA calculator's part of an Ask turn: what it read from the message and what it computed. */
export interface AuditCalculator {
  /** Parameters after merging a follow-up with the previous turn's (e.g. dimensionM, population, residualArc). */
  inputs: Record<string, unknown>;
  /** What was read from the message, in words. */
  readings: string[];
  items: AuditCalcItem[];
}

/** The models behind an answer: the embedding model (from the index manifest) and the generation model. */
export interface AuditModels {
  embedding: { id: string; dtype: string; sha256: string } | null;
  /**
   * WebLLM model id with the weights' repository and the compiled library (whose path carries
   * WebLLM's model version). WebLLM publishes no hash of the weights, so none is recorded.
   */
  generation: { id: string; weightsUrl: string | null; libraryUrl: string | null; source?: 'self-hosted' | 'remote' } | null;
}

/** Model-assisted retrieval: the formulations the model wrote, searched besides the question. */
export interface AuditAssistance {
  /** False when the model's reply could not be used (then only the question was searched). */
  parsed: boolean;
  alternatives: { text: string; label: string }[];
  /** The model's raw reply. */
  raw: string;
}

/**
 * The answer was written from the document agents' contexts condensed by the model (Settings →
 * "Answer from the consulted documents"): per document, whether the model's notes or its best passages
 * were used and why, and the notes kept (each held to its passage by the source check). Dropped notes
 * are counted, not stored: the model may have restated the question in them.
 */
export interface AuditAnswerContext {
  source: 'condensed documents';
  documents: { documentId: string; mode: 'model' | 'extractive'; reason: string; notes: { text: string; citations: string[] }[]; dropped: number }[];
}

/** What an Assess run produced and read. */
export interface AuditAssessment {
  /** The assessment as the JSON export writes it (inputs, results with table cells, runs, sources, coherence). */
  document: ExportDocument;
  /** Every retrieval the run made: the indicator's query, the context block it produced and its evidence with scores. */
  retrievals: { query: string; context: string; evidence: AuditEvidence[] }[];
}

/** What a Requirements draft produced: the draft as its JSON export writes it (documents consulted, candidate requirements with their sources). */
export interface AuditRequirements {
  draft: RequirementDraft;
  /** The model's candidates from the same passages, each with the source check's verdict (absent for evidence-only drafts). */
  modelDraft?: ModelDraft;
}

export interface AuditRecord {
  id: string;
  /** 'ask' (a question in the Ask view), 'assess' (an Assess run) or 'requirements' (a Requirements draft); absent in records before Assess was audited = 'ask'. */
  kind?: AuditKind;
  /** ISO 8601, UTC (`Date.prototype.toISOString`). */
  time: string;
  /** The user's question, or null when the user chose to keep questions out of the log. */
  question: string | null;
  /** Sub-queries derived from the question (emptied with the question: they restate it). */
  subQueries: string[];
  /** The retrieval configuration the answer was retrieved with (records before this was kept hold the defaults). */
  retrievalConfig: RetrievalConfig;
  trace: StageTrace[];
  evidence: AuditEvidence[];
  /** The context block exactly as given to the model (or shown, in evidence-only mode). */
  context: string;
  /** WebLLM model id; null in evidence-only mode. */
  modelId: string | null;
  /** Generation parameters (AnswerResult.params); null in evidence-only mode. */
  modelParams: GenerationParams | null;
  answer: string;
  /** Chunk ids the answer cites, in order of first appearance (AnswerResult.citations). */
  citedSources: string[];
  /** Of the cited sources, those the grounding check added to sentences the model left uncited (attribution.ts); absent in older records and when none. */
  attributedSources?: { id: string; sentence: string }[];
  /** The grounding check's report (AnswerResult.grounding); null when not run (evidence-only, failure). */
  grounding: GroundingReport | null;
  /** The model's reasoning trace (audit only, never evidence); null or '' when none. */
  reasoning: string | null;
  mode: AnswerMode;
  /** SHA-256 of the static index manifest the answer was retrieved from. */
  indexManifestSha: string;
  /** The router's decision (Ask); absent in older records and for Assess runs. */
  route?: AuditRoute | null;
  /** Calculator inputs and results with their table cells (Ask, when the router used the calculator). */
  calculator?: AuditCalculator | null;
  /** Embedding and generation models; absent in older records. */
  models?: AuditModels;
  /** The Assess run (kind 'assess'). */
  assessment?: AuditAssessment | null;
  /** The Requirements draft (kind 'requirements'); its query is emptied with the question. */
  requirements?: AuditRequirements | null;
  /** Model-assisted retrieval (Ask with a model loaded); null when not used, absent in older records. Emptied with the question. */
  assistance?: AuditAssistance | null;
  /** Set when the answer's context was the condensed documents' (null or absent: the retrieval's passages). */
  answerContext?: AuditAnswerContext | null;
}

export type AuditKind = 'ask' | 'assess' | 'requirements';

/** What the caller provides; id and time are filled in when absent. */
export type AuditRecordInput = Omit<AuditRecord, 'id' | 'time'> & { id?: string; time?: string };

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
