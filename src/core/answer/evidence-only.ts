/**
 * Evidence-only mode: an answer without any language model (WebGPU missing,
 * model not downloaded, or chosen by the user). With the unit ranker's quotations
 * (quotes.ts, the default) the answer is those quotations, each with its passage's
 * `[chunk-id]` citation, and the passages are listed with the quoted units
 * highlighted; without them (no ranker data), the top passages with the sentences
 * most relevant to the question highlighted (cosine with an embedder, else term
 * overlap). Highlights are character offsets into `Chunk.text` as stored, so the UI
 * can mark them in the passage it shows. Deterministic: same inputs, same output.
 */
import type { Embedder } from '../embedding/embedder.js';
import { dot } from '../embedding/similarity.js';
import type { Chunk } from '../model/chunk.js';
import { formatPages } from '../retrieval/context.js';
import type { RetrievalResult } from '../retrieval/types.js';
import { splitSentenceSpans } from '../text/sentences.js';
import { contentTokens } from '../text/tokenize.js';
import { type AnswerConfig, DEFAULT_ANSWER_CONFIG } from './config.js';
import { hasNoContext } from './no-context.js';
import type { QuotedAnswer } from './quotes.js';

/** The line stating that no generative model was used. */
export const NO_MODEL_NOTICE = 'No generative model was used: the passages below are quoted from the sources as retrieved.';

/** The reply when the corpus holds no evidence. */
export const NO_EVIDENCE_TEXT = 'The corpus holds no evidence for this question. No generative model was used.';

export interface Highlight {
  /** Offsets into the chunk's `text`. */
  start: number;
  end: number;
  /** Similarity (embedder) or term overlap with the question. */
  score: number;
}

export interface EvidencePassage {
  /** Display number [n]. */
  number: number;
  /** The chunk id, cited as `[id]`. */
  id: string;
  title: string;
  docId: string;
  /** "page 12", "pages 12–13" or "no page". */
  pages: string;
  /** Retrieval score. */
  score: number;
  /** The chunk text the highlight offsets refer to. */
  text: string;
  /** Highlighted sentences, in text order. */
  highlights: Highlight[];
  /** Set when this passage was not retrieved but continues a retrieved one (the next part of its section), quoted from: that passage's id. */
  continues?: string;
}

export interface EvidenceOnlyAnswer {
  /** Markdown text with `[chunk-id]` markers and the notice line. */
  text: string;
  passages: EvidencePassage[];
  noEvidence: boolean;
  /** 'units' when the unit ranker chose quotations; 'embedding' when sentences were ranked with the embedder, else 'term-overlap'. */
  ranking: 'units' | 'embedding' | 'term-overlap';
  /** The quotations that answer (the unit ranker's), or null without ranker data. */
  quoted: QuotedAnswer | null;
  /** Passages quoted that the retrieval did not return: the next parts of retrieved ones (shown after them). */
  continuing?: Chunk[];
  /** Always false: recorded in the audit entry. */
  generativeModelUsed: false;
}

