/**
 * Enrichment of chunk drafts, the same for every source (build and browser): keywords
 * (TF-IDF within the source), extractive summaries, cross-references, retrieval strings.
 */
import type { Chunk } from '../../model/chunk.js';
import { extractKeywords } from './keywords.js';
import { retrievalString } from './retrieval-string.js';
import { summarize } from './summary.js';
import { resolveCrossReferences } from './xrefs.js';

/** A chunk before enrichment (summary, keywords, links, retrieval added here). */
export type ChunkDraft = Omit<Chunk, 'summary' | 'keywords' | 'links' | 'retrieval'>;

export function enrichDrafts(drafts: ChunkDraft[]): Chunk[] {
  const keywords = extractKeywords(drafts.map((d) => ({ title: d.title, text: d.text })));
  const links = resolveCrossReferences(drafts);
  return drafts.map((d, i) => ({
    ...d,
    summary: summarize(d),
    keywords: keywords[i]!,
    links: links[i]!,
    retrieval: retrievalString(d.title, d.text),
  }));
}
