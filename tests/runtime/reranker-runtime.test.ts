/** The runtime loads the cross-encoder reranker, and without it keeps the fused order and says so. */
import { describe, expect, it } from 'vitest';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

const base = { baseUrl: 'http://localhost/', probeAdapter: async () => NO_ADAPTER, createEmbedder: async () => fakeEmbedder() };

describe('the reranker in the runtime', () => {
  it('loads the reranker and reranks every query with it', async () => {
    const scored: string[] = [];
    const rt = createInProcessRuntime({
      ...base,
      fetchImpl: await servedIndex(),
      createReranker: async () => ({ name: 'stand-in', score: async (q, c) => (scored.push(q), c.map((_, i) => 1 - i / 100)) }),
    });
    const status = await rt.init({ denseBackend: 'exact', rerank: true });
    expect(status.reranker).toMatchObject({ state: 'on' });
    const r = await rt.retrieve('flying at night');
    expect(scored).toEqual(['flying at night']);
    expect(r.retrieval.rerank).toMatchObject({ state: 'on' });
    expect(r.config.rerank.enabled).toBe(true);
    // the document agents searched inside the one document without calling the reranker again, and say why it was consulted
    expect(r.documents!.consulted.map((d) => d.id)).toEqual(['qa-sample']);
    expect(r.documents!.consulted[0]!.reason).toMatch(/owns \d+ of the top 20 passages; closest summary: .*, summary match \d\.\d\d/);
  });

  it('keeps the fused order when the reranker cannot be loaded, and says so in the status and the trace', async () => {
    const rt = createInProcessRuntime({
      ...base,
      fetchImpl: await servedIndex(),
      createReranker: async () => Promise.reject(new Error('Could not load the reranker: model_quantized.onnx is missing')),
    });
    const status = await rt.init({ denseBackend: 'exact', rerank: true });
    expect(status.reranker).toEqual({ state: 'unavailable', loadMs: null, note: 'Could not load the reranker: model_quantized.onnx is missing' });
    const r = await rt.retrieve('flying at night');
    expect(r.retrieval.rerank?.state).toBe('unavailable');
    expect(r.retrieval.trace.find((t) => t.stage === 'rerank')!.note).toMatch(/unreranked order/);
    expect(r.retrieval.gate?.source).toBe('dense');
  });

  it('does not load a reranker when reranking is switched off', async () => {
    let loaded = false;
    const rt = createInProcessRuntime({
      ...base,
      fetchImpl: await servedIndex(),
      createReranker: async () => ((loaded = true), { name: 'x', score: async () => [] }),
    });
    expect((await rt.init({ denseBackend: 'exact', rerank: false })).reranker).toEqual({ state: 'off', loadMs: null });
    expect(loaded).toBe(false);
  });

  it('drafts evidence-only requirements through the document agents, each quoted from a cited passage', async () => {
    const rt = createInProcessRuntime({ ...base, fetchImpl: await servedIndex() });
    await rt.init({ denseBackend: 'exact', rerank: false });
    const d = await rt.draftRequirements('paper logbook for a hobby pilot');
    expect(d.mode).toBe('evidence-only');
    expect(d.documents.map((x) => x.id)).toEqual(['qa-sample']);
    expect(d.requirements.length).toBeGreaterThan(0);
    for (const r of d.requirements) {
      const c = (await rt.getChunk(r.source.chunkId))!;
      expect(c.text.replace(/\s+/g, ' ')).toContain(r.statement);
      expect(r.sourceVerbatim).toBe(false); // the fixture's source is registered as not verbatim
    }
    expect(d.requirements.some((r) => /logbook is required/.test(r.statement))).toBe(true);
  });
});

describe('the embedder the index names', () => {
  it('loads the model folder named in the index manifest', async () => {
    const asked: string[] = [];
    const rt = createInProcessRuntime({
      ...base,
      fetchImpl: await servedIndex(),
      createEmbedder: async (_d, _o, id) => (asked.push(id), fakeEmbedder()),
      createReranker: async () => Promise.reject(new Error('none')),
    });
    await rt.init({ denseBackend: 'exact' });
    expect(asked).toEqual([fakeEmbedder().modelId]);
  });
});
