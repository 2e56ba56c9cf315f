/**
 * Answers made of quotations: the units of the retrieved passages that answer the question, chosen
 * by the unit ranker (unit-ranker.ts), never two that say the same thing, each shown with its
 * passage, headers and page — the document's own wording, which cannot be spliced, echoed or cut.
 * When the best unit is below the ranker's answer threshold, the answer says that these passages do
 * not state it, and shows the closest ones as such. The same quotes are the evidence-only answer and
 * the ground a model's short lead is checked against.
 *
 * Pure apart from embedding units the index holds no vector for (user documents, or a segmentation
 * newer than the index).
 */
import type { Embedder } from '../embedding/embedder.js';
import { dot } from '../embedding/similarity.js';
import type { LoadedIndex, UnitVectors } from '../index/load.js';
import type { Chunk } from '../model/chunk.js';
import type { Evidence } from '../retrieval/types.js';
import { quotableUnits, segmentUnits, unitQuote, type GridLike, type TextUnit } from '../text/units.js';
import { tokenize } from '../text/tokenize.js';
import { splitSentences } from '../text/sentences.js';
import { citedIds } from '../text/citation-markers.js';
import { rankUnits, type RankedUnit, type UnitCandidate, type UnitRankerModel } from './unit-ranker.js';

export interface QuotesConfig {
  /** Passages whose units are ranked (the evidence's first). Default 5. */
  passages: number;
  /** Quotes shown at most. Default 3. */
  maxQuotes: number;
  /** A further quote must reach this share of the best one's probability. Default 0.5. */
  relativeFloor: number;
  /** Two units sharing this share of their words say the same thing (Jaccard). Default 0.8. */
  duplicateJaccard: number;
  /**
   * Units of the next part of a split passage (the same section continued) that are candidates too, when that
   * part was not retrieved: an explanation often runs on past a part boundary. Default 2 (measured: docs/answers.md).
   */
  nextPartUnits: number;
}

export const DEFAULT_QUOTES_CONFIG: QuotesConfig = { passages: 5, maxQuotes: 3, relativeFloor: 0.5, duplicateJaccard: 0.8, nextPartUnits: 2 };

/** The id of the next part of a split passage ("…/part-3" → "…/part-4"), or null. */
export const nextPartId = (chunk: Pick<Chunk, 'id' | 'part'>): string | null =>
  chunk.part && chunk.part.index < chunk.part.of ? chunk.id.replace(/part-(\d+)$/, (_, k: string) => `part-${Number(k) + 1}`) : null;

export interface Quote {
  /** The passage cited. */
  chunkId: string;
  /** The unit's number in its passage, its kind and span (offsets into the passage text). */
  n: number;
  kind: TextUnit['kind'];
  start: number;
  end: number;
  /** The unit as quoted, and its headers (table cells, footnotes). */
  text: string;
  header: string | null;
  /** The words as printed when the reading differs (amendment read, footnote number separated). */
  printed: string | null;
  footnotes: string[];
  amendment: 'read' | null;
  /** The ranker's probability that it answers. */
  score: number;
}

export interface QuotedAnswer {
  quotes: Quote[];
  /** Set when no unit reaches the answer threshold: these passages do not state the answer (the quotes are then the closest, labelled so). */
  gap: boolean;
  /** The best unit's probability and the threshold it was held to. */
  best: number;
  threshold: number;
  /** Units ranked, and units dropped as repeats of a kept one. */
  ranked: number;
  repeats: number;
}

/** A quoted unit's id, as the lead cites it and the check resolves it: the passage's id and the unit's number. */
export const unitId = (chunkId: string, n: number): string => `${chunkId}/unit-${n}`;

/** The passage id and unit number of a unit id, or null for a plain chunk id. */
export function parseUnitId(id: string): { chunkId: string; n: number } | null {
  const m = /^(.*)\/unit-(\d+)$/.exec(id);
  return m ? { chunkId: m[1]!, n: Number(m[2]) } : null;
}

