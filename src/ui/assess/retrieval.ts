/**
 * The runtime's retrieve() as the indicator workflow's `IndicatorRetrieval`, remembering the
 * returned chunks so sources can show titles and pages (and open in the chunk viewer).
 */
import type { ChunkLookup, IndicatorRetrieval } from '../../core/indicators/sources';
import type { Chunk } from '../../core/model/chunk';
import type { AskResult, SkyCiteRuntime } from '../../runtime/types';

/**
 * The runtime's retrieve() as the indicator workflow's retrieval, with a chunk cache for lookups
 * and the log of every retrieval (query, result, configuration) for the audit record.
 */
export function retrievalAdapter(runtime: Pick<SkyCiteRuntime, 'retrieve'>): {
  retrieval: IndicatorRetrieval;
  lookup: ChunkLookup;
  chunks: Map<string, Chunk>;
  log: { query: string; result: AskResult }[];
} {
  const chunks = new Map<string, Chunk>();
  const log: { query: string; result: AskResult }[] = [];
  return {
    chunks,
    log,
    retrieval: {
      async retrieve(query, options) {
        // the indicators read the flat evidence only: the document agents' four extra searches would be discarded
        const r = await runtime.retrieve(query, { ...(options?.filters ? { filters: options.filters } : {}), agents: false });
        log.push({ query, result: r });
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
