/**
 * Answer-quality measures on real model output (`npm run eval:answers`), over
 * questions in the format of ../shared/eval/retrieval-dev.jsonl:
 *
 * - citation coverage, recall and precision, ALCE's way (Gao et al. 2023), over the claims of
 *   generated answers (structured claims, or the sentences the grounding check treats as claims)
 *   and the citations the model wrote (before any attribution or re-attribution by the check):
 *   coverage = the share of claims with at least one citation; recall = the share of claims the
 *   union of their cited passages supports (an uncited claim counts as unsupported); precision =
 *   the share of citations that support their claim alone or are needed for the joint support
 *   (a citation of a passage outside the context counts as imprecise). The judge is the grounding
 *   check's support decision (docs/answers.md gives its agreement with hand labels);
 * - answer correctness: of the answerable questions, the share whose answer has a claim the
 *   question's gold passage supports (the same judge, the gold passage as the only candidate);
 * - gold citation share (detail; the measure this file called "citation precision" before): of
 *   the ids cited for answerable questions, the share that are the question's gold passage (`isHit`);
 *   it mixes retrieval with citation and is kept only to compare with earlier figures;
 * - citation rate: of the generated answers to answerable questions that do not
 *   refuse, the share that cite at least one context chunk;
 * - refusal correctness: of the unanswerable questions, the share answered with a
 *   refusal (the fixed no-evidence reply, or a generated answer that says the
 *   context does not give the answer and cites nothing in its "Answer" section);
 * - flagged sentence rate: of all sentences of generated answers, the share the
 *   grounding check marks unsupported;
 * - retrieval precision, augmentation accuracy and augmentation precision (RP, AA, AP, the
 *   agent-based RAG paper's Table 1, which has an LLM judge decide them): over the context passages
 *   given to the model for answerable questions, RP = the share relevant to the question, AA = the
 *   share used in the answer, AP = of the relevant ones, the share used. Here "relevant" is the
 *   question's gold label (the passage holds the supporting quote, `isHit`) and "used" means the
 *   answer cites the passage or the grounding check found it supporting one of the answer's claims;
 * - answer consistency (AC, the agent-based RAG paper's Table 1): of the answer's
 *   claims (its "main points": the sentences the grounding check treats as claims),
 *   the share found in the context — supported by some context chunk, whichever
 *   chunk the sentence cites. The paper uses an LLM judge; here the judge is the
 *   grounding check's measures (embedding similarity, term overlap, numbers) against
 *   every context chunk.
 *
 * Pure functions: the harness (corpus-build/node/answer-eval.ts) produces the
 * records and the grounding reports.
 */
import { parseCitations, stripCitations } from '../answer/citations.js';
import type { GroundingReport } from '../answer/grounding.js';
import { matchSectionLabel } from '../answer/grounding.js';
import { NO_ANSWER_TEXT } from '../answer/prompts.js';

/** Phrases of a generated answer that declines for lack of information in the context. */
const DECLINE =
  /\b(?:(?:does|do) not (?:contain|provide|include|give|specify|mention|address|cover|state)|(?:is|are) not (?:provided|given|specified|mentioned|stated|covered|present|available|addressed)|not enough information|insufficient information|no (?:relevant )?information|cannot (?:be )?(?:determined?|answer(?:ed)?|provide)|unable to (?:answer|determine|provide)|there is no (?:mention|information))\b/i;

/** The text of the "Answer" section (or the whole answer when it has no sections). */
export function answerSection(answer: string): string {
  const lines = answer.split(/\r?\n/);
  const out: string[] = [];
  let inAnswer: boolean | null = null;
  for (const line of lines) {
    const label = matchSectionLabel(line);
    if (label) {
      if (inAnswer === true) break;
      inAnswer = label.label === 'Answer';
      if (inAnswer && label.rest) out.push(label.rest);
      continue;
    }
    if (inAnswer !== false) out.push(line);
  }
  return out.join('\n').trim();
}

/**
 * True when the answer refuses: it is (or contains) the fixed no-answer reply, or
 * its "Answer" section says the context does not give the answer and cites nothing.
 */
export function isRefusal(answer: string): boolean {
  const text = answer.trim();
  if (!text) return false;
  if (text.includes(NO_ANSWER_TEXT)) return true;
  const head = answerSection(text);
  if (!head) return false;
  return parseCitations(head).length === 0 && DECLINE.test(stripCitations(head));
}

