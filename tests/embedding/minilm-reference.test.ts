import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { INDEX_DTYPE, nodeEmbedder } from '../../corpus-build/node/model.js';
import { MINILM_ID } from '../../src/core/embedding/embedder.js';
import { corpusDir } from '../support/paths.js';

interface RefItem {
  chunk_index: string | number;
  retrieval_doc: string;
  embedding: string | number[];
}

const ref = JSON.parse(readFileSync(path.join(corpusDir, 'skysafe-sora-curated/reference-embeddings.json'), 'utf8')) as {
  model: string;
  dim: number;
  items: RefItem[];
};

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe(`MiniLM from the app's own files (${INDEX_DTYPE}) reproduces the reference implementation's vectors`, () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await nodeEmbedder(INDEX_DTYPE, MINILM_ID); // the base model: the tuned one is checked against its own export (docs/reranker.md)
  });
  afterAll(async () => embedder?.dispose?.());

  it('reaches mean cosine ≥ 0.999 and minimum ≥ 0.998 on the 120 reference retrieval strings', async () => {
    expect(ref.model).toBe('sentence-transformers/all-MiniLM-L6-v2');
    expect(ref.items).toHaveLength(120);
    const vectors = await embedder.embed(ref.items.map((i) => i.retrieval_doc));
    const cos = ref.items.map((item, k) => {
      const r = typeof item.embedding === 'string' ? (JSON.parse(item.embedding) as number[]) : item.embedding;
      expect(r).toHaveLength(384);
      const v = vectors[k]!;
      expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(1e-4);
      return dot(v, r) / Math.hypot(...r);
    });
    const mean = cos.reduce((a, b) => a + b, 0) / cos.length;
    const min = Math.min(...cos);
    console.log(`MiniLM ${INDEX_DTYPE}: mean cosine ${mean.toFixed(4)}, min ${min.toFixed(4)}`);
    expect(mean).toBeGreaterThanOrEqual(0.999);
    expect(min).toBeGreaterThanOrEqual(0.998);
  });

  it('gives normalised per-token embeddings for late interaction', async () => {
    const toks = await embedder.embedTokens('ground risk buffer');
    expect(toks.length).toBeGreaterThanOrEqual(3);
    for (const t of toks) expect(Math.abs(Math.hypot(...t) - 1)).toBeLessThan(1e-4);
  });
});
