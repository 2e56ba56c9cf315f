/**
 * Loader for the SKYSAFE curated chunk format (`SORA_chunks_cleaned_manual.json`).
 *
 * The file is a JSON array of pre-chunked items:
 *   { chunk_title, chunk_text, chunk_summary, chunk_keywords, chunk_index, id?, edges? }
 * Every item becomes exactly one `Chunk` of kind 'curated'; nothing is re-chunked.
 *
 * Quirks of the published file that this loader handles on purpose:
 * - one title carries a leading space; titles are whitespace-collapsed (as `Chunk.title`
 *   requires), which is also what the reference implementation embedded;
 * - one item spells its edge list `'edges` (with a stray quote); it is read as `edges`;
 * - one edge names an id that no item has (a typo); it is kept with `target: null`.
 */
import type { Chunk, ChunkLink } from '../../src/core/model/chunk.js';
import { collapseWhitespace } from '../../src/core/text/sentences.js';
import { SourceFormatError } from '../errors.js';
import { isRecord, typeName } from './json-checks.js';

export interface CuratedMeta {
  docId: string;
  edition: string;
  jurisdiction: string;
  language: string;
}

/** Keys under which an item may carry its edge list (the second is a typo in the published file). */
const EDGE_KEYS = ['edges', "'edges"] as const;

/** Collapse whitespace runs to one space and trim. */
const collapse = collapseWhitespace;

/** The string the reference implementation embedded for a chunk: title ‖ title ‖ text. */
export function curatedRetrieval(title: string, text: string): string {
  return `${title} ${title}. ${text}`;
}

/** Human-readable name of item `i` for error messages, using whatever identifying fields it has. */
function describeItem(item: unknown, i: number): string {
  const parts: string[] = [];
  if (isRecord(item)) {
    if (typeof item.chunk_index === 'number') parts.push(`chunk_index ${item.chunk_index}`);
    if (typeof item.chunk_title === 'string') parts.push(`"${collapse(item.chunk_title).slice(0, 60)}"`);
  }
  return parts.length ? `item #${i} (${parts.join(', ')})` : `item #${i}`;
}

/** A validated curated item, before ids are resolved. */
interface CuratedItem {
  title: string;
  text: string;
  summary: string;
  keywords: string[];
  chunkIndex: number;
  curatedId: string | null;
  edges: string[];
}

/** Validate one raw item; throws a SourceFormatError naming the item and the field. */
function validateItem(raw: unknown, i: number, docId: string): CuratedItem {
  const name = describeItem(raw, i);
  const fail = (field: string, problem: string): never => {
    throw new SourceFormatError(docId, name, field, problem);
  };
  if (!isRecord(raw)) return fail('(item)', `expected an object, got ${typeName(raw)}.`);

  const str = (field: string): string => {
    const v = raw[field];
    if (v === undefined) return fail(field, 'missing. Every curated item needs a string here.');
    if (typeof v !== 'string') return fail(field, `expected a string, got ${typeName(v)}.`);
    return v;
  };
  const title = collapse(str('chunk_title'));
  if (title === '') fail('chunk_title', 'empty. Give the item a title.');
  const text = str('chunk_text');
  if (text.trim() === '') fail('chunk_text', 'empty. A curated item must carry text.');
  const summary = str('chunk_summary');

  const kw = raw.chunk_keywords;
  if (kw === undefined) fail('chunk_keywords', 'missing. Expected an array of strings.');
  if (!Array.isArray(kw)) return fail('chunk_keywords', `expected an array of strings, got ${typeName(kw)}.`);
  kw.forEach((k, j) => {
    if (typeof k !== 'string') fail(`chunk_keywords[${j}]`, `expected a string, got ${typeName(k)}.`);
  });

  const ci = raw.chunk_index;
  if (ci === undefined) fail('chunk_index', 'missing. Expected a non-negative integer.');
  if (typeof ci !== 'number' || !Number.isInteger(ci) || ci < 0) {
    fail('chunk_index', `expected a non-negative integer, got ${JSON.stringify(ci)}.`);
  }

  let curatedId: string | null = null;
  if (raw.id !== undefined && raw.id !== null) {
    if (typeof raw.id !== 'string' || raw.id.trim() === '') {
      fail('id', `expected a non-empty string, got ${JSON.stringify(raw.id)}.`);
    }
    curatedId = (raw.id as string).trim();
  }

  const edgeKeys = EDGE_KEYS.filter((k) => raw[k] !== undefined);
  if (edgeKeys.length > 1) fail(edgeKeys.join('/'), 'the edge list is given twice. Keep only "edges".');
  const edgeKey = edgeKeys[0];
  const edges: string[] = [];
  if (edgeKey !== undefined) {
    const e = raw[edgeKey];
    if (!Array.isArray(e)) return fail(edgeKey, `expected an array of item ids, got ${typeName(e)}.`);
    e.forEach((x, j) => {
      if (typeof x !== 'string' || x.trim() === '') {
        fail(`${edgeKey}[${j}]`, `expected a non-empty string (another item's id), got ${JSON.stringify(x)}.`);
      }
      edges.push((x as string).trim());
    });
  }

  return { title, text, summary, keywords: kw as string[], chunkIndex: ci as number, curatedId, edges };
}

