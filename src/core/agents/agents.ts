/**
 * Document agents (the agent-based RAG paper, its step 2): score the logical
 * documents for the question from the chunk hits they own in the flat retrieval
 * (and, with a weight, the summary index), keep the top N (3) with the flat top
 * passage's document always among them, let each document's agent retrieve inside
 * its document with the vector lists, drop a document whose best evidence is below
 * the evidence gate, and build a refined context per document (extractive: the
 * best passage windows of its evidence, in evidence-only mode). The final ranking
 * puts the kept documents' evidence in the flat run's order (or weights it by the
 * documents' scores: `merge`).
 *
 * Pure TypeScript over the loaded index and a retrieval engine: runs in Node
 * (eval, CLI) and in the browser worker alike.
 */
import type { DocumentIndex, LoadedIndex } from '../index/load.js';
import type { DocumentUnit } from '../ingest/documents.js';
import { collapseWhitespace } from '../text/sentences.js';
import { formatPages } from '../retrieval/context.js';
import { editionNote } from '../text/edition.js';
import { dot } from '../embedding/similarity.js';
import { broaden, type RetrievalEngine, type RetrieveOptions } from '../retrieval/engine.js';
import type { RetrievalConfigOverrides } from '../retrieval/config.js';
import { deepMerge } from '../config/merge.js';
import type { Evidence, RetrievalResult } from '../retrieval/types.js';
import { windowScorer } from '../retrieval/windows.js';

export interface AgentConfig {
  /** Documents kept (the paper: 3). */
  topDocuments: number;
  /** Weight of the summary-index match (best cosine of the document's node or one of its sections). */
  summaryWeight: number;
  /** Weight of the document's share of the flat retrieval's ranked candidates. */
  hitsWeight: number;
  /** The document(s) the question names by a printed identifier ("Annex B", "UAS.SPEC.030", "Article 12"; see namedDocuments) rank before all others. */
  namedFirst: boolean;
  /**
   * The document of the flat run's first passage is always consulted (it takes the last
   * of the topDocuments places when the scores left it out).
   */
  keepFlatTop: boolean;
  /**
   * The flat run's evidence in a kept document stays in that document's evidence (the
   * search inside one document fuses its lists again and can rank a passage lower than
   * the flat run did).
   */
  keepFlatEvidence: boolean;
  /** Flat candidates counted for the hit share. */
  hitPool: number;
  /** Reciprocal-rank constant of the hit share and of the merge (as RRF's k). */
  k: number;
  /** Refined context: passages per document and characters per document. */
  refined: { passages: number; chars: number };
  /**
   * How the kept documents' evidence is merged into one ranking:
   * 'global' — in the order of the flat run's fused ranking (one score scale for all documents),
   *   passages the flat run did not rank after them;
   * 'weighted-rrf' — Σ (document score / best document score) / (k + rank in its document).
   */
  merge: 'global' | 'weighted-rrf';
  /**
   * A consulted document dropped at the evidence gate gives its place to the next document by
   * score (at most topDocuments replacements), so that up to topDocuments documents with
   * evidence inform the answer; the dropped one stays listed as dropped.
   */
  backfill: boolean;
  /** Overrides for the retrieval inside each document (the app switches the reranker off there: one cross-encoder pass per question). */
  inDocument: RetrievalConfigOverrides;
}

/**
 * Defaults: the paper's top 3 and RRF's k = 60, fixed a priori; the selection weights,
 * keepFlatTop, keepFlatEvidence, the in-document lists and the merge are the values
 * group-wise cross-validation picked (`npm run eval -- --agents --cv 5 --knobs agents`,
 * AGENT_KNOBS in corpus-build/eval/knobs.ts; figures in docs/agents.md).
 */
export const DEFAULT_AGENT_CONFIG: AgentConfig = {
  topDocuments: 3,
  summaryWeight: 0,
  hitsWeight: 1,
  namedFirst: true,
  keepFlatTop: true,
  keepFlatEvidence: false,
  hitPool: 20,
  k: 60,
  refined: { passages: 3, chars: 1500 },
  merge: 'global',
  backfill: false,
  inDocument: { bm25: { enabled: false } },
};

