import { describe, expect, it } from 'vitest';
import { identifierFormsFromTexts, normaliseIdentifiers, withIdentifiersAsPrinted } from '../../src/core/text/identifiers.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf as mk, tinyIndex } from '../support/tiny-index.js';

// hand-written stand-ins that number things the way the AMC prints them (zero-padded OSOs,
// "Step #n", lettered mitigations, dotted section numbers, Roman SAILs, "PDRA-S01", "STS-01")
const DOCUMENT_TEXTS = [
  'S.4.2 Step #2 — first numbered step. See also Step #1 and Step #8.',
  'OSO #03 one objective. OSO #08 another objective. OSO #12 and OSO #19 follow.',
  'Mitigation M1(A) sheltering, M1(B) operational restrictions and M1 (C) ground observation.',
  'E.8 objectives under adverse conditions; A.5.2 an example; S.4.10 the last step.',
  'A SAIL III operation; SAIL IV and SAIL II likewise.',
  'PDRA-S01 and PDRA-S02, unlike PDRA-S03; STS-01 and STS-02 under STS-01. DO-178, DO-254 and DO-160 are referenced.',
  'We do not fly; operators do this.',
];
const forms = identifierFormsFromTexts(DOCUMENT_TEXTS);
const norm = (q: string) => normaliseIdentifiers(q, forms);

describe('identifiers as people write them', () => {
  it('writes an OSO number the way the documents do: "OSO #8", "OSO 8", "oso8" → "OSO #08"', () => {
    expect(norm('What does OSO #8 require?')).toBe('What does OSO #08 require?');
    expect(norm('OSO 8')).toBe('OSO #08');
    expect(norm('oso8 and oso #12')).toBe('OSO #08 and oso #12'); // already the documents' form, but for the case
    expect(norm('OSO #08')).toBe('OSO #08');
  });

  it('writes a SORA step as "Step #n" without padding it', () => {
    expect(norm('Step 2 of the SORA')).toBe('Step #2 of the SORA');
    expect(norm('Step #2')).toBe('Step #2');
  });

  it('writes lettered mitigations "M1A", "M1 (A)", "m1(a)" as "M1(A)"', () => {
    expect(norm('M1A, M1 (A), m1(a), M1c')).toBe('M1(A), M1(A), M1(A), M1(C)');
  });

  it('writes dotted section numbers with their dots: "S4.2", "s.4.2" → "S.4.2", "e.8" → "E.8"', () => {
    expect(norm('S4.2 and s.4.2 and S4.10')).toBe('S.4.2 and S.4.2 and S.4.10');
    expect(norm('see e.8')).toBe('see E.8');
  });

  it('writes a SAIL with the Roman numeral the documents use, and series numbers padded: "PDRA S1", "STS 1"', () => {
    expect(norm('a SAIL 4 operation')).toBe('a SAIL IV operation');
    expect(norm('PDRA S1 or pdra-s2, STS 1')).toBe('PDRA-S01 or PDRA-S02, STS-01');
  });

  it('leaves alone what the documents do not number that way: names, quantities, ordinary words', () => {
    for (const q of ['the C2 link', 'within a 2.5 km radius', 'do 5 flights count?', 'OSO #8 ', 'Article 11', 'E8 engines', 'TMPR 3']) {
      expect(norm(q)).toBe(q === 'OSO #8 ' ? 'OSO #08 ' : q);
    }
    // learned nothing, rewrites nothing
    const none = identifierFormsFromTexts(['plain prose without numbered identifiers']);
    expect(normaliseIdentifiers('OSO #8, Step 2, M1A, S4.2', none)).toBe('OSO #8, Step 2, M1A, S4.2');
  });
});

describe('the BM25 field with identifiers as the documents mostly print them', () => {
  it('writes a stray "OSO #8" of the documents as "OSO #08", leaving runs into digits (a word and its footnote mark) alone', () => {
    const chunk = (id: string, text: string) => ({ id, title: id, text, retrieval: `${id}. ${text}` });
    const out = withIdentifiersAsPrinted([
      chunk('a', 'OSO #03, OSO #08 and OSO #12 apply.'),
      chunk('b', 'See OSO #8 and the UAS3 operator.'),
      chunk('c', 'As OSO #081 says.'),
    ]);
    expect(out.map((c) => c.retrieval)).toEqual(['a. OSO #03, OSO #08 and OSO #12 apply.', 'b. See OSO #08 and the UAS3 operator.', 'c. As OSO #081 says.']);
    expect(out[1]!.text).toBe('See OSO #8 and the UAS3 operator.'); // the passage shown stays as printed
  });
});

describe('retrieval with identifiers as people write them', () => {
  const emb = fakeEmbedder(64);
  const CHUNKS = [
    mk('oso-03', 'OSO #03 Maintenance', 'OSO #03 The UAS is maintained by a competent entity.'),
    mk('oso-08', 'OSO #08 Operational procedures', 'OSO #08 Operational procedures are defined, validated and adhered to.'),
    mk('oso-12', 'OSO #12 Design', 'OSO #12 The UAS is designed to manage the deterioration of external systems.'),
    mk('oso-16', 'OSO #16 Multi-crew coordination', 'OSO #16 Multi-crew coordination is ensured.'),
    mk('oso-17', 'OSO #17 Fitness', 'OSO #17 Remote crew members are fit to operate.'),
    mk('oso-19', 'OSO #19 Recovery', 'OSO #19 Safe recovery from human error.'),
    mk('step-8', 'S.4.8 Step #8 Containment', 'Step #8 determines the containment requirements; at Step #8 the adjacent area is assessed.'),
    mk('e-8', 'E.8 Adverse operating conditions', 'E.8 objectives related to adverse operating conditions.'),
  ];

  it('finds "OSO #08" for "OSO #8", not Step #8 or E.8, in the engine and through the app path (alternativesOf + retrieveWithVector)', async () => {
    const index = await tinyIndex(CHUNKS, emb);
    const engine = createRetrievalEngine({ index, embedder: emb });
    const options = { config: { gate: { enabled: false } } };
    const r = await engine.retrieve('OSO #8', options);
    expect(r.evidence[0]!.id).toBe('oso-08');
    expect(r.query).toBe('OSO #8');
    expect(r.trace.find((s) => s.stage === 'identifiers as the documents write them')?.note).toBe('OSO #08');
    const [qv, ...alts] = await emb.embed(['OSO #8', ...engine.alternativesOf('OSO #8', options)], 'query');
    const viaApp = await engine.retrieveWithVector('OSO #8', qv!, options, alts);
    expect(viaApp.evidence[0]!.id).toBe('oso-08');
    // switched off, the number "8" matches the step and the annex section instead
    const off = await engine.retrieve('OSO #8', { config: { gate: { enabled: false }, identifiers: { enabled: false } } });
    expect(off.evidence[0]!.id).not.toBe('oso-08');
  });
});
