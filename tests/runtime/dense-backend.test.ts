/** The runtime's choice of dense backend: voy built at load when asked for and loadable, else the exact scan with the reason. */
import { describe, expect, it } from 'vitest';
import { loadVoyInNode } from '../../corpus-build/node/voy.js';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../../src/core/retrieval/config.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { DEFAULT_RUNTIME_OPTIONS } from '../../src/runtime/defaults.js';
import { denseBackendFor } from '../../src/runtime/in-process.js';
import { runtimeOptionsFromUrl } from '../../src/ui/app-state.svelte.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf, tinyIndex } from '../support/tiny-index.js';

const emb = fakeEmbedder(32);
const CHUNKS = [
  chunkOf('buffer', 'Ground risk buffer', 'The ground risk buffer surrounds the operational volume; its width follows the 1:1 rule.'),
  chunkOf('sail', 'SAIL determination', 'The SAIL is derived from the final GRC and the residual ARC.'),
  chunkOf('observer', 'Airspace observer', 'An airspace observer assists the remote pilot by scanning the airspace.'),
];

describe('runtime dense backend', () => {
  it('is voy by default in the app', () => {
    expect(DEFAULT_RUNTIME_OPTIONS.denseBackend).toBe('voy');
    expect(runtimeOptionsFromUrl('?device=wasm&dense=exact')).toEqual({ device: 'wasm', denseBackend: 'exact' });
    expect(runtimeOptionsFromUrl('?dense=faiss')).toEqual({});
    expect(runtimeOptionsFromUrl('?rerank=off')).toEqual({ rerank: false });
  });

  it('builds voy from the index vectors, and the engine then retrieves through it with the exact scan’s results', async () => {
    const index = await tinyIndex(CHUNKS, emb);
    const dense = await denseBackendFor(index, 'voy', loadVoyInNode);
    expect(dense.status.backend).toBe('voy');
    expect(dense.status.buildMs).toBeGreaterThanOrEqual(0);
    const voyEngine = createRetrievalEngine({
      index,
      embedder: emb,
      config: withConfig(DEFAULT_RETRIEVAL_CONFIG, { dense: { backend: 'voy' } }),
      backends: { voy: dense.voy! },
    });
    const exactEngine = createRetrievalEngine({ index, embedder: emb });
    for (const q of ['ground risk buffer width', 'how is the SAIL derived', 'airspace observer duties']) {
      const a = await voyEngine.retrieve(q);
      const b = await exactEngine.retrieve(q);
      expect(a.trace.find((t) => t.stage.startsWith('dense'))!.stage).toBe('dense (voy)');
      expect(a.evidence).toEqual(b.evidence);
      expect(a.trace.find((t) => t.stage === 'dense (voy)')!.candidates).toEqual(b.trace.find((t) => t.stage === 'dense (exact)')!.candidates);
    }
  });

  it('falls back to the exact scan, saying why, when voy cannot be loaded or is not offered', async () => {
    const index = await tinyIndex(CHUNKS, emb);
    const failed = await denseBackendFor(index, 'voy', () => Promise.reject(new Error('HTTP 404')));
    expect(failed).toEqual({ voy: null, status: { backend: 'exact', buildMs: null, note: 'voy could not be loaded (HTTP 404): exact scan, same results.' } });
    expect((await denseBackendFor(index, 'voy', undefined)).status).toMatchObject({ backend: 'exact', note: expect.stringMatching(/not available/) });
    expect((await denseBackendFor(index, 'exact', loadVoyInNode)).status).toEqual({ backend: 'exact', buildMs: null });
  });
});