/**
 * Parse SKYSAFE curated JSON into chunks, one per item, in file order.
 *
 * - id = `${docId}/${chunk_index}`; title and sectionPath from `chunk_title`;
 * - text, summary and keywords are the item's fields unchanged;
 * - each edge becomes a link `{ label: 'edge:<id>', target }`, target being the chunk id
 *   of the item with that `id`, or null when no item has it;
 * - retrieval = `${title} ${title}. ${text}`, the string the reference implementation embedded.
 *
 * @throws SourceFormatError for invalid JSON, a non-array document, a missing or wrong-typed
 *   field (naming the item and the field), or a duplicate `chunk_index` / `id`.
 */
export function loadCuratedChunks(jsonText: string, meta: CuratedMeta): Chunk[] {
  let data: unknown;
  try {
    data = JSON.parse(jsonText);
  } catch (e) {
    throw new SourceFormatError(meta.docId, 'the file', 'JSON', `not valid JSON: ${(e as Error).message}. Fix the file (or restore the published copy).`);
  }
  if (!Array.isArray(data)) {
    throw new SourceFormatError(meta.docId, 'the file', '(top level)', `expected a JSON array of curated items, got ${typeName(data)}.`);
  }

  const items = data.map((raw, i) => validateItem(raw, i, meta.docId));

  const byIndex = new Map<number, number>();
  const byCuratedId = new Map<string, number>();
  items.forEach((it, i) => {
    const prev = byIndex.get(it.chunkIndex);
    if (prev !== undefined) {
      throw new SourceFormatError(
        meta.docId,
        describeItem(data[i], i),
        'chunk_index',
        `duplicate: item #${prev} has the same chunk_index. Chunk indexes must be unique.`,
      );
    }
    byIndex.set(it.chunkIndex, i);
    if (it.curatedId !== null) {
      const prevId = byCuratedId.get(it.curatedId);
      if (prevId !== undefined) {
        throw new SourceFormatError(
          meta.docId,
          describeItem(data[i], i),
          'id',
          `duplicate: item #${prevId} has the same id "${it.curatedId}". Edge targets must be unambiguous.`,
        );
      }
      byCuratedId.set(it.curatedId, i);
    }
  });

  const chunkId = (it: CuratedItem): string => `${meta.docId}/${it.chunkIndex}`;

  return items.map((it): Chunk => {
    const links: ChunkLink[] = it.edges.map((edge) => {
      const targetItem = byCuratedId.get(edge);
      const target = targetItem === undefined ? null : chunkId(items[targetItem]!);
      return { label: `edge:${edge}`, target };
    });
    return {
      id: chunkId(it),
      docId: meta.docId,
      kind: 'curated',
      title: it.title,
      sectionPath: [it.title],
      pageStart: null,
      pageEnd: null,
      text: it.text,
      summary: it.summary,
      keywords: [...it.keywords],
      jurisdiction: meta.jurisdiction,
      edition: meta.edition,
      language: meta.language,
      links,
      retrieval: curatedRetrieval(it.title, it.text),
      extra: { chunkIndex: it.chunkIndex, curatedId: it.curatedId },
    };
  });
}
