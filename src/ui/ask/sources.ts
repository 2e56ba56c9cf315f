/**
 * The sources of one turn, for the sources panel: cited chunks with their display number
 * and the ranges of the cited passage, then the other retrieved chunks. Pure.
 */
import { numberCitations, parseCitations, stripCitations } from '../../core/answer/citations';
import type { EvidenceOnlyAnswer } from '../../core/answer/evidence-only';
import type { AnswerResult } from '../../core/answer/generation';
import type { GroundingReport } from '../../core/answer/grounding';
import type { Chunk } from '../../core/model/chunk';
import { splitSentenceSpans } from '../../core/text/sentences';
import { USER_DOCUMENT_ID_PREFIX } from '../../core/userdocs/validate';
import type { AskResult } from '../../runtime/types';
import { citedPassageRanges, type TextRange } from '../highlight';

export interface SourceItem {
  /** Display number [n]; null for retrieved chunks that were not cited. */
  number: number | null;
  chunk: Chunk;
  /** Offsets into chunk.text of the cited passage. */
  ranges: TextRange[];
  /** Cited only through the source check's attribution, never by the model itself. */
  byCheck?: boolean;
}

export interface TurnSources {
  cited: SourceItem[];
  other: SourceItem[];
}

export interface SourceInput {
  ask: AskResult | null;
  evidence?: EvidenceOnlyAnswer | null;
  answer?: AnswerResult | null;
  /** Answer text streamed so far (with [chunk-id] markers), while generating. */
  stream?: string;
  grounding?: GroundingReport | null;
}

/** Sentences of an answer that cite `id`, markers removed. */
export function claimsCiting(id: string, answerText: string, grounding: GroundingReport | null | undefined): string[] {
  if (grounding) return grounding.sentences.filter((s) => s.citations.includes(id)).map((s) => stripCitations(s.text));
  const out: string[] = [];
  for (const line of answerText.split(/\n/)) {
    for (const span of splitSentenceSpans(line)) {
      if (parseCitations(span.text).some((m) => m.ids.includes(id))) out.push(stripCitations(span.text));
    }
  }
  return out;
}

export function turnSources(input: SourceInput): TurnSources {
  const ask = input.ask;
  if (!ask) return { cited: [], other: [] };
  const byId = new Map([...ask.chunks, ...(input.evidence?.continuing ?? [])].map((c) => [c.id, c]));
  const cited: SourceItem[] = [];
  if (input.evidence && !input.evidence.noEvidence) {
    for (const p of input.evidence.passages) {
      const chunk = byId.get(p.id);
      if (chunk) cited.push({ number: p.number, chunk, ranges: p.highlights.map((h) => ({ start: h.start, end: h.end })) });
    }
  } else if (input.answer || input.stream) {
    const text = input.answer ? input.answer.answer : (input.stream ?? '');
    const order = input.answer ? input.answer.display.order : numberCitations(text).order;
    order.forEach((id, i) => {
      const chunk = byId.get(id);
      if (!chunk) return;
      const claims = claimsCiting(id, text, input.grounding);
      const byCheck = input.answer?.attributed.some((a) => a.id === id && !a.modelAlsoCites) === true;
      cited.push({ number: i + 1, chunk, ranges: citedPassageRanges(chunk.text, claims), ...(byCheck ? { byCheck } : {}) });
    });
  }
  const citedIds = new Set(cited.map((c) => c.chunk.id));
  const other = ask.chunks.filter((c) => !citedIds.has(c.id)).map((chunk) => ({ number: null, chunk, ranges: [] }));
  return { cited, other };
}

/** Is this passage from one of the user's own documents (added in the Library), not from the built-in regulation? */
export const isUserDocument = (chunk: Pick<Chunk, 'docId'>): boolean => chunk.docId.startsWith(USER_DOCUMENT_ID_PREFIX);

/** The badge of a passage from the user's own document: "your document · DE"; null for a built-in document. */
export function ownDocumentLabel(chunk: Pick<Chunk, 'docId' | 'jurisdiction'>): string | null {
  return isUserDocument(chunk) ? `your document · ${chunk.jurisdiction}` : null;
}

const ROUTE_TEXT = { rules: 'From the regulatory text', database: 'Table calculation', both: 'Table calculation + regulatory text' } as const;

/**
 * The turn's route badge: the text route says whether the cited passages are the regulatory text,
 * the user's own documents, or both (a user's document is never shown as regulation).
 */
export function routeLabel(path: keyof typeof ROUTE_TEXT, sources: TurnSources): string {
  const own = sources.cited.filter((s) => isUserDocument(s.chunk)).length;
  if (path === 'database' || own === 0) return ROUTE_TEXT[path];
  const builtIn = sources.cited.length - own;
  if (path === 'both') return builtIn ? 'Table calculation + regulatory text + your documents' : 'Table calculation + your documents';
  return builtIn ? 'From the regulatory text and your documents' : 'From your documents';
}
