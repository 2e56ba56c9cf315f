/**
 * The runtime's retrieve() as the indicator workflow's `IndicatorRetrieval`, remembering the
 * returned chunks so sources can show titles and pages (and open in the chunk viewer).
 */
import type { ChunkLookup, IndicatorRetrieval } from '../../core/assess/indicators/sources';
import type { Chunk } from '../../core/model/chunk';
import type { SkyCiteRuntime } from '../../runtime/types';

/** The runtime's retrieve() as the indicator workflow's retrieval, with a chunk cache for lookups. */
export function retrievalAdapter(runtime: Pick<SkyCiteRuntime, 'retrieve'>): { retrieval: IndicatorRetrieval; lookup: ChunkLookup; chunks: Map<string, Chunk> } {
  const chunks = new Map<string, Chunk>();
  return {
    chunks,
    retrieval: {
      async retrieve(query, options) {
        const r = await runtime.retrieve(query, options?.filters ? { filters: options.filters } : undefined);
        for (const c of r.chunks) chunks.set(c.id, c);
        return r.retrieval;
      },
    },
    lookup: (id) => {
      const c = chunks.get(id);
      return c ? { id: c.id, title: c.title, docId: c.docId, pageStart: c.pageStart, pageEnd: c.pageEnd, edition: c.edition } : undefined;
    },
  };
}
