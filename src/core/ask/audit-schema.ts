/**
 * The audit record's JSON schema: every field the audit view (Settings → Audit log), its search and
 * both exports (JSON, Markdown summary) read, with its type and shape, so a record that is not that
 * shape is refused whole (on import) or quarantined and listed as damaged (on read) instead of
 * breaking the list or an export. Fields added after the first exports are optional and checked when
 * present; other fields are allowed (a newer version may add some). Compiled ahead of time by ajv
 * (tools/generate-validators.ts → validators.generated.ts).
 */
import { schemaErrors, type SchemaError } from '../schema/check.js';
import * as generated from '../schema/validators.generated.js';

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const strings = { type: 'array', items: str } as const;
const arrayOf = <T extends object>(items: T) => ({ type: 'array', items }) as const;
/** An object with these required fields (and these optional ones, typed when present). */
const obj = <R extends string>(required: readonly R[], properties: Record<string, object>) => ({ type: 'object', required, properties }) as const;
/** The same, or null. */
const nullableObj = <R extends string>(required: readonly R[], properties: Record<string, object>) =>
  ({ type: ['object', 'null'], required, properties }) as const;

/** ISO 8601 date and time, as `Date.prototype.toISOString` writes it (the view formats it as a date). */
const ISO_TIME = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$';

const evidence = obj(['id', 'score'], {
  id: str,
  score: num,
  parts: { type: 'object' },
  stages: arrayOf(obj(['stage', 'rank', 'score'], { stage: str, rank: num, score: num })),
});

const cell = obj(['caption', 'row', 'column', 'cell'], { caption: str, row: str, column: str, cell: str });

/** The JSON schema of one audit record (AuditRecord, core/ask/audit-record.ts). */
export const AUDIT_RECORD_SCHEMA = {
  $id: 'skycite/audit-record',
  type: 'object',
  required: [
    'id',
    'time',
    'question',
    'subQueries',
    'retrievalConfig',
    'trace',
    'evidence',
    'context',
    'modelId',
    'modelParams',
    'answer',
    'citedSources',
    'grounding',
    'reasoning',
    'mode',
    'indexManifestSha',
  ],
  properties: {
    id: { type: 'string', pattern: '\\S' },
    kind: { enum: ['ask', 'assess', 'requirements'] },
    time: { type: 'string', pattern: ISO_TIME },
    question: nullableStr,
    subQueries: strings,
    // the view shows the dense backend, BM25, reranking and the cut (the export holds the whole configuration)
    retrievalConfig: obj([], {
      dense: obj([], { backend: str }),
      bm25: obj([], { enabled: bool }),
      rerank: obj([], { enabled: bool }),
      keep: num,
    }),
    trace: arrayOf({ type: 'object' }),
    evidence: arrayOf(evidence),
    context: str,
    modelId: nullableStr,
    modelParams: nullableObj(['temperature', 'top_p', 'max_tokens'], { temperature: num, top_p: num, max_tokens: num }),
    answer: str,
    citedSources: strings,
    userDocumentSources: strings,
    attributedSources: arrayOf(obj(['id', 'sentence'], { id: str, sentence: str, replaced: strings })),
    structuredAnswer: obj(['raw', 'claims', 'modelClaims'], {
      raw: str,
      modelClaims: arrayOf(obj(['text', 'sources'], { text: str, sources: strings })),
      claims: arrayOf(obj(['text', 'sources'], { text: str, sources: strings, supported: { type: ['boolean', 'null'] }, reason: str })),
      notInPassages: nullableStr,
      refused: bool,
      problem: nullableStr,
      pruned: arrayOf(obj(['sentence', 'ids'], { sentence: str, ids: strings })),
    }),
    quotedAnswer: obj(['quotes', 'gap', 'lead', 'claims'], {
      quotes: arrayOf(obj(['chunkId', 'unit', 'score'], { chunkId: str, unit: num, score: num, amendment: { type: ['string', 'null'] } })),
      gap: bool,
      lead: nullableStr,
      leadDropped: nullableStr,
      leadTrimmed: num,
      claims: obj(['quoted', 'written', 'distinct', 'repeated'], { quoted: num, written: num, distinct: num, repeated: num }),
    }),
    grounding: nullableObj(['verdict', 'verdictReason'], {
      verdict: str,
      verdictReason: str,
      sentences: arrayOf({ type: 'object' }),
      totals: { type: 'object' },
    }),
    reasoning: nullableStr,
    mode: { enum: ['generative', 'evidence-only'] },
    indexManifestSha: str,
    // the view shows the path, reasoning and jurisdictions; the Markdown summary the confidence
    route: nullableObj(['path', 'confidence', 'jurisdictions', 'reasoning'], { path: str, confidence: num, jurisdictions: strings, reasoning: str }),
    calculator: nullableObj(['items'], {
      inputs: { type: 'object' },
      readings: strings,
      items: arrayOf(
        obj(['label', 'status', 'value', 'cells'], {
          target: str,
          label: str,
          status: str,
          value: nullableStr,
          cells: arrayOf(cell),
          missing: strings,
          reason: nullableStr,
          notes: strings,
        }),
      ),
    }),
    models: obj([], {
      embedding: nullableObj(['id', 'dtype', 'sha256'], { id: str, dtype: str, sha256: str }),
      generation: nullableObj(['id'], { id: str, weightsUrl: nullableStr, libraryUrl: nullableStr, source: { enum: ['self-hosted', 'remote'] } }),
    }),
    assessment: nullableObj(['document', 'retrievals'], {
      document: { type: 'object' },
      retrievals: arrayOf(obj(['query', 'context', 'evidence'], { query: str, context: str, evidence: arrayOf(evidence) })),
    }),
    // the view and the summary count the draft's candidates
    requirements: nullableObj(['draft'], {
      draft: obj(['requirements'], { requirements: arrayOf({ type: 'object' }), query: str }),
      modelDraft: { type: 'object' },
    }),
    assistance: nullableObj(['alternatives'], { parsed: bool, alternatives: arrayOf(obj(['text', 'label'], { text: str, label: str })), raw: str }),
    answerContext: nullableObj(['documents'], { source: str, documents: arrayOf({ type: 'object' }) }),
    scope: nullableObj(['message', 'instrument', 'location'], { message: str, instrument: str, location: str }),
  },
} as const;

const article = (t: string): string => (t === 'null' ? 'null' : t === 'array' || t === 'object' || t === 'integer' ? `an ${t}` : `a ${t}`);

/** One schema error in words: where (the field's path) and what it must be. */
function describe(e: SchemaError): string {
  const path = e.instancePath.slice(1).replace(/\//g, '.');
  const where = path || 'the record';
  switch (e.keyword) {
    case 'type':
      return `${where} must be ${([] as unknown[])
        .concat(e.params['type'])
        .map((t) => article(String(t)))
        .join(' or ')}`;
    case 'required':
      return `${path ? `${path}.` : ''}${String(e.params['missingProperty'])} is missing`;
    case 'enum':
      return `${where} must be one of ${(e.params['allowedValues'] as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return `${where} must be an ISO 8601 date and time`;
    default:
      return `${where} ${e.message ?? 'is not valid'}`;
  }
}

/** What is wrong with a value as an audit record, in words (empty when it is one); at most `max` problems. */
export function auditRecordProblems(value: unknown, max = 20): string[] {
  return [...new Set(schemaErrors(generated.auditRecord, value).map(describe))].slice(0, max);
}
