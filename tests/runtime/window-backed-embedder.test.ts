import { describe, expect, it } from 'vitest';
import { windowBackedEmbedder } from '../../src/core/ask/retrieve.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import type { LoadedIndex } from '../../src/core/index/load.js';

describe('evidence-only highlights reuse the index window embeddings', () => {
  it('gives each sentence the vector of the window containing it and embeds only the rest', async () => {
    const text = 'First sentence here. Second one follows. Third sentence is in window two.';
    const chunk = { id: 'c', text } as Chunk;
    const secondWindowStart = text.indexOf('Third');
    const idx = {
      manifest: { dimension: 2 } as LoadedIndex['manifest'],
      rowOf: new Map([['c', 0]]),
      windows: {
        row: Int32Array.from([0, 0]),
        start: Int32Array.from([0, secondWindowStart]),
        end: Int32Array.from([secondWindowStart - 1, text.length]),
        vectors: Float32Array.from([1, 0, 0, 1]),
        count: 2,
      },
    };
    const asked: string[][] = [];
    const emb = windowBackedEmbedder({ embed: async (t: string[]) => (asked.push(t), t.map(() => Float32Array.from([0.6, 0.8]))) }, idx, [chunk]);
    const [q, s1, s2, s3] = await emb.embed(['the question?', 'First sentence here.', 'Second one follows.', 'Third sentence is in window two.']);
    expect(asked).toEqual([['the question?']]);
    expect([...q!]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect([...s1!]).toEqual([1, 0]);
    expect([...s2!]).toEqual([1, 0]);
    expect([...s3!]).toEqual([0, 1]);
  });
});
