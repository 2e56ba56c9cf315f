/**
 * Sentence-level grounding check — the post-hoc verifier proposed as future
 * work in SKYSAFE §5.2, with the answer-level outcome of SKYSAFE Table 4
 * (Grounded / Unsupported / Incomplete).
 *
 * Procedure
 * 1. The answer is split into lines and sentences. Empty lines, headings,
 *    rules and the section labels ("Answer", "Facts from the sources",
 *    "Interpretation", "Missing information") are skipped; list markers are
 *    removed; a sentence made only of citation markers ("… text. [id]") is
 *    attached to the sentence before it.
 * 2. Each sentence gets a kind: `question` (ends with "?", e.g. a
 *    clarification question), `gap` (in "Missing information", or the no-answer
 *    reply), `minor` (fewer than `minClaimTokens` content tokens) or `claim`.
 *    Only claims are checked.
 * 3. Candidates for a claim are the chunks it cites that are in the context; a
 *    claim with no citation is checked against every context chunk. A claim
 *    citing only chunks that are not in the context is unsupported.
 * 4. A candidate supports a claim when all hold:
 *    (a) similarity: cosine between the claim (markers removed) and the
 *        best-matching window of 1..`windowSentences` consecutive chunk
 *        sentences ≥ `similarity`;
 *    (b) overlap: share of the claim's distinct content tokens (tokenize.ts,
 *        stopwords removed) found in the chunk's title + text ≥ `overlap`;
 *    (c) numbers: every number in the claim occurs in the chunk (thousands
 *        separators and leading zeros normalised), when `requireNumbers`.
 *    A claim citing several chunks is supported when their union is: the best window
 *    of any of them, the content tokens and the numbers of all of them together
 *    (ALCE's citation recall, Gao et al. 2023). Each citation is also judged alone
 *    and as needed for that joint support (ALCE's citation precision).
 * 5. Verdict: Unsupported when any claim is unsupported; otherwise Incomplete
 *    when the answer reports missing information, asks a clarification
 *    question, has no claims, or was stopped/truncated; otherwise Grounded.
 *
 * Thresholds come from the config; `npm run calibrate:grounding` picks them from labelled
 * examples (corpus-build/calibration/thresholds.ts). The report is plain JSON for the audit record.
 */
import type { Embedder } from '../embedding/embedder.js';
import { dot } from '../embedding/similarity.js';
import { splitSentenceSpans } from '../text/sentences.js';
import { contentTokens } from '../text/tokenize.js';
import { claimLine, parseCitations, stripCitations } from './citations.js';
import { type AnswerConfig, DEFAULT_ANSWER_CONFIG } from './config.js';
import { NO_ANSWER_TEXT, SECTION_LABELS, type SectionLabel } from './prompts.js';

export type GroundingThresholds = AnswerConfig['grounding'];

/** What the checker needs of a chunk (a `Chunk` fits). */
export interface GroundingChunk {
  id: string;
  title?: string;
  text: string;
}

export type SentenceKind = 'claim' | 'question' | 'gap' | 'minor';

/**
 * A claim of a structured answer with the chunks it cites: the checker's unit instead of a
 * sentence of free text (one claim may hold several sentences; it is never split).
 */
export interface AnswerClaim {
  text: string;
  /** Chunk ids the claim cites (context ids; others are reported as not in the context). */
  sources: readonly string[];
}

/** What the checker reads: a free-form answer with `[chunk-id]` markers, or structured claims. */
export type GroundingSubject = string | readonly AnswerClaim[];

/** One citation of a claim, judged ALCE's way. */
export interface CitationSupport {
  id: string;
  /** The cited chunk supports the claim on its own. */
  alone: boolean;
  /** The claim's cited chunks together support it and do not without this one. */
  needed: boolean;
}

