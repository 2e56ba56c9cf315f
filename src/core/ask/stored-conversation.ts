/**
 * The Ask conversation as kept across a reload: each turn's state (turn-state.ts) as plain data and
 * the calculator's memory, under one versioned JSON schema. The schema names every field the Ask
 * views read, with its type and shape, so a damaged or foreign record is refused whole rather than
 * shown half. Compiled ahead of time by ajv (tools/generate-validators.ts → validators.generated.ts).
 */
import * as generated from '../schema/validators.generated.js';
import type { CalcMemory } from './turn.js';
import type { TurnState } from './turn-state.js';

export const CONVERSATION_VERSION = 3;

export interface StoredConversation {
  version: typeof CONVERSATION_VERSION;
  turns: TurnState[];
  memory: CalcMemory;
}

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [{ type: 'null' }, schema] }) as const;
const arrayOf = <T extends object>(items: T) => ({ type: 'array', items }) as const;

const chunk = {
  type: 'object',
  required: ['id', 'docId', 'title', 'text', 'sectionPath'],
  properties: { id: str, docId: str, title: str, text: str, sectionPath: arrayOf(str) },
};
const evidenceItem = { type: 'object', required: ['id', 'row', 'score'], properties: { id: str, row: { type: 'integer' }, score: { type: 'number' } } };
const ask = {
  type: 'object',
  required: ['retrieval', 'config', 'chunks'],
  properties: {
    retrieval: {
      type: 'object',
      required: ['evidence', 'context', 'noEvidence'],
      properties: { evidence: arrayOf(evidenceItem), context: str, noEvidence: { type: 'boolean' }, editionNote: nullableStr },
    },
    config: { type: 'object' },
    chunks: arrayOf(chunk),
    documents: {
      type: 'object',
      required: ['consulted', 'evidence', 'chunks', 'editionNote'],
      properties: {
        consulted: arrayOf({ type: 'object', required: ['id', 'title', 'kept', 'reason'] }),
        evidence: arrayOf(evidenceItem),
        chunks: arrayOf(chunk),
        editionNote: nullableStr,
      },
    },
  },
};
const display = { type: 'object', required: ['text', 'order', 'numberOf'], properties: { text: str, order: arrayOf(str), numberOf: { type: 'object' } } };
const answer = {
  type: 'object',
  required: ['status', 'answer', 'citations', 'display', 'removedCitations', 'attributed', 'wordingWarnings', 'contextIds', 'structured'],
  properties: {
    status: { enum: ['complete', 'stopped', 'truncated', 'no-context'] },
    answer: str,
    citations: arrayOf(str),
    display,
    removedCitations: arrayOf({ type: 'object', required: ['id'] }),
    attributed: arrayOf({ type: 'object', required: ['id', 'sentence'] }),
    wordingWarnings: arrayOf(str),
    contextIds: arrayOf(str),
    structured: nullable({
      type: 'object',
      required: ['claims', 'pruned', 'problem'],
      properties: { claims: { type: 'array' }, pruned: { type: 'array' }, problem: nullableStr },
    }),
  },
};
const grounding = {
  type: 'object',
  required: ['sentences', 'totals', 'verdict', 'verdictReason'],
  properties: { sentences: { type: 'array' }, totals: { type: 'object', required: ['unsupported'] }, verdict: str, verdictReason: str },
};

/** The JSON schema of a stored conversation (version 3: each turn's topic, queue and whether it asked for a SORA value). */
export const STORED_CONVERSATION_SCHEMA = {
  $id: 'skycite/stored-conversation',
  type: 'object',
  required: ['version', 'turns', 'memory'],
  properties: {
    version: { const: CONVERSATION_VERSION },
    memory: { type: 'object', required: ['params', 'targets'], properties: { params: { type: ['object', 'null'] }, targets: arrayOf(str) } },
    turns: arrayOf({
      type: 'object',
      required: [
        'question',
        'phase',
        'route',
        'retrievalQuery',
        'topic',
        'queuedFor',
        'calc',
        'calcAsked',
        'calcOffer',
        'assistance',
        'assistError',
        'ask',
        'mode',
        'noEvidence',
        'scope',
        'evidence',
        'condensed',
        'stream',
        'draft',
        'retryNotice',
        'answer',
        'grounding',
        'groundingError',
        'error',
        'audited',
        'auditError',
      ],
      properties: {
        question: str,
        // a stored turn is a finished one
        phase: { enum: ['done', 'stopped', 'error'] },
        route: nullable({
          type: 'object',
          required: ['path', 'confidence', 'reasoning', 'jurisdictions'],
          properties: { path: { enum: ['rules', 'database', 'both'] }, confidence: { type: 'number' }, reasoning: str, jurisdictions: arrayOf(str) },
        }),
        retrievalQuery: str,
        topic: arrayOf(str),
        queuedFor: { enum: ['index', 'answer', null] },
        calcAsked: { type: 'boolean' },
        calc: nullable({ type: 'object', required: ['items'], properties: { items: arrayOf({ type: 'object', required: ['target', 'status'] }) } }),
        calcOffer: nullable({ type: 'object', required: ['calc', 'why'], properties: { why: str } }),
        assistance: nullable({ type: 'object' }),
        assistError: nullableStr,
        ask: nullable(ask),
        mode: { enum: ['generative', 'evidence-only', null] },
        noEvidence: nullable({ type: 'object', required: ['why', 'detail'], properties: { why: str, detail: str } }),
        scope: nullable({ type: 'object', required: ['message', 'instrument', 'location'], properties: { message: str, instrument: str, location: str } }),
        evidence: nullable({
          type: 'object',
          required: ['text', 'passages'],
          properties: { text: str, passages: arrayOf({ type: 'object', required: ['number', 'id', 'text', 'highlights'] }) },
        }),
        condensed: nullable(arrayOf({ type: 'object', required: ['documentId', 'mode'] })),
        stream: str,
        draft: str,
        retryNotice: nullableStr,
        answer: nullable(answer),
        grounding: nullable(grounding),
        groundingError: nullableStr,
        error: nullable({ type: 'object', required: ['summary', 'action'], properties: { summary: str, action: str } }),
        audited: { type: 'boolean' },
        auditError: nullableStr,
      },
    }),
  },
} as const;

/** A stored conversation, or why it cannot be restored (another version, or damaged). */
export function parseStoredConversation(value: unknown): { ok: true; value: StoredConversation } | { ok: false; problem: 'version' | 'damaged' } {
  const version = (value as { version?: unknown } | null)?.version;
  if (version !== CONVERSATION_VERSION) return { ok: false, problem: 'version' };
  return generated.storedConversation(value) ? { ok: true, value: value as StoredConversation } : { ok: false, problem: 'damaged' };
}