/**
 * Agent choices that differ with another embedder, each kept because group-wise 5-fold
 * cross-validation picked it on every fold with that embedder's vector set (`npm run eval --
 * --questions … --agents --cv 5 --knobs agents --embedder <id>`, docs/agents.md), as config.ts's
 * EMBEDDER_CHOICES does for retrieval: with EmbeddingGemma, the hit share counts the flat run's top 10
 * (CV MRR 0.624 → 0.630).
 */
const EMBEDDER_AGENT_CHOICES: Record<string, Partial<AgentConfig>> = {
  'google/embeddinggemma-300m': { hitPool: 10 },
};

/** The agents' configuration for retrieval with an embedder's vector set (`null`: the built-in model). */
export function agentConfigForEmbedder(modelId: string | null, base: AgentConfig = DEFAULT_AGENT_CONFIG): AgentConfig {
  return { ...base, ...((modelId && EMBEDDER_AGENT_CHOICES[modelId]) || {}) };
}

/** A document's pages as printed in its header and in "Documents consulted" ("pages 12–40", or "unpaged"). */
export const documentPages = (d: DocumentUnit): string => (d.pageStart !== null ? formatPages(d) : 'unpaged');

/** The header every refined context block starts with (extractive, summary or model-condensed): title, edition, pages. */
export const documentHeader = (d: { title: string; edition: string; pages: string }): string => `[Document: ${d.title} — ${d.edition} — ${d.pages}]`;

export interface DocumentScore {
  /** Index in the document index. */
  doc: number;
  score: number;
  /** Best summary-index cosine and the node it came from (the document itself or one section's path). */
  summary: number;
  bestNode: string[];
  /** Share of the flat candidates' reciprocal-rank mass, and how many of the top candidates it owns. */
  hits: number;
  hitCount: number;
  /** The identifiers of its title the question names, when it is the document the question names (else empty). */
  named: string[];
  /** Consulted because it holds the flat run's first passage (AgentConfig.keepFlatTop), not for its score. */
  anchor?: boolean;
}

/** Why a document was searched and whether it was used, in plain words (the figures stay in `reason`). */
export function consultedWhy(s: Pick<DocumentScore, 'named' | 'anchor' | 'hitCount'>, kept: boolean, backfilled: boolean): string {
  const why = s.named.length
    ? `your question names it (${s.named.join(', ')})`
    : s.anchor
      ? 'it holds the passage closest to your question'
      : backfilled
        ? 'searched in place of a document that had nothing close enough'
        : s.hitCount > 0
          ? `${s.hitCount === 1 ? 'one' : s.hitCount} of the passages closest to your question ${s.hitCount === 1 ? 'is' : 'are'} in it`
          : 'its summary is close to your question';
  return kept ? `Used: ${why}.` : `Searched (${why}), but none of its passages is close enough to the question to be shown.`;
}

/**
 * The printed identifiers in a document title, as the regulation numbers its parts: "Annex B",
 * "Article 11", "UAS.SPEC.030", "Form 208", "AMC1bis" (normalised: one space, upper-case letters).
 */
export function documentIdentifiers(title: string): string[] {
  const ids = new Set<string>();
  for (const m of title.matchAll(/\b(annex\s+[a-z]|article\s+\d+|uas\.[a-z]+\.\d+|form\s+\d+|amc\d*bis)\b/gi))
    ids.add(m[1]!.replace(/\s+/g, ' ').toUpperCase());
  return [...ids];
}

/**
 * The documents a question names: those whose title identifiers the question contains most of,
 * ties going to the titles with fewer identifiers it does not name ("Article 11" names the
 * Article 11 document, not "Annex B to AMC1 Article 11"). Map: document index → identifiers named.
 */
