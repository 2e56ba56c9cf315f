import { describe, expect, it } from 'vitest';
import { broaden, createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { EU_MEMBER_STATES, isEasaJurisdiction } from '../../src/core/retrieval/filters.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf as mk, tinyIndex as buildTinyIndex } from '../support/tiny-index.js';

const DIM = 32;
const emb = fakeEmbedder(DIM);
const tinyIndex = (chunks: Parameters<typeof buildTinyIndex>[0]) => buildTinyIndex(chunks, emb);

const CHUNKS = [
  mk('buffer', 'Ground risk buffer', 'The ground risk buffer surrounds the operational volume; its width follows the 1:1 rule.'),
  mk('sail', 'SAIL determination', 'The SAIL is derived from the final GRC and the residual ARC.'),
  mk('observer', 'Airspace observer', 'An airspace observer assists the remote pilot by scanning the airspace.'),
  mk('fr-night', 'Night flights in parks', 'A club may fly after sunset with a lighting plan.', 'FR', 'qa'),
];

describe('retrieval engine', () => {
  it('is deterministic: the same query gives the same ids, scores and trace', async () => {
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb, config: undefined });
    const strip = (r: Awaited<ReturnType<typeof engine.retrieve>>) => ({
      ids: r.evidence.map((e) => [e.id, e.score]),
      trace: r.trace.map((s) => [s.stage, s.candidates, s.note]),
      context: r.context,
    });
    const a = await engine.retrieve('how wide is the ground risk buffer', { config: { gate: { enabled: false } } });
    const b = await engine.retrieve('how wide is the ground risk buffer', { config: { gate: { enabled: false } } });
    expect(strip(a)).toEqual(strip(b));
    expect(a.evidence[0]!.id).toBe('buffer');
    expect(a.trace.map((s) => s.stage)).toEqual([
      'embed query',
      'dense (exact)',
      'mmr',
      'windows',
      'indexed questions',
      'bm25',
      'rrf',
      'post-score',
      'rerank',
      'filter',
      'context',
    ]);
    expect(a.context).toContain('[buffer] Ground risk buffer');
  });

  it('cuts at the elbow on scores relative to the top score, whatever the score scale', async () => {
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb });
    const q = 'how wide is the ground risk buffer';
    const all = await engine.retrieve(q, { config: { gate: { enabled: false }, elbow: { enabled: false } } });
    expect(all.evidence.length).toBeGreaterThan(1);
    // no drop can exceed 100 % of the top score
    const keepAll = await engine.retrieve(q, { config: { gate: { enabled: false }, elbow: { enabled: true, threshold: 1 } } });
    expect(keepAll.evidence.map((e) => e.id)).toEqual(all.evidence.map((e) => e.id));
    // the first drop of more than a tenth of the top score ends the list
    const top = all.evidence[0]!.score;
    const firstDrop = all.evidence.findIndex((e, i) => i > 0 && (all.evidence[i - 1]!.score - e.score) / top > 0.1);
    const cut = await engine.retrieve(q, { config: { gate: { enabled: false }, elbow: { enabled: true, threshold: 0.1 } } });
    expect(firstDrop).toBeGreaterThan(0); // the fixture has such a drop (scores are RRF sums, ≈ 0.05–0.07)
    expect(cut.evidence.length).toBe(firstDrop);
    expect(cut.evidence[0]!.id).toBe('buffer');
  });

  it('returns no evidence rather than weak chunks when nothing reaches the threshold', async () => {
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb });
    const r = await engine.retrieve('lithium battery watt hour cabin', { config: { gate: { minDense: 0.99 } } });
    expect(r.noEvidence).toBe(true);
    expect(r.evidence).toEqual([]);
    expect(r.context).toBe('');
  });

  it('counts all 27 EU member states, and the other EASA states, as places where the EU rules apply', () => {
    expect(EU_MEMBER_STATES.size).toBe(27);
    for (const code of [...EU_MEMBER_STATES, 'EU', 'NO', 'IS', 'LI', 'CH']) expect(isEasaJurisdiction(code)).toBe(true);
    for (const code of ['US', 'GB', 'JP', 'CA', 'TR']) expect(isEasaJurisdiction(code)).toBe(false);
    expect(broaden({ jurisdictions: ['HU'] })).toEqual({ jurisdictions: ['HU', 'EU'] });
  });

  it('broadens once when filtered retrieval finds nothing: a member state widens to EU rules, a non-EASA country does not', async () => {
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb });
    const it_ = await engine.retrieve('airspace observer duties', { filters: { jurisdictions: ['IT'] }, config: { gate: { enabled: false } } });
    expect(it_.broadened).toBe(true);
    expect(it_.evidence.map((e) => e.id)).toContain('observer');
    expect(it_.trace.some((s) => s.stage === 'broaden')).toBe(true);
    const us = await engine.retrieve('airspace observer duties', { filters: { jurisdictions: ['US'] }, config: { gate: { enabled: false } } });
    expect(us.broadened).toBe(true);
    expect(us.noEvidence).toBe(true);
    const fr = await engine.retrieve('night flights in parks', { filters: { jurisdictions: ['FR'] }, config: { gate: { enabled: false } } });
    expect(fr.broadened).toBe(false);
    expect(fr.evidence.map((e) => e.id)).toEqual(['fr-night']);
  });

  it('reranks the fused head with the reranker, blends by weight and, when told to, gates on its score', async () => {
    const seen: string[] = [];
    const reranker = {
      name: 'fake',
      async score(_q: string, cands: { key: string; text: string }[]) {
        seen.push(...cands.map((c) => c.text));
        return cands.map((c) => (c.key === 'observer' ? 0.95 : 0.1));
      },
    };
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb, reranker });
    const r = await engine.retrieve('how wide is the ground risk buffer', {
      config: { rerank: { enabled: true, weight: 1 }, gate: { by: 'rerank', minRerank: 0.5 } },
    });
    expect(r.evidence[0]!.id).toBe('observer');
    expect(r.evidence[0]!.parts.rerank).toBeCloseTo(0.95);
    expect(r.rerank).toEqual({ state: 'on', note: expect.stringContaining('fake') });
    expect(r.gate).toMatchObject({ source: 'rerank', passed: true, threshold: 0.5 });
    // the reranker reads "title. window text", the text each window was embedded from
    expect(seen).toContain('Airspace observer. An airspace observer assists the remote pilot by scanning the airspace.');
    const refused = await engine.retrieve('how wide is the ground risk buffer', {
      config: { rerank: { enabled: true }, gate: { by: 'rerank', minRerank: 0.99 } },
    });
    expect(refused.noEvidence).toBe(true);
    expect(refused.gate).toMatchObject({ source: 'rerank', passed: false });
    // gated by the dense cosine (the calibrated default), the reranker's low scores do not refuse
    const byDense = await engine.retrieve('how wide is the ground risk buffer', {
      config: { rerank: { enabled: true }, gate: { by: 'dense', minDense: 0, minRerank: 0.99 } },
    });
    expect(byDense.gate).toMatchObject({ source: 'dense', passed: true });
    expect(byDense.evidence[0]!.id).toBe('observer');
  });

  it('falls back to the fused order, and says so, when the reranker is missing or fails', async () => {
    const none = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb });
    const a = await none.retrieve('how wide is the ground risk buffer', { config: { rerank: { enabled: true } } });
    expect(a.rerank?.state).toBe('unavailable');
    expect(a.trace.find((t) => t.stage === 'rerank')!.note).toMatch(/unavailable.*unreranked order/);
    expect(a.gate?.source).toBe('dense');
    const broken = createRetrievalEngine({
      index: await tinyIndex(CHUNKS),
      embedder: emb,
      reranker: { name: 'broken', score: async () => Promise.reject(new Error('model file corrupt')) },
    });
    const b = await broken.retrieve('how wide is the ground risk buffer', { config: { rerank: { enabled: true } } });
    expect(b.rerank).toEqual({ state: 'failed', note: expect.stringContaining('model file corrupt') });
    expect(b.evidence.map((e) => e.id)).toEqual(a.evidence.map((e) => e.id));
  });

  it('leaves out excluded chunks, also after broadening', async () => {
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb });
    const r = await engine.retrieve('how wide is the ground risk buffer', { filters: { excludeIds: ['buffer'] }, config: { gate: { enabled: false } } });
    expect(r.evidence.map((e) => e.id)).not.toContain('buffer');
    expect(broaden({ jurisdictions: ['IT'], excludeIds: ['x'] })).toEqual({ excludeIds: ['x'], jurisdictions: ['IT', 'EU'] });
  });

  it("fuses a ranked list of the passages' synthetic questions when the index has them", async () => {
    const index = await tinyIndex(CHUNKS);
    const qv = await emb.embed(['who scans the sky for planes while the pilot flies']);
    const withQ = { ...index, questions: { row: Int32Array.from([2]), vectors: qv[0]!, count: 1 } };
    const engine = createRetrievalEngine({ index: withQ, embedder: emb });
    const r = await engine.retrieve('who scans the sky for planes while the pilot flies', { config: { gate: { enabled: false } } });
    const stage = r.trace.find((t) => t.stage === 'indexed questions')!;
    expect(stage.candidates.map((c) => c.id)).toEqual(['observer']);
    const off = await engine.retrieve('who scans the sky for planes while the pilot flies', {
      config: { gate: { enabled: false }, questions: { enabled: false } },
    });
    expect(off.trace.find((t) => t.stage === 'indexed questions')!.candidates).toEqual([]);
  });

  it('searches with alternative formulations as extra ranked lists, while the reranker reads the question itself', async () => {
    const queries: string[] = [];
    const reranker = {
      name: 'spy',
      async score(q: string, c: { key: string }[]) {
        queries.push(q);
        return c.map(() => 0.5);
      },
    };
    const engine = createRetrievalEngine({ index: await tinyIndex(CHUNKS), embedder: emb, reranker });
    const r = await engine.retrieve('how wide is the ground risk buffer', {
      alternatives: [
        { text: 'airspace observer scanning', label: 'rewrite' },
        { text: 'how wide is the ground risk buffer', label: 'same as the question' },
      ],
      config: { gate: { enabled: false }, rerank: { enabled: true } },
    });
    const alt = r.trace.filter((t) => t.stage.startsWith('alternative'));
    expect(alt.map((t) => t.stage)).toEqual(['alternative: rewrite']);
    expect(alt[0]!.candidates[0]!.id).toBe('observer');
    expect(r.evidence.map((e) => e.id)).toContain('observer');
    expect(queries).toEqual(['how wide is the ground risk buffer']);
    expect(engine.alternativesOf('how wide is the ground risk buffer', { alternatives: [{ text: 'x y', label: 'l' }] })).toEqual(['x y']);
    await expect(engine.retrieveWithVector('q', (await emb.embed(['q']))[0]!, { alternatives: [{ text: 'x y', label: 'l' }] })).rejects.toThrow(
      /need as many vectors/,
    );
  });
});
