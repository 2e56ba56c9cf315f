import { describe, expect, it } from 'vitest';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import {
  agentConfigForEmbedder,
  chooseDocuments,
  createDocumentAgents,
  DEFAULT_AGENT_CONFIG,
  type DocumentScore,
  documentIdentifiers,
  namedDocuments,
  questionMode,
  scoreDocuments,
} from '../../src/core/agents/agents.js';
import { editionNote } from '../../src/core/text/edition.js';
import { documentSelection, goldDocuments } from '../../src/core/evaluation/retrieval-metrics.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf as mk, tinyIndex } from '../support/tiny-index.js';

const DIM = 64;
const emb = fakeEmbedder(DIM);

// three sources without entry structure: one document each
const CHUNKS = [
  mk('batt/1', 'Battery charging', 'Charge the battery before every flight and record the charge in the battery log.', 'EU', 'batt'),
  mk('batt/2', 'Battery storage', 'Store the battery at half charge in a fireproof bag.', 'EU', 'batt'),
  mk('wx/1', 'Wind limits', 'Do not fly when the wind exceeds the limit printed in the manual.', 'EU', 'wx'),
  mk('wx/2', 'Rain and icing', 'Rain and icing conditions ground the aircraft.', 'EU', 'wx'),
  mk('de/1', 'Flights near hospitals', 'Flights near hospitals in Germany need the consent of the hospital.', 'DE', 'de'),
  mk('de/2', 'Night flights', 'Night flights in Germany need a lighting plan.', 'DE', 'de'),
];

async function setup() {
  const index = await tinyIndex(CHUNKS, emb);
  const engine = createRetrievalEngine({ index, embedder: emb });
  return { index, engine, agents: createDocumentAgents(index, engine) };
}
const vec = async (q: string) => (await emb.embed([q]))[0]!;

describe('document scoring', () => {
  it('ranks the document whose summary and hits match the question first, the hit shares summing to one', async () => {
    const { index } = await setup();
    const q = 'battery charge log';
    const flat = [0, 1, 2]; // rows: batt/1, batt/2, wx/1
    const s = scoreDocuments(index.documents, DIM, await vec(q), flat);
    expect(index.documents.units[s[0]!.doc]!.id).toBe('batt');
    expect(s[0]!.hitCount).toBe(2);
    expect(s.reduce((a, x) => a + x.hits, 0)).toBeCloseTo(1, 10);
    // the weights decide: with the hits alone, a document owning no flat candidate scores 0
    const hitsOnly = scoreDocuments(index.documents, DIM, await vec(q), [2, 3], { ...DEFAULT_AGENT_CONFIG, summaryWeight: 0, hitsWeight: 1 });
    expect(index.documents.units[hitsOnly[0]!.doc]!.id).toBe('wx');
    expect(hitsOnly.find((x) => index.documents.units[x.doc]!.id === 'batt')!.score).toBe(0);
  });

  it("always consults the document of the flat run's first passage when keepFlatTop is on, in the last place", () => {
    const sc = (doc: number, score: number): DocumentScore => ({ doc, score, summary: 0, bestNode: [], hits: 0, hitCount: 0, named: [] });
    const scores = [sc(0, 0.9), sc(1, 0.8), sc(2, 0.7), sc(3, 0.1)];
    const on = chooseDocuments(scores, 3, { topDocuments: 3, keepFlatTop: true });
    expect(on.map((s) => s.doc)).toEqual([0, 1, 3]);
    expect(on[2]!.anchor).toBe(true);
    expect(chooseDocuments(scores, 3, { topDocuments: 3, keepFlatTop: false }).map((s) => s.doc)).toEqual([0, 1, 2]);
    // already among the chosen, or excluded by the filters (not scored), or no flat passage: nothing changes
    expect(chooseDocuments(scores, 1, { topDocuments: 3, keepFlatTop: true }).map((s) => s.doc)).toEqual([0, 1, 2]);
    expect(chooseDocuments(scores, 7, { topDocuments: 3, keepFlatTop: true }).map((s) => s.doc)).toEqual([0, 1, 2]);
    expect(chooseDocuments(scores, undefined, { topDocuments: 3, keepFlatTop: true }).map((s) => s.doc)).toEqual([0, 1, 2]);
  });

  it('leaves out documents the question filters exclude', async () => {
    const { index } = await setup();
    const s = scoreDocuments(index.documents, DIM, await vec('night flights'), [], DEFAULT_AGENT_CONFIG, (d) => d.jurisdiction === 'EU');
    expect(s.map((x) => index.documents.units[x.doc]!.id).sort()).toEqual(['batt', 'wx']);
  });
});

