/**
 * One question, as few embeddings as the turn needs: the coverage door and the quotations share the
 * built-in model's vector of the question, whichever model the retrieval searched with. On the
 * static index the e2e setup builds, with the real MiniLM.
 */
import { describe, expect, it } from 'vitest';
import { nodeEngine, nodeScope, nodeUnitRanker } from '../../corpus-build/node/engine.js';
import { createLocalRetrieval } from '../../src/core/ask/retrieve.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';

const QUESTION = 'Which mitigations reduce the ground risk of a drone flight over people?';

/** An embedder that records every text it is asked to embed. */
function counting(inner: Pick<Embedder, 'embed'>) {
  const texts: string[] = [];
  return { texts, embed: ((t, role) => (texts.push(...t), inner.embed(t, role))) as Embedder['embed'] };
}

describe('the built-in vector of a question', () => {
  it('is made once when another model searched, and never again when the built-in model did', async () => {
    const loaded = await nodeEngine({ reranker: false });
    for (const otherModelSearches of [true, false]) {
      const builtIn = counting(loaded.baseEmbedder);
      const other = counting(loaded.embedder);
      const retrieval = createLocalRetrieval(() => ({
        index: loaded.baseIndex,
        engine: loaded.engine,
        agents: null,
        queryEmbedder: otherModelSearches ? other : builtIn,
        embedder: builtIn,
        // the coverage door on the built-in model, as the app builds it
        scope: nodeScope({ baseIndex: loaded.baseIndex, baseEmbedder: builtIn as unknown as Embedder }),
        unitRanker: nodeUnitRanker(),
      }));
      const result = await retrieval.retrieve(QUESTION);
      await retrieval.coverage(QUESTION, result);
      const answer = await retrieval.evidenceOnly(QUESTION, result);
      expect(answer.quoted?.quotes.length).toBeGreaterThan(0);
      const builtInTimes = builtIn.texts.filter((t) => t === QUESTION).length;
      expect({ otherModelSearches, builtInTimes, otherTimes: other.texts.filter((t) => t === QUESTION).length }).toEqual({
        otherModelSearches,
        builtInTimes: 1,
        otherTimes: otherModelSearches ? 1 : 0,
      });
    }
  }, 120_000);
});