export interface SentenceGrounding {
  /** The sentence as written in the answer (markers kept). */
  text: string;
  section: SectionLabel | null;
  kind: SentenceKind;
  /** Chunk ids cited in the sentence. */
  citations: string[];
  /** Claims only: true when a candidate chunk supports it; null for other kinds. */
  supported: boolean | null;
  /** The best candidate chunk (the supporting one when supported). */
  bestChunk: string | null;
  /** Cosine to the best window of `bestChunk` (rounded to 4 decimals). */
  similarity: number | null;
  /** Content-token overlap with `bestChunk` (rounded to 4 decimals). */
  overlap: number | null;
  /** Numbers of the sentence not found in `bestChunk`. */
  missingNumbers: string[];
  /** True when the support (or the check) came from chunks the sentence cites. */
  fromCitation: boolean;
  /** When cited chunks fail but another context chunk would support the claim. */
  alternativeChunk: string | null;
  /** Why, in words. */
  reason: string;
  /** Claims citing chunks of the context: each citation judged alone and as needed for joint support. */
  citationSupport?: CitationSupport[];
}

export type GroundingVerdict = 'Grounded' | 'Unsupported' | 'Incomplete';

export interface GroundingReport {
  verdict: GroundingVerdict;
  verdictReason: string;
  sentences: SentenceGrounding[];
  totals: {
    sentences: number;
    claims: number;
    supported: number;
    unsupported: number;
    /** Supported claims that cite nothing (supported by an uncited context chunk). */
    uncited: number;
    questions: number;
    gaps: number;
  };
  thresholds: { similarity: number; overlap: number; windowSentences: number; requireNumbers: boolean };
  embedderId: string;
}

export interface GroundingInput {
  answer: GroundingSubject;
  /** The chunks that were in the context. */
  chunks: readonly GroundingChunk[];
  embedder: Pick<Embedder, 'embed'> & Partial<Pick<Embedder, 'modelId'>>;
  config?: GroundingThresholds;
  /** The answer was stopped or truncated (→ at best Incomplete). */
  incomplete?: boolean;
}

// ---------------------------------------------------------------------------
// answer → sentences

interface RawSentence {
  text: string;
  section: SectionLabel | null;
}

const LABEL_BY_LOWER = new Map<string, SectionLabel>(SECTION_LABELS.map((l) => [l.toLowerCase(), l]));

/** The section label a line is (or starts with, as "Label: rest"), and the rest of the line. */
export function matchSectionLabel(line: string): { label: SectionLabel; rest: string } | null {
  const plain = line
    .trim()
    .replace(/^#{1,6}\s*/, '')
    .replace(/\*\*|__/g, '')
    .trim();
  for (const [lower, label] of LABEL_BY_LOWER) {
    const head = plain.slice(0, lower.length).toLowerCase();
    if (head !== lower) continue;
    const after = plain.slice(lower.length);
    if (after.trim() === '' || after.trim() === ':') return { label, rest: '' };
    const m = /^\s*[:—–-]\s*(.*)$/.exec(after);
    if (m) return { label, rest: m[1]!.trim() };
  }
  return null;
}

const BULLET = /^\s*(?:[-*•+]|\d+[.)]|\([a-z0-9]+\))\s+/i;
const ONLY_MARKERS = (s: string): boolean => stripCitations(s).replace(/[.,;:\s]/g, '') === '' && parseCitations(s).length > 0;