describe('documents named in the question', () => {
  const TITLES = [
    'AMC & GM to Article 11 — Rules for conducting an operational risk assessment',
    'Annex B to AMC1 Article 11 — Integrity and assurance levels for the mitigations',
    'Annex E to AMC1 to Article 11 — Integrity and assurance levels for the OSOs',
    'AMC & GM to UAS.SPEC.030 — Application for an operational authorisation — EASA Form 208',
    'AMC1bis Article 11 Rules for conducting an operational risk assessment',
  ];

  it('reads the printed identifiers of a title', () => {
    expect(documentIdentifiers(TITLES[1]!)).toEqual(['ANNEX B', 'ARTICLE 11']);
    expect(documentIdentifiers(TITLES[3]!)).toEqual(['UAS.SPEC.030', 'FORM 208']);
    expect(documentIdentifiers(TITLES[4]!)).toEqual(['AMC1BIS', 'ARTICLE 11']);
    expect(documentIdentifiers('How is the annual inspection planned?')).toEqual([]);
  });

  it('names the document whose identifiers the question gives, preferring the title with none left over', () => {
    expect([...namedDocuments('What does annex b require for M1(A)?', TITLES)]).toEqual([[1, ['ANNEX B']]]);
    // "Article 11" alone: the Article 11 document, not its annexes, which carry an identifier of their own
    expect([...namedDocuments('Which steps does Article 11 set out?', TITLES)]).toEqual([[0, ['ARTICLE 11']]]);
    expect([...namedDocuments('Who signs EASA Form 208 under UAS.SPEC.030?', TITLES)]).toEqual([[3, ['UAS.SPEC.030', 'FORM 208']]]);
    expect(namedDocuments('What is an annex in general?', TITLES).size).toBe(0);
    expect(namedDocuments('Annex Z of something else', TITLES).size).toBe(0);
  });

  it('ranks a named document before the others whatever its summary match and hits', async () => {
    const { index } = await setup();
    const wx = index.documents.units.findIndex((d) => d.id === 'wx');
    const docs = { ...index.documents, units: index.documents.units.map((d, i) => (i === wx ? { ...d, title: `Annex C — ${d.title}` } : d)) };
    const rowsOfBattery = [0, 1]; // the flat run found only the battery document's passages
    const q = 'battery charge log under annex c';
    const s = scoreDocuments(docs, DIM, await vec(q), rowsOfBattery, DEFAULT_AGENT_CONFIG, () => true, q);
    expect(s[0]!.doc).toBe(wx);
    expect(s[0]!.named).toEqual(['ANNEX C']);
    expect(s[1]!.score).toBeGreaterThan(s[0]!.score); // first by name, not by score
    const off = scoreDocuments(docs, DIM, await vec(q), rowsOfBattery, { ...DEFAULT_AGENT_CONFIG, namedFirst: false }, () => true, q);
    expect(docs.units[off[0]!.doc]!.id).toBe('batt');
  });
});

