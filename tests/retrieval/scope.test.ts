import { describe, expect, it } from 'vitest';
import { buildBm25 } from '../../src/core/index/bm25.js';
import type { LoadedIndex } from '../../src/core/index/load.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { checkScope } from '../../src/core/retrieval/scope.js';
import { noEvidenceReason } from '../../src/ui/ask/audit.js';
import { fakeEmbedder } from '../support/fake-embedder.js';

describe('scope check', () => {
  it('flags questions about penalties, with the words that decided it', () => {
    expect(checkScope('What fine do I get in Spain for flying without registration?')).toMatchObject({ category: 'penalties', matched: 'What fine' });
    expect(checkScope('Which penalties apply to an operator without an authorisation?')?.category).toBe('penalties');
    expect(checkScope('Can I be prosecuted for flying over a crowd?')?.category).toBe('penalties');
    expect(checkScope('Was he fined for it?')?.category).toBe('penalties');
  });

  it('does not read "fine" as an adjective or "pay attention" as a price', () => {
    expect(checkScope('Is it fine to fly a C1 drone over a park at dusk?')).toBeNull();
    expect(checkScope('Fine-grained population data: can I use it for the iGRC?')).toBeNull();
    expect(checkScope('How much attention must the remote pilot pay to the airspace observer?')).toBeNull();
  });

  it('flags prices, fees and premiums but not questions about what insurance the rules require', () => {
    expect(checkScope('How much does an operational authorisation cost in Austria?')?.category).toBe('prices');
    expect(checkScope('What is the fee for registering as a UAS operator?')?.category).toBe('prices');
    expect(checkScope('Typical insurance premium for a 25 kg drone?')?.category).toBe('prices');
    expect(checkScope('Does the operator need insurance coverage for a specific-category operation?')).toBeNull();
    expect(checkScope('How much of the ground risk buffer can be over a road?')).toBeNull();
  });

  it('leaves the regulation’s own subjects alone', () => {
    for (const q of [
      'How is the SAIL determined from the final GRC and the residual ARC?',
      'What does OSO #08 require at medium robustness?',
      'How wide must the ground risk buffer be for a fixed-wing aircraft at 120 m?',
    ])
      expect(checkScope(q)).toBeNull();
  });
});

describe('retrieval engine with the scope check', () => {
  const DIM = 16;
  const chunk: Chunk = {
    id: 'reg',
    docId: 'easa',
    kind: 'section',
    title: 'Registration of UAS operators',
    sectionPath: ['Registration'],
    pageStart: 3,
    pageEnd: 3,
    text: 'UAS operators shall register in the Member State of their principal place of business.',
    summary: 'Operators register.',
    keywords: [],
    jurisdiction: 'EU',
    edition: 'Ed',
    language: 'en',
    links: [],
    retrieval: 'Registration of UAS operators. UAS operators shall register.',
  };
  async function engineWith(calls: string[][]) {
    const base = fakeEmbedder(DIM);
    const embedder = { embed: async (t: string[]) => (calls.push(t), base.embed(t)) };
    const [v] = await base.embed([chunk.retrieval]);
    const index: LoadedIndex = {
      manifest: { dimension: DIM } as LoadedIndex['manifest'],
      chunks: [chunk],
      vectors: v!,
      summaryVectors: v!,
      bm25: buildBm25([chunk]),
      rowOf: new Map([['reg', 0]]),
      windows: { row: Int32Array.of(0), start: Int32Array.of(0), end: Int32Array.of(chunk.text.length), vectors: v!, count: 1 },
    };
    return createRetrievalEngine({ index, embedder });
  }

  it('returns no evidence with the reason, without embedding the question', async () => {
    const calls: string[][] = [];
    const engine = await engineWith(calls);
    const r = await engine.retrieve('What fine do I get for flying an unregistered drone?', { config: { minDenseScore: -1 } });
    expect(r.noEvidence).toBe(true);
    expect(r.evidence).toEqual([]);
    expect(r.context).toBe('');
    expect(r.outOfScope?.category).toBe('penalties');
    expect(r.trace.map((s) => s.stage)).toEqual(['scope']);
    expect(calls).toEqual([]);
    expect(noEvidenceReason(r)).toMatch(/national law/);
  });

  it('can be switched off, and then retrieves as usual', async () => {
    const calls: string[][] = [];
    const engine = await engineWith(calls);
    const r = await engine.retrieve('What fine do I get for flying an unregistered drone?', { config: { minDenseScore: -1, scope: { enabled: false } } });
    expect(r.outOfScope).toBeUndefined();
    expect(r.evidence.map((e) => e.id)).toEqual(['reg']);
    expect(calls.length).toBe(1);
  });
});