/** One question's outcome, as the harness records it. */
export interface AnswerOutcome {
  answerable: boolean;
  /** The engine was called (false: no evidence, the fixed reply). */
  modelCalled: boolean;
  answer: string;
  /** Cited chunk ids that were in the context. */
  citations: string[];
  /** For each cited id: does its chunk hold the supporting quote / is it a gold chunk. */
  citationHits: boolean[];
  /** For each cited id: true when the grounding check attributed it (attribution.ts), false when the model wrote it; absent = all by the model. */
  citationAttributed?: boolean[];
  /** True when a gold chunk was in the context given to the model. */
  goldInContext: boolean;
  /** The context passages given to the model, each with its gold label (RP / AA / AP); absent in older records. */
  context?: { id: string; relevant: boolean }[];
  grounding: Pick<GroundingReport, 'totals' | 'sentences'> | null;
  usage: { promptTokens: number; completionTokens: number; prefillSeconds: number; decodeSeconds: number } | null;
  /** The claims as the model cited them, judged (`judgeClaims` of the grounding report before attribution); absent in older records. */
  claims?: ClaimJudgement[];
  /** Citations the model wrote to passages outside the context (dropped before the check). */
  outsideCitations?: number;
  /** True when the model declined (a structured answer without claims); absent: read from the text (`isRefusal`). */
  refused?: boolean;
  /** Answerable questions: a claim is supported by a gold passage; null when not judged. */
  correct?: boolean | null;
  /** Quoted answers: claims quoting a unit vs written by the model (the lead), distinct and repeated claims, the lead's fate. */
  forms?: { quoted: number; written: number; distinct: number; repeated: number; lead: 'supported' | 'partly' | 'dropped' | 'declined' | 'none' };
}

/** One claim of an answer, judged against the passages the model cited for it. */
export interface ClaimJudgement {
  /** Context passages it cites. */
  citations: number;
  /** The union of its cited passages supports it. */
  supported: boolean;
  /** Citations that support it alone or are needed for the joint support. */
  precise: number;
}

/** The claims of a grounding report (taken before attribution), judged ALCE's way. */
export function judgeClaims(report: Pick<GroundingReport, 'sentences'>): ClaimJudgement[] {
  return report.sentences
    .filter((s) => s.kind === 'claim')
    .map((s) => {
      const support = s.citationSupport ?? [];
      return {
        citations: support.length,
        supported: s.supported === true && s.fromCitation && support.length > 0,
        precise: support.filter((c) => c.alone || c.needed).length,
      };
    });
}

export interface AnswerEvalSummary {
  n: number;
  /** Claims with at least one citation, over all claims. */
  citationCoverage: number | null;
  /** Claims supported by the union of their cited passages, over all claims. */
  citationRecall: number | null;
  /** Citations that support their claim alone or are needed for joint support, over all citations. */
  citationPrecision: number | null;
  /** Answerable questions whose answer has a claim a gold passage supports, over the answerable questions judged. */
  answerCorrect: number | null;
  refusalCorrect: number | null;
  flaggedSentenceRate: number | null;
  answerConsistency: number | null;
  /** The agent-based RAG paper's context measures (RP, AA, AP), judged by the gold labels and the grounding check; null when no context was given. */
  ragMetrics: { retrievalPrecision: number | null; augmentationAccuracy: number | null; augmentationPrecision: number | null; contextPassages: number };
  tokensPerSecond: { prefill: number | null; decode: number | null };
  /** Quoted answers: claims quoting a unit and claims written, distinct and repeated claims, answers with a repeat, leads supported / partly / dropped / declined. */
  claimForms: {
    quoted: number;
    written: number;
    distinct: number;
    repeated: number;
    answersWithRepeats: number;
    leads: { supported: number; partly: number; dropped: number; declined: number; none: number };
  } | null;
  model: string;
  /** The counts behind each figure, and breakdowns. */
  detail: {
    answerable: number;
    unanswerable: number;
    modelCalls: number;
    /** Claims the grounding check found (answer consistency's denominator). */
    claims: number;
    /** The counts behind the ALCE measures: claims judged against their citations, … */
    judgedClaims: number;
    claimsCited: number;
    claimsSupportedByCitations: number;
    citations: number;
    preciseCitations: number;
    answerableJudged: number;
    answersCorrect: number;
    /** Share of cited ids (as shown, attribution included) that are the question's gold passage: the earlier "citation precision". */
    goldCitationShare: number | null;
    citedIds: number;
    citedIdsHit: number;
    /** Gold citation share over answers whose context held a gold chunk. */
    goldCitationShareGoldInContext: number | null;
    /** Gold citation share of the ids the model wrote itself (attributed ones left out), and their counts. */
    modelGoldCitationShare: number | null;
    modelCitedIds: number;
    /** Ids added by the grounding check's attribution, and how many of them hold the supporting quote. */
    attributedIds: number;
    attributedIdsHit: number;
    /** Citation rate counting only the model's own markers. */
    modelCitationRate: number | null;
    /** Generated, non-refusing answers to answerable questions that cite at least one context chunk, over all such answers. */
    citationRate: number | null;
    answersWithoutCitation: number;
    /** Answerable questions answered with a refusal. */
    falseRefusals: number;
    refusals: number;
    sentences: number;
    flaggedSentences: number;
    claimsFoundInContext: number;
  };
}