describe('document agents', () => {
  it('consults at most three documents, each retrieving only inside itself, and says why', async () => {
    const { agents, index } = await setup();
    const r = await agents.run('battery charge before flight', await vec('battery charge before flight'), { config: { gate: { enabled: false } } });
    expect(r.consulted.length).toBe(3);
    expect(r.consulted[0]!.id).toBe('batt');
    for (const c of r.consulted) {
      for (const e of c.evidence) expect(index.chunks[e.row]!.documentId).toBe(c.id);
      expect(c.reason).toMatch(/owns \d+ of the top 20 passages; closest summary: .*, summary match \d\.\d\d/);
      // the same in plain words, without the figures (issue 35, item 6)
      expect(c.why).toMatch(/^Used: /);
      expect(c.why).not.toMatch(/\d\.\d|summary match|cosine/);
    }
    expect(r.evidence[0]!.id).toBe('batt/1');
    // the refined context is extractive and cited, with the document's edition in its header
    expect(r.context).toContain('[Document: Source batt — Ed');
    expect(r.context).toContain('[batt/1] Battery charging');
  });

  it("merges the documents' evidence in the flat run's global order, or by document-weighted reciprocal rank", async () => {
    const { index, engine } = await setup();
    const q = 'flights battery wind';
    const opts = { config: { gate: { enabled: false } } };
    const global = await createDocumentAgents(index, engine).run(q, await vec(q), opts);
    const flatIds = global.flat.trace.find((t) => t.stage === 'rerank')!.candidates.map((c) => c.id);
    const ids = global.evidence.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => flatIds.indexOf(a) - flatIds.indexOf(b)));
    const rrf = await createDocumentAgents(index, engine, { ...DEFAULT_AGENT_CONFIG, merge: 'weighted-rrf' }).run(q, await vec(q), opts);
    expect(new Set(rrf.evidence.map((e) => e.id))).toEqual(new Set(ids));
    // weighted RRF: every document's first passage comes before any document's third
    const firstOfEach = rrf.consulted.filter((c) => c.kept).map((c) => c.evidence[0]!.id);
    const thirds = rrf.consulted.filter((c) => c.kept && c.evidence[2]).map((c) => c.evidence[2]!.id);
    for (const f of firstOfEach)
      for (const t of thirds) expect(rrf.evidence.findIndex((e) => e.id === f)).toBeLessThan(rrf.evidence.findIndex((e) => e.id === t));
  });

  it('with keepFlatEvidence, a kept document keeps every passage the flat run found in it', async () => {
    const { index, engine } = await setup();
    const q = 'flights battery wind';
    const base = { ...DEFAULT_AGENT_CONFIG, inDocument: { keep: 1 } };
    const opts = { config: { gate: { enabled: false } } };
    const only = await createDocumentAgents(index, engine, { ...base, keepFlatEvidence: false }).run(q, await vec(q), opts);
    const kept = await createDocumentAgents(index, engine, { ...base, keepFlatEvidence: true }).run(q, await vec(q), opts);
    for (const c of only.consulted.filter((x) => x.kept)) expect(c.evidence).toHaveLength(1);
    for (const c of kept.consulted.filter((x) => x.kept)) {
      const flatOfDoc = kept.flat.evidence.filter((e) => index.chunks[e.row]!.documentId === c.id).map((e) => e.id);
      expect(flatOfDoc.length).toBeGreaterThan(1);
      expect(c.evidence.map((e) => e.id).sort()).toEqual(flatOfDoc.sort());
    }
  });

  it('drops a document whose best evidence is below the gate, and keeps its reason', async () => {
    const { agents } = await setup();
    const q = 'battery charge log before every flight';
    const r = await agents.run(q, await vec(q), { config: { gate: { minDense: 0.45 } } });
    const dropped = r.consulted.filter((c) => !c.kept);
    expect(dropped.length).toBeGreaterThan(0);
    for (const c of dropped) {
      expect(c.reason).toMatch(/dropped: best dense cosine/);
      expect(c.why).toMatch(/^Searched \(.*\), but none of its passages is close enough to the question to be shown\.$/);
      expect(c.why).not.toMatch(/cosine|\d\.\d/);
      expect(c.evidence).toEqual([]);
    }
    expect(r.consulted.find((c) => c.id === 'batt')!.kept).toBe(true);
    expect(r.evidence.every((e) => e.id.startsWith('batt/'))).toBe(true);
  });

  it('with backfill, gives the place of a document dropped at the gate to the next document by score, and says so', async () => {
    const { index, engine } = await setup();
    // the gate of the search inside 'wx' finds nothing (as a threshold would); the flat run is untouched
    const gated: typeof engine = {
      ...engine,
      async retrieveWithVector(query, vector, options = {}, alt = []) {
        const r = await engine.retrieveWithVector(query, vector, options, alt);
        return options.filters?.documentIds?.[0] === 'wx' ? { ...r, evidence: [], noEvidence: true, gate: { ...r.gate!, note: 'below the gate' } } : r;
      },
    };
    const q = 'wind limit battery';
    const cfg = { ...DEFAULT_AGENT_CONFIG, topDocuments: 2 };
    const open = { config: { gate: { enabled: false } } };
    const without = await createDocumentAgents(index, gated, cfg).run(q, await vec(q), open);
    expect(without.consulted.map((c) => [c.id, c.kept])).toEqual([
      ['wx', false],
      ['batt', true],
    ]);
    const withFill = await createDocumentAgents(index, gated, { ...cfg, backfill: true }).run(q, await vec(q), open);
    expect(withFill.consulted.map((c) => [c.id, c.kept, c.backfilled ?? false])).toEqual([
      ['wx', false, false],
      ['batt', true, false],
      ['de', true, true],
    ]);
    expect(withFill.consulted[2]!.reason).toMatch(/^next by score, in place of a document dropped at the evidence gate; /);
    expect(withFill.evidence.some((e) => e.id.startsWith('de/'))).toBe(true);
    // nothing dropped: no document is added
    const none = await createDocumentAgents(index, engine, { ...cfg, backfill: true }).run(q, await vec(q), open);
    expect(none.consulted.map((c) => c.id)).toEqual(['wx', 'batt']);
  });

  it("keeps a national question in its country's documents, and consults the EU documents once it is broadened", async () => {
    const { agents } = await setup();
    const night = 'night flights lighting plan';
    const de = await agents.run(night, await vec(night), { filters: { jurisdictions: ['DE'] } });
    expect(de.flat.broadened).toBe(false);
    expect(de.consulted.map((c) => c.id)).toEqual(['de']);
    // nothing German about batteries: the flat run broadens to DE + EU, and so do the agents, each still inside its own document
    const batt = 'battery charge log before every flight';
    const r = await agents.run(batt, await vec(batt), { filters: { jurisdictions: ['DE'] }, config: { gate: { minDense: 0.45 } } });
    expect(r.flat.broadened).toBe(true);
    expect(r.consulted.map((c) => c.id)).toContain('batt');
    for (const c of r.consulted) for (const e of c.evidence) expect(e.id.startsWith(`${c.id}/`)).toBe(true);
    expect(r.consulted.find((c) => c.id === 'batt')!.kept).toBe(true);
  });

  it('answers an overview question from the summary index', async () => {
    const { agents } = await setup();
    expect(questionMode('Summarise the rules on battery storage')).toBe('summary');
    expect(questionMode('What is Annex E about?')).toBe('summary');
    expect(questionMode('How wide is the ground risk buffer?')).toBe('fact');
    const q = 'Give an overview of battery handling';
    const r = await agents.run(q, await vec(q), { config: { gate: { enabled: false } } });
    expect(r.mode).toBe('summary');
    expect(r.consulted[0]!.refined).toContain('Source batt (p. 1, 2 sections, 2 passages).');
  });
});