/** The sentences of an answer, with the section each belongs to (labels, headings and empty lines skipped). */
export function answerSentences(answer: string): RawSentence[] {
  const out: RawSentence[] = [];
  let section: SectionLabel | null = null;
  for (const rawLine of answer.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (!line || /^(?:-{3,}|\*{3,}|_{3,})$/.test(line)) continue;
    const label = matchSectionLabel(line);
    if (label) {
      section = label.label;
      line = label.rest;
      if (!line) continue;
    } else if (/^#{1,6}\s/.test(line)) continue;
    line = line
      .replace(BULLET, '')
      .replace(/\*\*|__/g, '')
      .replace(/^>\s*/, '')
      .trim();
    if (!line) continue;
    for (const span of splitSentenceSpans(line)) {
      const prev = out[out.length - 1];
      if (ONLY_MARKERS(span.text) && prev) prev.text = `${prev.text} ${span.text}`;
      else out.push({ text: span.text, section });
    }
  }
  return out;
}

const NONE_STATEMENT = /^(?:none|n\/a|nothing(?: is missing)?|no (?:missing|further|additional) information)\b/i;

/**
 * A sentence about the context rather than about the subject: it says the context (the passages,
 * the provided information) does not give the answer, or that the question cannot be answered.
 * Small models write these anywhere, not only under "Missing information".
 */
const ABOUT_THE_CONTEXT = new RegExp(
  [
    String.raw`\b(?:context|passages?|provided (?:text|information|sources?|passages?)|given (?:text|information)|sources? (?:given|provided))\b[^.]*\b(?:does|do|is|are|did)(?: not|n't)\b[^.]*\b(?:answer|information|provide[ds]?|mention(?:s|ed)?|contain(?:s|ed)?|specif(?:y|ies|ied)|address(?:es|ed)?|cover(?:s|ed)?|include[ds]?|state[ds]?|give[ns]?)\b`,
    String.raw`\bcannot be answered\b`,
    String.raw`\bnot (?:directly )?(?:supported|covered|addressed|mentioned|stated) (?:by|in) the (?:context|passages?|provided (?:text|information))\b`,
  ].join('|'),
  'i',
);

function kindOf(s: RawSentence, minClaimTokens: number): SentenceKind {
  const plain = stripCitations(s.text);
  if (plain.replace(/[.\s]+$/, '') === NO_ANSWER_TEXT) return 'gap';
  if (/\?\s*["'”’)]*$/.test(plain)) return 'question';
  if (s.section === 'Missing information') return NONE_STATEMENT.test(plain) ? 'minor' : 'gap';
  // uncited statements that the context lacks the answer report a gap, whatever the section
  if (parseCitations(s.text).length === 0 && ABOUT_THE_CONTEXT.test(plain)) return 'gap';
  if (contentTokens(plain).length < minClaimTokens) return 'minor';
  return 'claim';
}

// ---------------------------------------------------------------------------
// support measures

/** Numbers in a text, normalised: thousands separators removed, leading zeros and trailing decimal zeros dropped. */
export function extractNumbers(text: string): string[] {
  const merged = text.replace(/(\d)[ \u00a0\u202f](?=\d{3}(?!\d))/g, '$1');
  const out = new Set<string>();
  for (const m of merged.matchAll(/\d+(?:[.,]\d+)*/g)) {
    let n = m[0];
    n = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(n) ? n.replace(/,/g, '') : n.replace(/,/g, '.');
    const parts = n.split('.');
    if (parts.length > 2) {
      // section numbers such as 4.2.3: keep as written, without leading zeros per part
      out.add(parts.map((p) => String(Number(p))).join('.'));
      continue;
    }
    const v = Number(n);
    out.add(Number.isFinite(v) ? String(v) : n);
  }
  return [...out];
}

/** Numbers a chunk offers: from the text as printed and with digit groups merged. */
function chunkNumbers(c: GroundingChunk): Set<string> {
  const text = `${c.title ?? ''} ${c.text}`;
  const set = new Set(extractNumbers(text));
  for (const m of text.matchAll(/\d+/g)) set.add(String(Number(m[0])));
  return set;
}

/** Share of the claim's distinct content tokens found in the token set. */
export function termOverlap(claim: string, chunkTokens: ReadonlySet<string>): number {
  const toks = [...new Set(contentTokens(claim))];
  if (!toks.length) return 0;
  return toks.filter((t) => chunkTokens.has(t)).length / toks.length;
}

/** Windows of 1..`size` consecutive sentences of a chunk, single sentences first, capped at `max`. */
export function sentenceWindows(text: string, size: number, max: number): string[] {
  const sents = splitSentenceSpans(text).map((s) => s.text.replace(/\s+/g, ' '));
  if (!sents.length) return text.trim() ? [text.trim().replace(/\s+/g, ' ')] : [];
  const out: string[] = [];
  for (let w = 1; w <= Math.max(1, size) && w <= sents.length; w++) {
    for (let i = 0; i + w <= sents.length; i++) {
      out.push(sents.slice(i, i + w).join(' '));
      if (out.length >= max) return out;
    }
  }
  return out;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

interface PreparedChunk {
  chunk: GroundingChunk;
  tokens: Set<string>;
  numbers: Set<string>;
  windows: Float32Array[];
}

async function prepareChunks(chunks: readonly GroundingChunk[], embedder: Pick<Embedder, 'embed'>, cfg: GroundingThresholds): Promise<PreparedChunk[]> {
  const windowTexts = chunks.map((c) => sentenceWindows(c.text, cfg.windowSentences, cfg.maxWindowsPerChunk));
  const flat = windowTexts.flat();
  const vecs = flat.length ? await embedder.embed(flat) : [];
  let k = 0;
  return chunks.map((c, i) => {
    const n = windowTexts[i]!.length;
    const windows = vecs.slice(k, k + n);
    k += n;
    return { chunk: c, tokens: new Set(contentTokens(`${c.title ?? ''} ${c.text}`)), numbers: chunkNumbers(c), windows };
  });
}

interface Measure {
  chunk: string;
  similarity: number;
  overlap: number;
  missingNumbers: string[];
  pass: boolean;
}

function measure(claim: string, claimVec: Float32Array, numbers: string[], p: PreparedChunk, cfg: GroundingThresholds): Measure {
  let similarity = -1;
  for (const w of p.windows) similarity = Math.max(similarity, dot(claimVec, w));
  const overlap = termOverlap(claim, p.tokens);
  const missingNumbers = cfg.requireNumbers ? numbers.filter((n) => !p.numbers.has(n)) : [];
  const pass = similarity >= cfg.similarity && overlap >= cfg.overlap && missingNumbers.length === 0;
  return { chunk: p.chunk.id, similarity, overlap, missingNumbers, pass };
}

/** One measure over several chunks together: the best window of any, their tokens and numbers pooled. */
function measureUnion(claim: string, claimVec: Float32Array, numbers: string[], ps: readonly PreparedChunk[], cfg: GroundingThresholds): Measure {
  if (ps.length === 1) return measure(claim, claimVec, numbers, ps[0]!, cfg);
  const pooled: PreparedChunk = {
    chunk: { id: ps.map((p) => p.chunk.id).join(' + '), text: '' },
    tokens: new Set(ps.flatMap((p) => [...p.tokens])),
    numbers: new Set(ps.flatMap((p) => [...p.numbers])),
    windows: ps.flatMap((p) => p.windows),
  };
  return measure(claim, claimVec, numbers, pooled, cfg);
}

/** Each cited chunk judged alone and as needed for the joint support of all of them (ALCE citation precision). */
function citationSupportOf(
  claim: string,
  claimVec: Float32Array,
  numbers: string[],
  cited: readonly PreparedChunk[],
  jointPass: boolean,
  cfg: GroundingThresholds,
): CitationSupport[] {
  return cited.map((p) => {
    const alone = measure(claim, claimVec, numbers, p, cfg).pass;
    const others = cited.filter((q) => q !== p);
    const needed = jointPass && (others.length === 0 || !measureUnion(claim, claimVec, numbers, others, cfg).pass);
    return { id: p.chunk.id, alone, needed };
  });
}

/** Best of several measures: passing first, then fewer missing numbers, then similarity + overlap; ties keep the earlier chunk. */
function best(ms: Measure[]): Measure | null {
  let top: Measure | null = null;
  for (const m of ms) {
    if (!top) top = m;
    else if (m.pass !== top.pass) top = m.pass ? m : top;
    else if (m.missingNumbers.length !== top.missingNumbers.length) top = m.missingNumbers.length < top.missingNumbers.length ? m : top;
    else if (m.similarity + m.overlap > top.similarity + top.overlap) top = m;
  }
  return top;
}

function failReason(m: Measure, cfg: GroundingThresholds): string {
  const why: string[] = [];
  if (m.similarity < cfg.similarity) why.push(`similarity ${m.similarity.toFixed(2)} < ${cfg.similarity}`);
  if (m.overlap < cfg.overlap) why.push(`term overlap ${m.overlap.toFixed(2)} < ${cfg.overlap}`);
  if (m.missingNumbers.length) why.push(`numbers not in the chunk: ${m.missingNumbers.join(', ')}`);
  return why.join('; ');
}

// ---------------------------------------------------------------------------
// the checker

/** Check every claim of an answer against the context chunks. */
export async function checkGrounding(input: GroundingInput): Promise<GroundingReport> {
  const cfg = input.config ?? DEFAULT_ANSWER_CONFIG.grounding;
  const raw: RawSentence[] =
    typeof input.answer === 'string' ? answerSentences(input.answer) : input.answer.map((c) => ({ text: claimLine(c.text, c.sources), section: null }));
  const kinds = raw.map((s) => kindOf(s, cfg.minClaimTokens));
  const claimIdx = kinds.flatMap((k, i) => (k === 'claim' ? [i] : []));
  const claimTexts = claimIdx.map((i) => stripCitations(raw[i]!.text));
  const byId = new Map(input.chunks.map((c) => [c.id.toLowerCase(), c.id]));

  const prepared = claimIdx.length ? await prepareChunks(input.chunks, input.embedder, cfg) : [];
  const preparedById = new Map(prepared.map((p) => [p.chunk.id, p]));
  const claimVecs = claimTexts.length ? await input.embedder.embed(claimTexts) : [];

  const sentences: SentenceGrounding[] = raw.map((s, i) => {
    const citations = [...new Set(parseCitations(s.text).flatMap((m) => m.ids))];
    const base: SentenceGrounding = {
      text: s.text,
      section: s.section,
      kind: kinds[i]!,
      citations,
      supported: null,
      bestChunk: null,
      similarity: null,
      overlap: null,
      missingNumbers: [],
      fromCitation: false,
      alternativeChunk: null,
      reason:
        kinds[i] === 'question'
          ? 'clarification question, not a claim'
          : kinds[i] === 'gap'
            ? 'states missing information, not a claim'
            : 'too short to be a claim',
    };
    if (kinds[i] !== 'claim') return base;
    const ci = claimIdx.indexOf(i);
    const text = claimTexts[ci]!;
    const vec = claimVecs[ci]!;
    const numbers = extractNumbers(text);
    const all = prepared.map((p) => measure(text, vec, numbers, p, cfg));
    const knownCited = citations.map((c) => byId.get(c.toLowerCase())).filter((c): c is string => !!c && preparedById.has(c));
    const unknownCited = citations.filter((c) => !byId.has(c.toLowerCase()));
    const anyBest = best(all);

    if (citations.length && !knownCited.length) {
      return {
        ...base,
        supported: false,
        fromCitation: true,
        bestChunk: anyBest?.chunk ?? null,
        similarity: anyBest ? round4(anyBest.similarity) : null,
        overlap: anyBest ? round4(anyBest.overlap) : null,
        missingNumbers: anyBest?.missingNumbers ?? [],
        alternativeChunk: anyBest?.pass ? anyBest.chunk : null,
        reason: `cites only chunks that are not in the context: ${unknownCited.join(', ')}`,
      };
    }
    const candidates = knownCited.length ? all.filter((m) => knownCited.includes(m.chunk)) : all;
    const top = best(candidates);
    if (!top) return { ...base, supported: false, reason: 'no context chunks to check against' };
    // several cited chunks may support a claim together (one gives the subject, another the number)
    const citedPrepared = knownCited.map((id) => preparedById.get(id)!);
    const joint = knownCited.length > 1 && !top.pass ? measureUnion(text, vec, numbers, citedPrepared, cfg) : null;
    const pass = top.pass || joint?.pass === true;
    const citationSupport = knownCited.length ? citationSupportOf(text, vec, numbers, citedPrepared, pass, cfg) : undefined;
    const alt = !pass && knownCited.length && anyBest?.pass ? anyBest.chunk : null;
    const reason = pass
      ? knownCited.length
        ? top.pass
          ? `supported by cited [${top.chunk}]`
          : `supported by the cited chunks together [${knownCited.join(', ')}]`
        : `supported by [${top.chunk}], which it does not cite`
      : `${knownCited.length ? 'not supported by the cited chunk(s)' : 'no context chunk supports it'}: ${failReason(joint ?? top, cfg)}` +
        (alt ? `; [${alt}] would support it` : '');
    return {
      ...base,
      ...(citationSupport ? { citationSupport } : {}),
      supported: pass,
      bestChunk: top.chunk,
      similarity: round4(top.similarity),
      overlap: round4(top.overlap),
      missingNumbers: top.missingNumbers,
      fromCitation: knownCited.length > 0,
      alternativeChunk: alt,
      reason,
    };
  });

  const claims = sentences.filter((s) => s.kind === 'claim');
  const totals = {
    sentences: sentences.length,
    claims: claims.length,
    supported: claims.filter((s) => s.supported).length,
    unsupported: claims.filter((s) => s.supported === false).length,
    uncited: claims.filter((s) => s.supported && !s.fromCitation).length,
    questions: sentences.filter((s) => s.kind === 'question').length,
    gaps: sentences.filter((s) => s.kind === 'gap').length,
  };
  const { verdict, reason } = classify(totals, input.incomplete === true);
  return {
    verdict,
    verdictReason: reason,
    sentences,
    totals,
    thresholds: { similarity: cfg.similarity, overlap: cfg.overlap, windowSentences: cfg.windowSentences, requireNumbers: cfg.requireNumbers },
    embedderId: input.embedder.modelId ?? 'unknown',
  };
}

/** Answer-level outcome (SKYSAFE Table 4). */
export function classify(totals: GroundingReport['totals'], incomplete = false): { verdict: GroundingVerdict; reason: string } {
  if (totals.unsupported > 0) return { verdict: 'Unsupported', reason: `${totals.unsupported} of ${totals.claims} claims lack support in the context` };
  const partial: string[] = [];
  if (incomplete) partial.push('the answer was stopped or truncated');
  if (totals.gaps > 0) partial.push('the answer reports missing information');
  if (totals.questions > 0) partial.push('the answer asks for clarification');
  if (totals.claims === 0) partial.push('the answer makes no checkable claim');
  if (partial.length) return { verdict: 'Incomplete', reason: `All claims are supported, but ${partial.join(', ')}` };
  return { verdict: 'Grounded', reason: `All ${totals.claims} claims are supported by context chunks` };
}

// ---------------------------------------------------------------------------
// the check's measure of one pair (calibration data is built from it: corpus-build/calibration/thresholds.ts)

/** Support measures of one (sentence, chunk) pair. */
export interface SupportMeasure {
  similarity: number;
  overlap: number;
  missingNumbers: string[];
}

/** Measure how well one chunk supports one sentence (to build calibration data). */
export async function measureSupport(
  sentence: string,
  chunk: GroundingChunk,
  embedder: Pick<Embedder, 'embed'>,
  config: GroundingThresholds = DEFAULT_ANSWER_CONFIG.grounding,
): Promise<SupportMeasure> {
  const text = stripCitations(sentence);
  const [p] = await prepareChunks([chunk], embedder, config);
  const [v] = await embedder.embed([text]);
  const m = measure(text, v!, extractNumbers(text), p!, config);
  return { similarity: m.similarity, overlap: m.overlap, missingNumbers: m.missingNumbers };
}