export function namedDocuments(query: string, titles: readonly string[]): Map<number, string[]> {
  const asked = new Set(documentIdentifiers(query));
  const out = new Map<number, string[]>();
  if (!asked.size) return out;
  // most identifiers named first, then fewest left over
  const hits = titles.map((t) => {
    const ids = documentIdentifiers(t);
    const named = ids.filter((i) => asked.has(i));
    return { named, leftOver: ids.length - named.length };
  });
  const named = hits.filter((h) => h.named.length);
  if (!named.length) return out;
  const most = Math.max(...named.map((h) => h.named.length));
  const fewest = Math.min(...named.filter((h) => h.named.length === most).map((h) => h.leftOver));
  hits.forEach((h, i) => {
    if (h.named.length === most && h.leftOver === fewest) out.set(i, h.named);
  });
  return out;
}

/**
 * Score every allowed document: summaryWeight × (best node cosine / best over documents)
 * + hitsWeight × (share of Σ 1/(k + rank) of the flat candidates it owns); best first, the
 * documents the question names (namedFirst) before the others.
 */
export function scoreDocuments(
  docs: DocumentIndex,
  dim: number,
  queryVector: Float32Array,
  flatRanked: readonly number[],
  cfg: AgentConfig = DEFAULT_AGENT_CONFIG,
  allowed: (d: DocumentUnit) => boolean = () => true,
  query = '',
): DocumentScore[] {
  const named = namedDocuments(
    query,
    docs.units.map((d) => (allowed(d) ? d.title : '')),
  );
  const out: DocumentScore[] = [];
  const mass = new Float64Array(docs.units.length);
  const count = new Int32Array(docs.units.length);
  let total = 0;
  flatRanked.slice(0, cfg.hitPool).forEach((row, i) => {
    const d = docs.docOfRow[row]!;
    const w = 1 / (cfg.k + i + 1);
    mass[d] = mass[d]! + w;
    count[d] = count[d]! + 1;
    total += w;
  });
  docs.units.forEach((d, i) => {
    if (!allowed(d)) return;
    const first = docs.nodeRow[i]!;
    let best = dot(queryVector, docs.vectors, first * dim, dim);
    let bestNode: string[] = [];
    d.sections.forEach((s, j) => {
      const c = dot(queryVector, docs.vectors, (first + 1 + j) * dim, dim);
      if (c > best) {
        best = c;
        bestNode = s.path;
      }
    });
    out.push({ doc: i, score: 0, summary: best, bestNode, hits: total ? mass[i]! / total : 0, hitCount: count[i]!, named: named.get(i) ?? [] });
  });
  const top = Math.max(1e-9, ...out.map((o) => o.summary));
  for (const o of out) o.score = cfg.summaryWeight * Math.max(0, o.summary / top) + cfg.hitsWeight * o.hits;
  const first = (o: DocumentScore) => (cfg.namedFirst && o.named.length ? 0 : 1);
  return out.sort((a, b) => first(a) - first(b) || b.score - a.score || a.doc - b.doc);
}

/**
 * The documents consulted: the best topDocuments scores; with keepFlatTop, the document
 * holding the flat run's first passage (`anchorDoc`) takes the last place when the scores
 * left it out (marked `anchor`). A document the filters excluded (absent from `scores`) is
 * never added.
 */
export function chooseDocuments(
  scores: readonly DocumentScore[],
  anchorDoc: number | undefined,
  cfg: Pick<AgentConfig, 'topDocuments' | 'keepFlatTop'>,
): DocumentScore[] {
  const chosen = scores.slice(0, cfg.topDocuments);
  if (!cfg.keepFlatTop || anchorDoc === undefined || !chosen.length || chosen.some((s) => s.doc === anchorDoc)) return chosen;
  const s = scores.find((x) => x.doc === anchorDoc);
  if (s) chosen[chosen.length - 1] = { ...s, anchor: true };
  return chosen;
}