describe('edition awareness', () => {
  it('notes when the kept documents print different SORA editions, and only then', () => {
    expect(editionNote(['SORA 2.5, Edition September 2025 (as printed in AMC & GM)', 'SORA 2.0-era AMC1 Article 11 (SORA 2.0)'])).toMatch(
      /mixes SORA editions \(SORA 2\.0 and SORA 2\.5\)/,
    );
    expect(editionNote(['SORA 2.5, Edition September 2025', 'SORA 2.5, Edition September 2025'])).toBeNull();
    expect(editionNote(['Amdt 3', 'National guidance 2024'])).toBeNull();
  });

  it("puts each passage's document edition in its context block, and notes a context that mixes SORA editions", async () => {
    const chunks = [
      mk('new/1', 'Containment', 'The adjacent area is the distance flown in 3 minutes at maximum speed.', 'EU', 'new'),
      mk('old/1', 'Containment (2.0)', 'The adjacent area is 1 km around the operational volume.', 'EU', 'old'),
      mk('nat/1', 'Local rule', 'Flights over the lake need a permit.', 'EU', 'nat'),
    ];
    const index = await tinyIndex(chunks, emb, {
      editions: { new: 'SORA 2.5, Edition September 2025 (as printed in AMC & GM)', old: 'SORA 2.0, Edition December 2020', nat: 'Edition 2' },
    });
    const engine = createRetrievalEngine({ index, embedder: emb });
    const opts = { config: { gate: { enabled: false } } };
    const both = await engine.retrieve('adjacent area distance', opts);
    expect(both.context).toContain('[new/1] Containment — new, SORA 2.5, Edition September 2025, page 1\n');
    expect(both.context).toContain('[old/1] Containment (2.0) — old, SORA 2.0, Edition December 2020, page 1\n');
    expect(both.editionNote).toMatch(/mixes SORA editions \(SORA 2\.0 and SORA 2\.5\)/);
    const one = await engine.retrieve('adjacent area distance', { ...opts, filters: { docIds: ['new', 'nat'] } });
    expect(one.context).toContain('[nat/1] Local rule — nat, Edition 2, page 1\n');
    expect(one.editionNote).toBeUndefined();
    // the note covers every passage shown, also one the context budget left out
    const small = await engine.retrieve('adjacent area distance', { config: { gate: { enabled: false }, contextChars: 150 } });
    expect(small.evidence.map((e) => e.id)).toEqual(expect.arrayContaining(['new/1', 'old/1']));
    expect(small.context).not.toContain('[old/1]');
    expect(small.editionNote).toMatch(/mixes SORA editions/);
  });
});