const ratio = (a: number, b: number): number | null => (b > 0 ? Math.round((a / b) * 1e4) / 1e4 : null);

/** Passages the answer used: cited, or found by the grounding check supporting one of its claims. */
export function usedPassages(o: Pick<AnswerOutcome, 'citations' | 'grounding'>): Set<string> {
  const used = new Set(o.citations);
  for (const s of o.grounding?.sentences ?? []) {
    if (s.kind !== 'claim') continue;
    if (s.supported && s.bestChunk) used.add(s.bestChunk);
    if (s.alternativeChunk) used.add(s.alternativeChunk);
  }
  return used;
}

/** A claim is found in the context when a context chunk supports it, cited or not. */
export function claimFoundInContext(s: GroundingReport['sentences'][number]): boolean {
  return s.kind === 'claim' && (s.supported === true || s.alternativeChunk !== null);
}

export function summariseAnswers(outcomes: readonly AnswerOutcome[], model: string): AnswerEvalSummary {
  let citedIds = 0;
  let citedIdsHit = 0;
  let citedGold = 0;
  let citedGoldHit = 0;
  let withoutCitation = 0;
  let modelCited = 0;
  let modelCitedHit = 0;
  let attributedIds = 0;
  let attributedHit = 0;
  let modelCiting = 0;
  let citing = 0;
  let citable = 0;
  let refusals = 0;
  let refusedUnanswerable = 0;
  let falseRefusals = 0;
  let sentences = 0;
  let flagged = 0;
  let claims = 0;
  let found = 0;
  let contextPassages = 0;
  let relevantPassages = 0;
  let usedContext = 0;
  let relevantUsed = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let prefillSeconds = 0;
  let decodeSeconds = 0;
  let judgedClaims = 0;
  let claimsCited = 0;
  let claimsSupported = 0;
  let citations = 0;
  let precise = 0;
  let answerableJudged = 0;
  let answersCorrect = 0;
  const unanswerable = outcomes.filter((o) => !o.answerable).length;
  for (const o of outcomes) {
    const refused = !o.modelCalled || (o.refused ?? isRefusal(o.answer));
    if (o.modelCalled && o.claims) {
      for (const c of o.claims) {
        judgedClaims++;
        if (c.citations > 0) claimsCited++;
        if (c.supported) claimsSupported++;
        citations += c.citations;
        precise += c.precise;
      }
      citations += o.outsideCitations ?? 0;
    }
    if (o.answerable && o.correct !== undefined && o.correct !== null) {
      answerableJudged++;
      if (o.correct) answersCorrect++;
    }
    if (refused) refusals++;
    if (!o.answerable && refused) refusedUnanswerable++;
    if (o.answerable && refused) falseRefusals++;
    if (o.answerable && o.modelCalled) {
      citedIds += o.citations.length;
      citedIdsHit += o.citationHits.filter(Boolean).length;
      const byCheck = o.citations.map((_, i) => o.citationAttributed?.[i] === true);
      o.citationHits.forEach((hit, i) => {
        if (byCheck[i]) {
          attributedIds++;
          if (hit) attributedHit++;
        } else {
          modelCited++;
          if (hit) modelCitedHit++;
        }
      });
      if (o.context) {
        const used = usedPassages(o);
        for (const c of o.context) {
          contextPassages++;
          if (c.relevant) relevantPassages++;
          if (used.has(c.id)) {
            usedContext++;
            if (c.relevant) relevantUsed++;
          }
        }
      }
      if (o.goldInContext) {
        citedGold += o.citations.length;
        citedGoldHit += o.citationHits.filter(Boolean).length;
      }
      if (!refused) {
        citable++;
        if (o.citations.length) citing++;
        else withoutCitation++;
        if (byCheck.some((b) => !b)) modelCiting++;
      }
    }
    if (o.modelCalled && o.grounding) {
      sentences += o.grounding.totals.sentences;
      flagged += o.grounding.totals.unsupported;
      for (const s of o.grounding.sentences) {
        if (s.kind !== 'claim') continue;
        claims++;
        if (claimFoundInContext(s)) found++;
      }
    }
    if (o.usage) {
      promptTokens += o.usage.promptTokens;
      completionTokens += o.usage.completionTokens;
      prefillSeconds += o.usage.prefillSeconds;
      decodeSeconds += o.usage.decodeSeconds;
    }
  }
  const perSecond = (t: number, s: number): number | null => (s > 0 ? Math.round((t / s) * 100) / 100 : null);
  const withForms = outcomes.filter((o) => o.forms);
  const claimForms = withForms.length
    ? {
        quoted: withForms.reduce((n, o) => n + o.forms!.quoted, 0),
        written: withForms.reduce((n, o) => n + o.forms!.written, 0),
        distinct: withForms.reduce((n, o) => n + o.forms!.distinct, 0),
        repeated: withForms.reduce((n, o) => n + o.forms!.repeated, 0),
        answersWithRepeats: withForms.filter((o) => o.forms!.repeated > 0).length,
        leads: {
          supported: withForms.filter((o) => o.forms!.lead === 'supported').length,
          partly: withForms.filter((o) => o.forms!.lead === 'partly').length,
          dropped: withForms.filter((o) => o.forms!.lead === 'dropped').length,
          declined: withForms.filter((o) => o.forms!.lead === 'declined').length,
          none: withForms.filter((o) => o.forms!.lead === 'none').length,
        },
      }
    : null;
  return {
    n: outcomes.length,
    citationCoverage: ratio(claimsCited, judgedClaims),
    citationRecall: ratio(claimsSupported, judgedClaims),
    citationPrecision: ratio(precise, citations),
    answerCorrect: ratio(answersCorrect, answerableJudged),
    refusalCorrect: ratio(refusedUnanswerable, unanswerable),
    flaggedSentenceRate: ratio(flagged, sentences),
    answerConsistency: ratio(found, claims),
    ragMetrics: {
      retrievalPrecision: ratio(relevantPassages, contextPassages),
      augmentationAccuracy: ratio(usedContext, contextPassages),
      augmentationPrecision: ratio(relevantUsed, relevantPassages),
      contextPassages,
    },
    tokensPerSecond: { prefill: perSecond(promptTokens, prefillSeconds), decode: perSecond(completionTokens, decodeSeconds) },
    claimForms,
    model,
    detail: {
      answerable: outcomes.length - unanswerable,
      unanswerable,
      modelCalls: outcomes.filter((o) => o.modelCalled).length,
      claims,
      judgedClaims,
      claimsCited,
      claimsSupportedByCitations: claimsSupported,
      citations,
      preciseCitations: precise,
      answerableJudged,
      answersCorrect,
      goldCitationShare: ratio(citedIdsHit, citedIds),
      citedIds,
      citedIdsHit,
      goldCitationShareGoldInContext: ratio(citedGoldHit, citedGold),
      citationRate: ratio(citing, citable),
      modelGoldCitationShare: ratio(modelCitedHit, modelCited),
      modelCitedIds: modelCited,
      attributedIds,
      attributedIdsHit: attributedHit,
      modelCitationRate: ratio(modelCiting, citable),
      answersWithoutCitation: withoutCitation,
      falseRefusals,
      refusals,
      sentences,
      flaggedSentences: flagged,
      claimsFoundInContext: found,
    },
  };
}
