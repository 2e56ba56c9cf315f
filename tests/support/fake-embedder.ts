import type { Embedder } from '../../src/core/embedding/embedder.js';
import { tokenize } from '../../src/core/text/tokenize.js';

/**
 * A deterministic stand-in for MiniLM in tests that exercise plumbing, not
 * semantics: a hashed bag of words, L2-normalised. `failAfter` makes embed()
 * throw after that many calls (failure paths).
 */
export function fakeEmbedder(dim = 32, failAfter = Infinity): Embedder {
  let calls = 0;
  const vec = (text: string): Float32Array => {
    const v = new Float32Array(dim);
    for (const t of tokenize(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[Math.abs(h) % dim]! += 1;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  return {
    modelId: 'fake/bag-of-words',
    dimension: dim,
    async embed(texts) {
      if (++calls > failAfter) throw new Error('embedding backend crashed (injected)');
      return texts.map(vec);
    },
    async embedTokens(text) {
      return tokenize(text).map(vec);
    },
  };
}