describe('agent choices per embedder', () => {
  it('gives the downloaded retrieval model its cross-validated hit pool and every other model the defaults', () => {
    expect(agentConfigForEmbedder(null)).toEqual(DEFAULT_AGENT_CONFIG);
    expect(agentConfigForEmbedder('sentence-transformers/all-MiniLM-L6-v2')).toEqual(DEFAULT_AGENT_CONFIG);
    expect(agentConfigForEmbedder('google/embeddinggemma-300m')).toEqual({ ...DEFAULT_AGENT_CONFIG, hitPool: 10 });
    // on top of another base (the eval's --agent-merge)
    expect(agentConfigForEmbedder('google/embeddinggemma-300m', { ...DEFAULT_AGENT_CONFIG, merge: 'weighted-rrf' })).toMatchObject({
      merge: 'weighted-rrf',
      hitPool: 10,
    });
  });
});

describe('document selection metric', () => {
  it('counts the gold passage document among the first and the first three selected', () => {
    const ds = documentSelection([
      { gold: ['a'], selected: ['a', 'b', 'c'] },
      { gold: ['b'], selected: ['a', 'b', 'c'] },
      { gold: ['d'], selected: ['a', 'b', 'c'] },
      { gold: [], selected: ['a'] },
    ]);
    expect(ds).toEqual({ n: 3, top1: 1 / 3, top3: 2 / 3, kept: 2 / 3 });
    // kept: the documents whose evidence passed the gate (a selected document dropped there does not count)
    const gated = documentSelection([
      { gold: ['a'], selected: ['a', 'b', 'c'], kept: ['b'] },
      { gold: ['d'], selected: ['a', 'b', 'c'], kept: ['b', 'd'] },
    ]);
    expect(gated).toEqual({ n: 2, top1: 0.5, top3: 0.5, kept: 0.5 });
  });

  it('finds the gold documents from the question quotes', async () => {
    const { index } = await setup();
    const q = { id: 'x', variant: 'direct', question: '?', corpus: 'any', answerable: true, evidence: [{ quote: 'fireproof bag' }] };
    expect(goldDocuments(q, index.chunks)).toEqual(['batt']);
  });
});

describe('document agents and the editions filter', () => {
  it('does not consult a document of an edition the filters exclude (it would take a place and be dropped at the gate)', async () => {
    const ed = (c: ReturnType<typeof mk>, edition: string) => ({ ...c, edition });
    const chunks = [
      ed(mk('old/1', 'Battery charging', 'Charge the battery before every flight and record the charge in the battery log.', 'EU', 'old'), 'SORA 2.0'),
      ed(mk('old/2', 'Battery storage', 'Store the battery at half charge in a fireproof bag.', 'EU', 'old'), 'SORA 2.0'),
      ed(mk('new/1', 'Battery records', 'Record every battery charge in the log.', 'EU', 'new'), 'SORA 2.5'),
      ed(mk('wx/1', 'Wind limits', 'Do not fly when the wind exceeds the limit printed in the manual.', 'EU', 'wx'), 'SORA 2.5'),
    ];
    const index = await tinyIndex(chunks, emb, { editions: { old: 'SORA 2.0', new: 'SORA 2.5', wx: 'SORA 2.5' } });
    const engine = createRetrievalEngine({ index, embedder: emb });
    const agents = createDocumentAgents(index, engine);
    const q = 'battery charge log';
    const r = await agents.run(q, await vec(q), { filters: { editions: ['2.5'] } });
    expect(r.consulted.map((c) => c.id)).not.toContain('old');
    expect(r.consulted.length).toBeGreaterThan(0);
  });
});