/** The stored vectors of each chunk row's units (units.json is in row order). */
const rowIndex = new WeakMap<UnitVectors, Map<number, number[]>>();
function unitVectorsOfRow(units: UnitVectors, row: number): number[] {
  let byRow = rowIndex.get(units);
  if (!byRow) {
    byRow = new Map();
    for (let i = 0; i < units.count; i++) {
      const r = units.row[i]!;
      const list = byRow.get(r) ?? [];
      list.push(i);
      byRow.set(r, list);
    }
    rowIndex.set(units, byRow);
  }
  return byRow.get(row) ?? [];
}

/** The quotable units of the first passages, with the cosine of each to the question. */
export async function candidateUnits(input: {
  queryVector: Float32Array;
  chunks: readonly Chunk[];
  /** The passages' evidence entries (score and its parts), in the same order. */
  evidence: readonly Pick<Evidence, 'score' | 'parts'>[];
  index: Pick<LoadedIndex, 'rowOf' | 'units' | 'chunks'>;
  embedder: Pick<Embedder, 'embed'>;
  gridOf?: (chunk: Chunk) => GridLike | null;
  config?: QuotesConfig;
}): Promise<UnitCandidate[]> {
  const cfg = input.config ?? DEFAULT_QUOTES_CONFIG;
  // the units' own width (a vector set's index keeps the built-in model's unit vectors)
  const dim = input.index.units.count ? input.index.units.vectors.length / input.index.units.count : input.queryVector.length;
  const top = input.evidence[0] && input.evidence[0].score > 0 ? input.evidence[0].score : 1;
  const out: UnitCandidate[] = [];
  const missing: { at: number; text: string }[] = [];
  const passages = input.chunks.slice(0, cfg.passages);
  const retrieved = new Set(passages.map((c) => c.id));
  // each passage, then the first units of its next part when that part was not retrieved (the section continued)
  const sources: { chunk: Chunk; p: number; next: boolean }[] = [];
  passages.forEach((chunk, p) => {
    sources.push({ chunk, p, next: false });
    const nextId = cfg.nextPartUnits > 0 ? nextPartId(chunk) : null;
    const row = nextId && !retrieved.has(nextId) ? input.index.rowOf.get(nextId) : undefined;
    if (row !== undefined && input.index.chunks[row]) sources.push({ chunk: input.index.chunks[row]!, p, next: true });
  });
  for (const { chunk, p, next } of sources) {
    const all = quotableUnits(segmentUnits(chunk, input.gridOf?.(chunk) ?? null));
    const units = next ? all.slice(0, cfg.nextPartUnits) : all;
    const row = input.index.rowOf.get(chunk.id);
    const stored = row === undefined ? [] : unitVectorsOfRow(input.index.units, row);
    units.forEach((unit, position) => {
      const i = stored.find((k) => input.index.units.n[k] === unit.n && input.index.units.len[k] === unit.text.length);
      const cosine = i === undefined || dim !== input.queryVector.length ? NaN : dot(input.queryVector, input.index.units.vectors, i * dim);
      if (Number.isNaN(cosine)) missing.push({ at: out.length, text: unitQuote(unit) });
      const ev = input.evidence[p];
      out.push({
        chunkId: chunk.id,
        unit,
        passageRank: p + 1,
        passageShare: (ev?.score ?? 0) / top,
        passageDense: ev?.parts.dense ?? 0,
        passageWindow: ev?.parts.window ?? 0,
        cosine,
        unitsInPassage: next ? all.length : units.length,
        position,
        nextPart: next,
      });
    });
  }
  if (missing.length) {
    const vs = await input.embedder.embed(
      missing.map((m) => m.text),
      'document',
    );
    missing.forEach((m, k) => (out[m.at] = { ...out[m.at]!, cosine: dot(input.queryVector, vs[k]!) }));
  }
  return out;
}

const wordSet = (s: string): Set<string> => new Set(tokenize(s));
function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter);
}

/** Two texts that share this share of their words (Jaccard) or more say the same thing. */
export const sameWords = (a: string, b: string, share: number): boolean => jaccard(wordSet(a), wordSet(b)) >= share;