/** Rule: an overview question ("summarise …", "what is Annex E about") is answered from the summary index, a fact question by the vector engine. */
export function questionMode(query: string): 'summary' | 'fact' {
  return /\b(summari[sz]e|summary of|overview|outline of|main points|what (?:is|are) (?:the |this |these )?[\w .#-]{0,60}\babout\b)/i.test(query)
    ? 'summary'
    : 'fact';
}

export interface ConsultedDocument {
  id: string;
  title: string;
  edition: string;
  pages: string;
  rank: number;
  score: number;
  /** Why it was selected and its figures (scores, gate verdict): the technical detail. */
  reason: string;
  /** Why it was searched and whether it was used, in plain words (shown with the answer). */
  why: string;
  /** False when its best evidence was below the gate (dropped). */
  kept: boolean;
  /** Consulted in place of a document dropped at the gate (AgentConfig.backfill), not chosen by the selection. */
  backfilled?: boolean;
  evidence: Evidence[];
  /** The refined context: extractive, cited passages of this document. */
  refined: string;
}

export interface AgentResult {
  query: string;
  mode: 'summary' | 'fact';
  /** Every document scored, best first (audit), and the ones consulted. */
  scores: DocumentScore[];
  consulted: ConsultedDocument[];
  /** Merged ranking of the kept documents' evidence (the eval's ranked list). */
  evidence: Evidence[];
  noEvidence: boolean;
  /** The refined contexts of the kept documents, one block per document, edition in each header. */
  context: string;
  /** Set when the kept documents mix SORA editions. */
  editionNote: string | null;
  flat: RetrievalResult;
}

export interface DocumentAgents {
  run(query: string, queryVector: Float32Array, options?: RetrieveOptions, alternativeVectors?: Float32Array[]): Promise<AgentResult>;
}

/** The candidates of the flat run in ranked order (the reranked / post-scored list, not only what passed the gate). */
function flatOrder(r: Pick<RetrievalResult, 'ranked'>): number[] {
  return r.ranked.map((c) => c.row);
}

export function createDocumentAgents(index: LoadedIndex, engine: RetrievalEngine, cfg: AgentConfig = DEFAULT_AGENT_CONFIG): DocumentAgents {
  const dim = index.manifest.dimension;
  const docs = index.documents;
  const windows = windowScorer(index.windows, dim, index.chunks.length);

  const refine = (d: DocumentUnit, ev: Evidence[], qv: Float32Array): string => {
    const head = documentHeader({ title: d.title, edition: d.edition, pages: documentPages(d) });
    const parts: string[] = [head];
    let used = head.length;
    for (const e of ev.slice(0, cfg.refined.passages)) {
      const c = index.chunks[e.row]!;
      const w = windows.best(qv, e.row).window;
      const text = w >= 0 ? c.text.slice(index.windows.start[w]!, index.windows.end[w]!) : c.text;
      const line = `[${c.id}] ${c.title}, ${formatPages(c)}: ${collapseWhitespace(text)}`;
      if (used + line.length + 1 > cfg.refined.chars && parts.length > 1) break;
      parts.push(line);
      used += line.length + 1;
    }
    return parts.join('\n');
  };

  const summaryContext = (d: DocumentUnit, qv: Float32Array, i: number): string => {
    const first = docs.nodeRow[i]!;
    const ranked = d.sections
      .map((s, j) => ({ s, c: dot(qv, docs.vectors, (first + 1 + j) * dim, dim) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, cfg.refined.passages);
    return [
      documentHeader({ title: d.title, edition: d.edition, pages: documentPages(d) }),
      d.description,
      ...ranked.map(({ s }) => `${s.path.join(' › ')}: ${s.summary}`),
    ].join('\n');
  };

  return {
    async run(query, qv, options = {}, alternativeVectors = []) {
      const mode = questionMode(query);
      const flat = await engine.retrieveWithVector(query, qv, options, alternativeVectors);
      // the filters the flat run ended with: a national question broadened to the EU rules searches the EU documents too
      const f = flat.broadened ? broaden(options.filters ?? {}) : (options.filters ?? {});
      // a document is a candidate when the question's filters allow at least one of its chunks
      const allowedDoc = (d: DocumentUnit) =>
        (!f.docIds?.length || f.docIds.includes(d.sourceId)) &&
        (!f.jurisdictions?.length || f.jurisdictions.includes(d.jurisdiction)) &&
        (!f.editions?.length || f.editions.some((e) => d.edition.includes(e)));
      const order = flatOrder(flat);
      const scores = scoreDocuments(docs, dim, qv, order, cfg, allowedDoc, query);
      const chosen = chooseDocuments(scores, order.length && !flat.noEvidence ? docs.docOfRow[order[0]!] : undefined, cfg);
      const consulted: ConsultedDocument[] = [];
      // the queue: the chosen documents, then (backfill) at most topDocuments others by score, tried in
      // turn while fewer than topDocuments documents have kept evidence
      const queue = [...chosen, ...(cfg.backfill ? scores.filter((s) => !chosen.some((c) => c.doc === s.doc)).slice(0, cfg.topDocuments) : [])];
      for (const [rank, s] of queue.entries()) {
        if (rank >= chosen.length && consulted.filter((c) => c.kept).length >= cfg.topDocuments) break;
        const d = docs.units[s.doc]!;
        const r = await engine.retrieveWithVector(
          query,
          qv,
          { ...options, filters: { ...f, documentIds: [d.id] }, config: deepMerge(options.config ?? {}, cfg.inDocument) },
          alternativeVectors,
        );
        const kept = !r.noEvidence;
        const where = s.bestNode.length ? `section “${s.bestNode[s.bestNode.length - 1]}”` : 'the document summary';
        consulted.push({
          id: d.id,
          title: d.title,
          edition: d.edition,
          pages: documentPages(d),
          rank: rank + 1,
          score: s.score,
          // what decided first (a name in the question, the best passage, the passages it owns), then the summary match (informative; it counts only with summaryWeight > 0)
          reason: `${rank >= chosen.length ? 'next by score, in place of a document dropped at the evidence gate; ' : ''}${s.named.length ? `named in the question (${s.named.join(', ')}); ` : ''}${s.anchor ? 'holds the best-matching passage; ' : ''}owns ${s.hitCount} of the top ${cfg.hitPool} passages; closest summary: ${where}, summary match ${s.summary.toFixed(2)}${kept ? '' : `; dropped: ${r.gate?.note ?? 'no evidence'}`}`,
          why: consultedWhy(s, kept, rank >= chosen.length),
          kept,
          ...(rank >= chosen.length ? { backfilled: true } : {}),
          evidence: r.evidence,
          refined: kept ? (mode === 'summary' ? summaryContext(d, qv, s.doc) : refine(d, r.evidence, qv)) : '',
        });
      }
      const kept = consulted.filter((c) => c.kept);
      const top = Math.max(1e-9, ...kept.map((c) => c.score));
      const merged = new Map<number, Evidence & { merged: number }>();
      for (const c of kept) {
        if (cfg.keepFlatEvidence) {
          const own = new Set(c.evidence.map((e) => e.row));
          c.evidence = [...c.evidence, ...flat.evidence.filter((e) => !own.has(e.row) && index.chunks[e.row]!.documentId === c.id)];
        }
        c.evidence.forEach((e, i) => {
          const m = c.score / top / (cfg.k + i + 1);
          const prev = merged.get(e.row);
          if (!prev || prev.merged < m) merged.set(e.row, { ...e, merged: m });
        });
      }
      const flatPos = new Map(flatOrder(flat).map((row, i) => [row, i] as const));
      const pos = (row: number) => (cfg.merge === 'global' ? (flatPos.get(row) ?? Infinity) : 0);
      const evidence = [...merged.values()].sort((a, b) => pos(a.row) - pos(b.row) || b.merged - a.merged || a.row - b.row).map(({ merged: _m, ...e }) => e);
      return {
        query,
        mode,
        scores,
        consulted,
        evidence,
        noEvidence: evidence.length === 0,
        context: kept.map((c) => c.refined).join('\n\n'),
        editionNote: editionNote(kept.filter((c) => c.evidence.length).map((c) => c.edition)),
        flat,
      };
    },
  };
}
