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
import { citedIds, claimLine, numberCitations, type NumberedCitations } from './citations.js';
import { renderClaims } from './structured.js';
import { leadClaims, shownLead } from './quotes.js';
import { classify, type AnswerClaim, type GroundingReport, type SentenceGrounding } from './grounding.js';

export interface AttributedCitation {
  /** The chunk whose passage supports the sentence. */
  id: string;
  /** The sentence as the checker saw it (before the marker was added). */
  sentence: string;
  /** Set by `applyAttribution`: the model itself cites this chunk in another sentence. */
  modelAlsoCites?: boolean;
  /** A re-attributed claim (structured answers): the chunks the model cited, which do not support it. */
  replaced?: string[];
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

/** Citations of a supported claim that support it neither alone nor as needed for the joint support: not shown. */
export interface PrunedCitations {
  /** The claim as the checker saw it (before its citations were pruned). */
  sentence: string;
  ids: string[];
}

/**
 * Re-attribution of structured claims (structured.ts), one report sentence per claim: a claim its
 * cited passages do not support but another context passage does gets that passage instead, and
 * a supported claim left without a valid source (its numbers were outside the context) gets its
 * supporting passage; both are listed in `attributed`, re-attributions with the chunks they
 * replace; a supported claim keeps only the citations that support it (alone or as needed together),
 * the others listed in `pruned`. A claim nothing supports keeps its sources and stays flagged. `incomplete`: the last
 * claim of a stopped answer is left as written, as for free text.
 */
export function reattributeClaims(
  claims: readonly AnswerClaim[],
  report: GroundingReport,
  opts: { incomplete?: boolean } = {},
): { claims: AnswerClaim[]; attributed: AttributedCitation[]; pruned: PrunedCitations[]; report: GroundingReport; problem: string | null } {
  if (report.sentences.length !== claims.length) {
    // the check and the claims disagree on the count: nothing is moved, and the mismatch is said (never a silent no-op)
    const problem = `the check returned ${report.sentences.length} verdict(s) for ${claims.length} claim(s): citations left as the model wrote them`;
    return { claims: [...claims], attributed: [], pruned: [], report, problem };
  }
  const attributed: AttributedCitation[] = [];
  const pruned: PrunedCitations[] = [];
  const out: AnswerClaim[] = [];
  const last = claims.length - 1;
  const sentences = report.sentences.map((s, i) => {
    const claim = claims[i]!;
    const cut = opts.incomplete === true && i === last;
    if (!cut && s.kind === 'claim' && s.supported === false && s.alternativeChunk) {
      const to = s.alternativeChunk;
      const text = claimLine(claim.text, [to]);
      attributed.push({ id: to, sentence: s.text, replaced: [...claim.sources] });
      out.push({ text: claim.text, sources: [to] });
      const from = claim.sources.length ? `the cited [${claim.sources.join(', ')}] does not support it` : 'its sources were not in the context';
      return {
        ...s,
        text,
        citations: [to],
        supported: true,
        bestChunk: to,
        fromCitation: false,
        alternativeChunk: null,
        reason: `re-attributed: ${from}; [${to}] does`,
      };
    }
    // a supported claim keeps the citations that support it alone or are needed for the joint support
    const support = s.citationSupport ?? [];
    const keep = support.filter((c) => c.alone || c.needed).map((c) => c.id);
    if (!cut && s.kind === 'claim' && s.supported === true && keep.length && keep.length < claim.sources.length) {
      pruned.push({ sentence: s.text, ids: claim.sources.filter((id) => !keep.includes(id)) });
      out.push({ text: claim.text, sources: keep });
      return { ...s, text: claimLine(claim.text, keep), citations: keep, citationSupport: support.filter((c) => keep.includes(c.id)) };
    }
    if (!cut && attributable(s)) {
      attributed.push({ id: s.bestChunk, sentence: s.text });
      out.push({ text: claim.text, sources: [s.bestChunk] });
      return { ...s, text: claimLine(claim.text, [s.bestChunk]), citations: [s.bestChunk] };
    }
    out.push({ text: claim.text, sources: [...claim.sources] });
    return s;
  });
  const own = new Set(claims.flatMap((c) => c.sources));
  const checked = sentences.filter((s) => s.kind === 'claim');
  const totals = { ...report.totals, supported: checked.filter((s) => s.supported).length, unsupported: checked.filter((s) => s.supported === false).length };
  const verdict = classify(totals, opts.incomplete === true);
  return {
    claims: out,
    pruned,
    attributed: attributed.map((a) => ({ ...a, modelAlsoCites: own.has(a.id) })),
    report: { ...report, sentences, totals, verdict: verdict.verdict, verdictReason: verdict.reason },
    problem: null,
  };
}

/** What the one attribution reads of an answer, whatever its form (the turn's AnswerResult, or eval:answers' record). */
export interface AttributionSubject {
  answer: string;
  status: string;
  citations: readonly string[];
  /** Structured answers: the claims as checked, and the model's statement of what the passages lack. */
  structured: { claims: AnswerClaim[]; notInPassages: string | null; pruned?: PrunedCitations[] } | null;
  /** Quoted answers: the lead as written (unit markers) and the quoted units (quotes.ts). */
  quoted?: { lead: string | null; unitIds: readonly string[] } | null;
}

/** The answer after the check: its text, citations and numbering, what attribution changed, the report, and any problem. */
export interface Attributed {
  answer: string;
  citations: string[];
  display: NumberedCitations;
  attributed: AttributedCitation[];
  /** Structured answers: the claims as shown (re-attributed and pruned) and the pruned citations. */
  claims: AnswerClaim[] | null;
  pruned: PrunedCitations[];
  report: GroundingReport;
  /** Why attribution could not be applied (e.g. the check's verdicts do not match the claims), or null. */
  problem: string | null;
  /** Quoted answers: the lead's supported sentences (unit markers), and why the others were dropped. */
  lead?: { text: string | null; dropped: string | null };
}

/**
 * THE attribution of a checked answer, for every answer form: free text gets the supporting passage's marker after
 * each supported sentence the model left uncited; structured claims are re-attributed and pruned claim by claim
 * (reattributeClaims). `enabled` false (config.attribution off) keeps the answer as written with the report.
 * The Ask turn and eval:answers' scoring both call this, and only this.
 */
export function attributeResult(subject: AttributionSubject, report: GroundingReport, enabled = true): Attributed {
  const incomplete = subject.status !== 'complete';
  const s = subject.structured;
  const unchanged: Attributed = {
    answer: subject.answer,
    citations: [...subject.citations],
    display: numberCitations(subject.answer),
    attributed: [],
    claims: s ? [...s.claims] : null,
    pruned: s?.pruned ?? [],
    report,
    problem: null,
  };
  if (!enabled) return unchanged;
  if (subject.quoted) return attributeLead(subject.quoted, report, unchanged);
  if (s) {
    const r = reattributeClaims(s.claims, report, { incomplete });
    if (r.problem) return { ...unchanged, problem: r.problem };
    const answer = r.attributed.length || r.pruned.length ? renderClaims(r.claims, s.notInPassages) : subject.answer;
    return {
      answer,
      citations: citedIds(answer),
      display: numberCitations(answer),
      attributed: r.attributed,
      claims: r.claims,
      pruned: r.pruned,
      report: r.report,
      problem: null,
    };
  }
  const r = attributeCitations(subject.answer, report, { incomplete });
  if (!r.attributed.length) return unchanged;
  const own = new Set(subject.citations);
  return {
    ...unchanged,
    answer: r.answer,
    citations: citedIds(r.answer),
    display: numberCitations(r.answer),
    attributed: r.attributed.map((a) => ({ ...a, modelAlsoCites: own.has(a.id) })),
    report: r.report,
  };
}

/**
 * A quoted answer's lead after the check: each sentence is a claim over the quoted units it cites
 * (leadClaims); a sentence the quotations do not support is dropped, and the answer says so. The
 * quotations themselves are the documents' words: nothing to attribute.
 */
function attributeLead(quoted: NonNullable<AttributionSubject['quoted']>, report: GroundingReport, unchanged: Attributed): Attributed {
  const claims = leadClaims(quoted.lead, quoted.unitIds);
  if (report.sentences.length !== claims.length) {
    const problem = `the check returned ${report.sentences.length} verdict(s) for ${claims.length} lead sentence(s): the lead is not shown`;
    return { ...unchanged, answer: '', citations: [], display: numberCitations(''), problem, lead: { text: null, dropped: problem } };
  }
  const kept = claims.filter((_, i) => report.sentences[i]!.supported === true).map((c) => c.text);
  const lost = claims.length - kept.length;
  const text = kept.length ? kept.join(' ') : null;
  const answer = text ? shownLead(text) : '';
  return {
    ...unchanged,
    answer,
    citations: citedIds(answer),
    display: numberCitations(answer),
    lead: { text, dropped: lost ? `${lost} of ${claims.length} lead sentence(s) not supported by the quotations, not shown` : null },
  };
}
