/**
 * Retrieval as the indicator workflow sees it, and the human-readable sources list (SKYSAFE §2.8:
 * chunk id, document, section title, page) of the chunks that went into an indicator's context.
 */
import type { Filters } from '../retrieval/types.js';

/** The part of a `RetrievalResult` the workflow reads. */
export interface RetrievedEvidence {
  readonly evidence: readonly { readonly id: string }[];
  /** Context block with `[chunk-id] title — docId, [edition, ]page N` headers (empty when no evidence). */
  readonly context: string;
  readonly noEvidence: boolean;
}

/** What the workflow needs from the retrieval engine (`RetrievalEngine` satisfies it). */
export interface IndicatorRetrieval {
  retrieve(query: string, options?: { filters?: Filters }): Promise<RetrievedEvidence>;
}

/** Chunk metadata, when the caller can look chunks up in the loaded index. */
export interface ChunkMeta {
  readonly id: string;
  readonly title: string;
  readonly docId: string;
  readonly pageStart: number | null;
  readonly pageEnd: number | null;
  readonly edition?: string;
}
export type ChunkLookup = (id: string) => ChunkMeta | undefined;

export interface IndicatorSource {
  readonly id: string;
  readonly title: string;
  readonly docId: string;
  /** "page 24", "pages 24–25" or "no page". */
  readonly pages: string;
  readonly pageStart: number | null;
  readonly pageEnd: number | null;
  /** First characters of the passage as it appeared in the context. */
  readonly excerpt: string;
}

const EXCERPT_CHARS = 240;

function pagesLabel(start: number | null, end: number | null): string {
  if (start === null) return 'no page';
  return end !== null && end !== start ? `pages ${start}–${end}` : `page ${start}`;
}

function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= EXCERPT_CHARS ? flat : `${flat.slice(0, EXCERPT_CHARS).replace(/\s+\S*$/, '')} …`;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Sources of a retrieval result: the chunks present in its context block, in context order.
 * Titles and pages come from `lookup` when given, otherwise from the context headers
 * (`[id] title — docId, [edition, ]page N`, as written by the context assembler).
 */
export function sourcesFromRetrieval(result: Pick<RetrievedEvidence, 'evidence' | 'context'>, lookup?: ChunkLookup): IndicatorSource[] {
  const context = result.context ?? '';
  const found: { id: string; index: number; headerEnd: number; title: string; docId: string; start: number | null; end: number | null }[] = [];
  for (const e of result.evidence) {
    // the header may carry the document's edition between the source and the pages (chunkBlock)
    const re = new RegExp(`^\\[${escapeRe(e.id)}\\] (.*) — ([^,\\n]+), (?:[^\\n]*, )?(no page|page (\\d+)|pages (\\d+)–(\\d+))$`, 'm');
    const m = re.exec(context);
    if (!m) continue; // left out of the context for the budget: the model never saw it
    const start = m[4] ?? m[5];
    const end = m[4] ?? m[6];
    found.push({
      id: e.id,
      index: m.index,
      headerEnd: m.index + m[0].length,
      title: m[1] ?? e.id,
      docId: m[2] ?? '',
      start: start === undefined ? null : Number(start),
      end: end === undefined ? null : Number(end),
    });
  }
  found.sort((a, b) => a.index - b.index);
  return found.map((f, i) => {
    const next = found[i + 1];
    const text = context.slice(f.headerEnd, next ? next.index : context.length);
    const meta = lookup?.(f.id);
    const pageStart = meta ? meta.pageStart : f.start;
    const pageEnd = meta ? meta.pageEnd : f.end;
    return {
      id: f.id,
      title: meta?.title ?? f.title,
      docId: meta?.docId ?? f.docId,
      pages: pagesLabel(pageStart, pageEnd),
      pageStart,
      pageEnd,
      excerpt: excerptOf(text),
    };
  });
}

/** `[chunk-id]` markers cited in a text. */
export function citedChunkIds(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(/\[([^\s[\]]+\/[^\s[\]]+)\]/g)) if (m[1]) ids.add(m[1]);
  return [...ids];
}
