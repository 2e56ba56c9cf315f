/**
 * Citation attribution by the grounding check. Small on-device models often write
 * a faithful sentence without its marker (measured on real output: docs/answers.md).
 * The grounding check already finds, for such a claim, the context chunk that
 * supports it (similarity, term overlap and numbers, all above the thresholds).
 * This stage adds that chunk's `[chunk-id]` after the sentence and records it as
 * *attributed* — found by the check, not written by the model — so the view and the
 * audit record can tell the two apart. Claims no chunk supports stay uncited and
 * flagged; nothing else in the answer changes.
 *
 * Pure: the grounding report in, the answer text and an updated report out.
 */
import { citedIds, numberCitations } from './citations.js';
import type { GroundingReport, SentenceGrounding } from './grounding.js';

export interface AttributedCitation {
  /** The chunk whose passage supports the sentence. */
  id: string;
  /** The sentence as the checker saw it (before the marker was added). */
  sentence: string;
  /** Set by `applyAttribution`: the model itself cites this chunk in another sentence. */
  modelAlsoCites?: boolean;
}

export interface AttributionResult {
  /** The answer with a `[chunk-id]` after each attributed sentence. */
  answer: string;
  attributed: AttributedCitation[];
  /** The report with the attributed sentences citing their chunk (reasons kept: they still say the model did not cite it). */
  report: GroundingReport;
}

/** A supported claim that cites nothing: the check found its supporting chunk. */
const attributable = (s: SentenceGrounding): s is SentenceGrounding & { bestChunk: string } =>
  s.kind === 'claim' && s.supported === true && !s.fromCitation && s.citations.length === 0 && s.bestChunk !== null;

/**
 * Add the supporting chunk's marker to every supported claim the model left uncited.
 * `incomplete` (a stopped or truncated answer): the last sentence may be cut off
 * mid-way, so it is left as written.
 */
export function attributeCitations(answer: string, report: GroundingReport, opts: { incomplete?: boolean } = {}): AttributionResult {
  const attributed: AttributedCitation[] = [];
  let out = '';
  let cursor = 0;
  const last = report.sentences.length - 1;
  const sentences = report.sentences.map((s, i) => {
    if (!attributable(s) || (opts.incomplete && i === last)) return s;
    const at = answer.indexOf(s.text, cursor);
    if (at < 0) return s; // not found verbatim (e.g. list markup the checker removed): left uncited
    // the marker goes before the sentence's closing punctuation, as the prompt asks the model to write it
    const body = s.text.replace(/[.!?:;]+["')\]]*\s*$/, '');
    const insertAt = at + body.length;
    out += `${answer.slice(cursor, insertAt)} [${s.bestChunk}]`;
    cursor = insertAt;
    attributed.push({ id: s.bestChunk, sentence: s.text });
    return { ...s, citations: [s.bestChunk], text: `${body} [${s.bestChunk}]${s.text.slice(body.length)}` };
  });
  out += answer.slice(cursor);
  return { answer: out, attributed, report: { ...report, sentences } };
}

/**
 * An answer's text and citations after the grounding check, with attribution applied: the
 * attributed markers are in the text and the citations (first-appearance order), and
 * `attributed` lists them (ids the model also cited elsewhere are marked so). The Ask turn and
 * the answer evaluation's scoring both go through this.
 */
export function attributeAnswer(
  answer: { answer: string; status: string; citations: readonly string[] },
  report: GroundingReport,
): { answer: string; citations: string[]; attributed: AttributedCitation[]; report: GroundingReport } {
  const r = attributeCitations(answer.answer, report, { incomplete: answer.status !== 'complete' });
  if (!r.attributed.length) return { answer: answer.answer, citations: [...answer.citations], attributed: [], report };
  const own = new Set(answer.citations);
  return { answer: r.answer, citations: citedIds(r.answer), attributed: r.attributed.map((a) => ({ ...a, modelAlsoCites: own.has(a.id) })), report: r.report };
}

/** What attribution changes in an answer result (generation.ts AnswerResult). */
interface Attributable {
  answer: string;
  status: string;
  citations: string[];
  display: ReturnType<typeof numberCitations>;
  attributed: AttributedCitation[];
}

/** {@link attributeAnswer} on a whole answer result (its display numbering follows the new text). */
export function applyAttribution<R extends Attributable>(result: R, report: GroundingReport): { result: R; report: GroundingReport } {
  const a = attributeAnswer(result, report);
  if (!a.attributed.length) return { result, report };
  return { result: { ...result, answer: a.answer, citations: a.citations, display: numberCitations(a.answer), attributed: a.attributed }, report: a.report };
}
