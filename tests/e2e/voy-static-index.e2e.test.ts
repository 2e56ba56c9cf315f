/**
 * On the real static index (built by the e2e global setup): voy, built from vectors.f32 as the
 * browser worker builds it, returns what the exact scan returns for every passage window and
 * synthetic question used as a query — top 50 with and without a document filter — and the
 * whole engine gives identical evidence with either backend. Runs in Node.
 */
import { describe, expect, it } from 'vitest';
import { loadIndexFromDir } from '../../corpus-build/node/index-fs.js';
import { loadVoyInNode } from '../../corpus-build/node/voy.js';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../../src/core/retrieval/config.js';
import { exactBackend, voyBackend } from '../../src/core/retrieval/dense.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { allowedRows } from '../../src/core/retrieval/filters.js';

describe('voy on the static index', () => {
  it('matches the exact scan for every window and synthetic-question vector (top 50, with and without a filter)', async () => {
    const index = await loadIndexFromDir();
    const dim = index.manifest.dimension;
    const voy = voyBackend(await loadVoyInNode(), index.vectors, dim);
    const exact = exactBackend(index.vectors, dim);
    const all = allowedRows(index.chunks, {});
    const curated = allowedRows(index.chunks, { docIds: ['skysafe-sora-curated'] });
    const sets = [index.windows, index.questions];
    let queries = 0;
    for (const set of sets) {
      for (let i = 0; i < set.count; i++) {
        const q = set.vectors.subarray(i * dim, (i + 1) * dim);
        expect(voy.search(q, 50, all)).toEqual(exact.search(q, 50, all));
        if (i % 10 === 0) expect(voy.search(q, 50, curated)).toEqual(exact.search(q, 50, curated));
        queries++;
      }
    }
    expect(queries).toBeGreaterThan(index.chunks.length); // windows alone outnumber the chunks
  });

  it('gives the same evidence through the whole engine with either backend', async () => {
    const index = await loadIndexFromDir();
    const dim = index.manifest.dimension;
    const voy = voyBackend(await loadVoyInNode(), index.vectors, dim);
    const embedder = { embed: async () => [] as Float32Array[] }; // not called: query vectors are given
    const withVoy = createRetrievalEngine({ index, embedder, config: withConfig(DEFAULT_RETRIEVAL_CONFIG, { dense: { backend: 'voy' } }), backends: { voy } });
    const withExact = createRetrievalEngine({ index, embedder });
    for (let i = 0; i < index.windows.count; i += 25) {
      const q = index.windows.vectors.subarray(i * dim, (i + 1) * dim);
      const text = index.chunks[index.windows.row[i]!]!.title;
      const a = await withVoy.retrieveWithVector(text, q);
      const b = await withExact.retrieveWithVector(text, q);
      expect(a.evidence).toEqual(b.evidence);
      expect(a.context).toBe(b.context);
    }
  });
});