export interface EvidenceOnlyInput {
  question: string;
  retrieval: Pick<RetrievalResult, 'evidence' | 'noEvidence' | 'context'>;
  /** Chunks to resolve evidence ids against (the loaded index's chunks, or just the evidence's). */
  chunks: readonly Chunk[];
  embedder?: Pick<Embedder, 'embed'>;
  config?: AnswerConfig;
  /** The unit ranker's quotations: the answer, and the passages' highlights. */
  quoted?: QuotedAnswer | null;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Compose the evidence-only answer. */
export async function composeEvidenceOnlyAnswer(input: EvidenceOnlyInput): Promise<EvidenceOnlyAnswer> {
  const cfg = (input.config ?? DEFAULT_ANSWER_CONFIG).evidenceOnly;
  const ranking = input.quoted ? 'units' : input.embedder ? 'embedding' : 'term-overlap';
  const byId = new Map(input.chunks.map((c) => [c.id, c]));
  const picked = hasNoContext(input.retrieval)
    ? []
    : input.retrieval.evidence
        .map((e) => ({ e, c: byId.get(e.id) }))
        .filter((x): x is { e: (typeof input.retrieval.evidence)[number]; c: Chunk } => x.c !== undefined)
        .slice(0, cfg.maxPassages);
  if (!picked.length) return { text: NO_EVIDENCE_TEXT, passages: [], noEvidence: true, ranking, generativeModelUsed: false, quoted: null };
  if (input.quoted) {
    // a quoted unit of the next part of a retrieved passage: that part is listed after the retrieved ones
    const continuing = input.quoted.quotes
      .map((q) => q.chunkId)
      .filter((id, i, all) => all.indexOf(id) === i && !picked.some((p) => p.c.id === id))
      .map((id) => byId.get(id))
      .filter((c): c is Chunk => c !== undefined);
    return quotedEvidence(input.quoted, picked, continuing);
  }

  const spansOf = picked.map(({ c }) => splitSentenceSpans(c.text));
  let scoresOf: number[][];
  if (input.embedder) {
    const texts = [input.question, ...spansOf.flat().map((s) => s.text)];
    const [q, ...vecs] = await input.embedder.embed(texts);
    let k = 0;
    scoresOf = spansOf.map((spans) => spans.map(() => dot(q!, vecs[k++]!)));
  } else {
    const qTokens = [...new Set(contentTokens(input.question))];
    scoresOf = spansOf.map((spans) =>
      spans.map((s) => {
        if (!qTokens.length) return 0;
        const sent = new Set(contentTokens(s.text));
        return qTokens.filter((t) => sent.has(t)).length / qTokens.length;
      }),
    );
  }
  const minScore = input.embedder ? cfg.minHighlightSimilarity : Number.MIN_VALUE;

  const passages: EvidencePassage[] = picked.map(({ e, c }, i) => {
    const spans = spansOf[i]!;
    const scores = scoresOf[i]!;
    const highlights = spans
      .map((s, j) => ({ start: s.start, end: s.end, score: round4(scores[j]!), j }))
      .filter((h) => scores[h.j]! >= minScore)
      .sort((a, b) => b.score - a.score || a.j - b.j)
      .slice(0, cfg.highlightsPerPassage)
      .sort((a, b) => a.start - b.start)
      .map(({ start, end, score }) => ({ start, end, score }));
    return { number: i + 1, id: c.id, title: c.title, docId: c.docId, pages: formatPages(c), score: e.score, text: c.text, highlights };
  });

  const lines = [NO_MODEL_NOTICE, ''];
  for (const p of passages) {
    lines.push(`${p.number}. [${p.id}] ${p.title} — ${p.docId}, ${p.pages}`);
    const quotes = p.highlights.length ? p.highlights.map((h) => p.text.slice(h.start, h.end).replace(/\s+/g, ' ')) : [];
    for (const q of quotes) lines.push(`   > ${q}`);
    if (!quotes.length) lines.push('   (no sentence of this passage matches the question closely; read the passage in full)');
    lines.push('');
  }
  return { text: lines.join('\n').trimEnd(), passages, noEvidence: false, ranking, generativeModelUsed: false, quoted: null };
}

/** The line above quotations that do not answer: what is shown instead. */
export const GAP_NOTICE =
  'These passages do not state the answer to this question; the closest passages are quoted below. The answer may be in a document SkyCite does not hold.';

/** The evidence-only answer of quotations: the quotes with their passages, the passages with the quoted units highlighted. */
function quotedEvidence(quoted: QuotedAnswer, picked: { e: RetrievalResult['evidence'][number]; c: Chunk }[], continuing: Chunk[]): EvidenceOnlyAnswer {
  const highlightsOf = (id: string): Highlight[] =>
    quoted.quotes
      .filter((q) => q.chunkId === id)
      .map((q) => ({ start: q.start, end: q.end, score: q.score }))
      .sort((a, b) => a.start - b.start);
  const passages: EvidencePassage[] = [
    ...picked.map(({ e, c }, i) => ({
      number: i + 1,
      id: c.id,
      title: c.title,
      docId: c.docId,
      pages: formatPages(c),
      score: e.score,
      text: c.text,
      highlights: highlightsOf(c.id),
    })),
    ...continuing.map((c, i) => ({
      number: picked.length + i + 1,
      id: c.id,
      title: c.title,
      docId: c.docId,
      pages: formatPages(c),
      score: 0,
      text: c.text,
      highlights: highlightsOf(c.id),
      continues: c.id.replace(/part-(\d+)$/, (_, k: string) => `part-${Number(k) - 1}`),
    })),
  ];
  const byId = new Map([...picked.map(({ c }) => [c.id, c] as const), ...continuing.map((c) => [c.id, c] as const)]);
  const lines = [NO_MODEL_NOTICE, ''];
  if (quoted.gap) lines.push(GAP_NOTICE, '');
  quoted.quotes.forEach((q, i) => {
    const c = byId.get(q.chunkId);
    lines.push(`${i + 1}. “${q.header ? `${q.header}: ` : ''}${q.text}” [${q.chunkId}]${c ? ` — ${c.title}, ${formatPages(c)}` : ''}`);
  });
  return { text: lines.join('\n').trimEnd(), passages, noEvidence: false, ranking: 'units', generativeModelUsed: false, quoted, continuing };
}
