/**
 * The runtime's retrieve reports what the document agents found in a form the Ask session can answer
 * from: each kept document's evidence ids and extractive refined context, the merged evidence with its
 * chunks in the same order, and the joined context.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

/** The in-process runtime over a served index, on WASM with the fake embedder. */
const runtime = (fetchImpl: typeof fetch) =>
  createInProcessRuntime({ baseUrl: 'http://localhost/', probeAdapter: async () => NO_ADAPTER, createEmbedder: async () => fakeEmbedder(), fetchImpl });
async function runtimeOver(fetchImpl: typeof fetch) {
  const rt = runtime(fetchImpl);
  await rt.init({ denseBackend: 'exact' });
  return rt;
}

describe('the document agents’ result in the runtime', () => {
  it('carries each kept document’s evidence and refined context, and the merged evidence with its chunks', async () => {
    const rt = await runtimeOver(await servedIndex());
    const r = await rt.retrieve('flying at night');
    const d = r.documents!;
    const kept = d.consulted.filter((c) => c.kept);
    expect(kept.length).toBeGreaterThan(0);
    for (const c of kept) {
      expect(c.evidenceIds.length).toBeGreaterThan(0);
      expect(c.refined.startsWith('[Document: ')).toBe(true);
      // the refined context cites passages of its own document
      for (const id of [...c.refined.matchAll(/^\[([^\]\s]+)\] /gm)].map((m) => m[1]!)) expect(c.evidenceIds).toContain(id);
    }
    expect(d.chunks.map((ch) => ch.id)).toEqual(d.evidence.map((e) => e.id));
    expect(d.context).toBe(kept.map((c) => c.refined).join('\n\n'));
  });
});

describe('the flat retrieval alone', () => {
  it('with agents: false returns the same flat evidence and no documents (the agents do not run)', async () => {
    const rt = await runtimeOver(await servedIndex());
    const both = await rt.retrieve('flying at night');
    const flat = await rt.retrieve('flying at night', { agents: false });
    expect(flat.documents).toBeUndefined();
    expect(flat.retrieval.evidence.map((e) => e.id)).toEqual(both.retrieval.evidence.map((e) => e.id));
    expect(flat.retrieval.ranked.map((c) => c.id)).toEqual(both.retrieval.ranked.map((c) => c.id));
  });
});

describe('the index hash for the audit record', () => {
  it('init() reports the SHA-256 of the manifest it fetched and verified (no second fetch needed)', async () => {
    const served = await servedIndex();
    const fetched: string[] = [];
    const rt = runtime((async (u: string | URL) => (fetched.push(String(u)), served(u))) as typeof fetch);
    const status = await rt.init({ denseBackend: 'exact' });
    const manifest = new Uint8Array(await (await served('http://localhost/static-index/manifest.json')).arrayBuffer());
    expect(status.manifestSha).toBe(createHash('sha256').update(manifest).digest('hex'));
    expect(fetched.filter((u) => u.endsWith('/manifest.json'))).toHaveLength(1);
  });
});