/** `part` (eight words or more) is printed word for word inside `whole`: a verbatim copy of a piece of it. */
export function copiedFrom(part: string, whole: string): boolean {
  const norm = (t: string) =>
    ` ${t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()} `;
  const p = norm(part);
  return p.trim().split(' ').length >= 8 && norm(whole).includes(p);
}

/** The quotes of an answer: the best units, no two alike; a gap when the best is below the threshold. */
export function selectQuotes(
  ranked: readonly RankedUnit[],
  model: Pick<UnitRankerModel, 'answerThreshold'>,
  config: QuotesConfig = DEFAULT_QUOTES_CONFIG,
): QuotedAnswer {
  const best = ranked[0]?.score ?? 0;
  const gap = best < model.answerThreshold;
  const kept: RankedUnit[] = [];
  const keptWords: Set<string>[] = [];
  let repeats = 0;
  for (const r of ranked) {
    if (kept.length >= config.maxQuotes) break;
    if (kept.length && r.score < best * config.relativeFloor) break;
    const w = wordSet(unitQuote(r.unit));
    if (keptWords.some((k) => jaccard(k, w) >= config.duplicateJaccard)) {
      repeats++;
      continue;
    }
    kept.push(r);
    keptWords.push(w);
  }
  return {
    quotes: kept.map((r) => ({
      chunkId: r.chunkId,
      n: r.unit.n,
      kind: r.unit.kind,
      start: r.unit.start,
      end: r.unit.end,
      text: r.unit.text,
      header: r.unit.header ?? null,
      printed: r.unit.printed ?? null,
      footnotes: [...(r.unit.footnotes ?? [])],
      amendment: r.unit.amendment ?? null,
      score: Math.round(r.score * 1e4) / 1e4,
    })),
    gap,
    best: Math.round(best * 1e4) / 1e4,
    threshold: model.answerThreshold,
    ranked: ranked.length,
    repeats,
  };
}

/** Rank the candidates and select the quotes (the evidence-only answer's and the model's ground). */
export function quoteAnswer(
  question: string,
  candidates: readonly UnitCandidate[],
  freq: { df: Map<string, number>; n: number },
  model: UnitRankerModel,
  config: QuotesConfig = DEFAULT_QUOTES_CONFIG,
): QuotedAnswer {
  return selectQuotes(rankUnits(question, candidates, freq, model), model, config);
}

/** The lead's sentences as claims over the units they cite (all quoted units when a sentence cites none). */
export function leadClaims(lead: string | null, unitIds: readonly string[]): { text: string; sources: string[] }[] {
  if (!lead) return [];
  return splitSentences(lead).map((text) => {
    const cited = citedIds(text).filter((id) => unitIds.includes(id));
    return { text, sources: cited.length ? cited : [...unitIds] };
  });
}

/** The lead as shown: unit markers become their passages' markers (the sources panel lists passages). */
export const shownLead = (lead: string): string => lead.replace(/\/unit-\d+(?=\s*[\],;])/g, '');

/**
 * The texts the check compares a claim with: a unit id resolves to that unit as quoted (with its
 * headers), a chunk id to the passage. The runtime and the test doubles resolve ids with this.
 */
export function groundingTexts(
  ids: readonly string[],
  chunkOf: (id: string) => Chunk | undefined,
  gridOf?: (chunk: Chunk) => GridLike | null,
): { id: string; title: string; text: string }[] {
  const out: { id: string; title: string; text: string }[] = [];
  for (const id of ids) {
    const unit = parseUnitId(id);
    const chunk = chunkOf(unit ? unit.chunkId : id);
    if (!chunk) continue;
    if (!unit) {
      out.push({ id, title: chunk.title, text: chunk.text });
      continue;
    }
    const u = segmentUnits(chunk, gridOf?.(chunk) ?? null).find((x) => x.n === unit.n);
    if (u) out.push({ id, title: chunk.title, text: unitQuote(u) });
  }
  return out;
}
