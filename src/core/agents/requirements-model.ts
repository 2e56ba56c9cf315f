/**
 * Requirement drafting with a loaded model (the agent-based RAG paper's use case): the model
 * writes candidate "shall" statements for a hazard, function or operation from the passages the
 * evidence-only draft selected (requirements.ts), citing them by number; each statement then goes
 * through the source check, so an unsupported clause is marked, never passed off as derived.
 *
 * Pure over the one ChatEngine interface and an injected source check (the runtime's in the app,
 * checkGrounding with an embedder in Node).
 */
import { numberContextMarkers, parseCitations, resolveNumberMarkers, stripCitations } from '../answer/citations.js';
import { completeText } from '../llm/complete.js';
import { contextCharsFor, DEFAULT_ANSWER_CONFIG } from '../answer/config.js';
import type { ChatEngine } from '../llm/engine.js';
import type { GroundingReport } from '../answer/grounding.js';
import type { Chunk } from '../model/chunk.js';
import { collapseWhitespace } from '../text/sentences.js';
import type { RequirementDraft } from './requirements.js';
import { SkyCiteError } from '../errors.js';

/** A requirement draft the model cannot be given (nothing to draft from). */
export class RequirementsDraftError extends SkyCiteError {
  override name = 'RequirementsDraftError';
  override readonly code = 'requirements-draft';
}

export interface DraftPassageText {
  id: string;
  title: string;
  text: string;
}

export interface ModelRequirement {
  /** "M1", "M2", … in the model's order. */
  id: string;
  /** The statement as the model wrote it, citation markers removed. */
  statement: string;
  /** Passage ids it cites (only passages that were given to the model). */
  citations: string[];
  /** When the model cited nothing: the passage the source check found supporting it (shown as added by the check). */
  attributed: string[];
  /** The source check: true when every claim of the statement is supported by a passage; false when one is not; null when it made no claim. */
  supported: boolean | null;
  /** The check's reason for the first unsupported claim, or for the support. */
  reason: string;
}

export interface ModelDraft {
  description: string;
  requirements: ModelRequirement[];
  /** The model's reply, markers resolved to passage ids (audit). */
  raw: string;
  /** True when stopped before the reply was complete. */
  aborted: boolean;
  /** The passages given to the model, in their numbered order. */
  passageIds: string[];
}

export interface ModelDraftInput {
  description: string;
  passages: readonly DraftPassageText[];
  engine: ChatEngine;
  /** The source check over the given passages. */
  check: (statement: string, passageIds: string[]) => Promise<GroundingReport>;
  signal?: AbortSignal;
  /** At most this many statements are kept (default 8). */
  maxRequirements?: number;
}

export const REQUIREMENTS_SYSTEM_PROMPT =
  'You derive candidate safety requirements for unmanned aircraft operations from numbered regulatory passages. ' +
  'Use only what the passages say. Write each requirement on its own line starting with "- ", as one "shall" sentence ' +
  '(for example "The UAS operator shall …"), and end it with the number of the passage it comes from in square brackets, e.g. [2]. ' +
  'If the passages contain nothing that applies, write exactly: No requirement can be derived from these passages.';

/** The numbered passages and the request, as the model sees them. */
export function requirementsPrompt(description: string, passages: readonly DraftPassageText[], max: number): { user: string; ids: string[] } {
  const blocks = passages.map((p) => `[${p.id}] ${p.title}\n${collapseWhitespace(p.text)}`).join('\n\n');
  const numbered = numberContextMarkers(blocks);
  return {
    ids: numbered.ids,
    user: `Hazard, function or operation: ${description}\n\nPassages:\n${numbered.context}\n\nWrite at most ${max} candidate requirements for it.`,
  };
}

/** The "- …" lines of a reply (markers already resolved to ids), each with the ids it cites among `allowed`. */
export function parseRequirementLines(reply: string, allowed: readonly string[]): { statement: string; citations: string[] }[] {
  const out: { statement: string; citations: string[] }[] = [];
  for (const line of reply.split(/\r?\n/)) {
    const m = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line);
    if (!m) continue;
    const body = m[1]!.trim();
    const citations = [...new Set(parseCitations(body).flatMap((c) => c.ids))].filter((id) => allowed.includes(id));
    const statement = stripCitations(body)
      .replace(/\s+([.,;])/g, '$1')
      .trim();
    if (statement) out.push({ statement, citations });
  }
  return out;
}

/**
 * The checked sentences of each statement when a list of statements was checked in one call (the
 * passages are embedded once): the check splits the list line by line, in order, so each sentence
 * belongs to the first statement (from the current one on) whose text contains it.
 */
export function statementSentences(
  sentences: readonly GroundingReport['sentences'][number][],
  statements: readonly string[],
): GroundingReport['sentences'][number][][] {
  const out = statements.map((): GroundingReport['sentences'][number][] => []);
  const norm = (t: string) => collapseWhitespace(stripCitations(t)).toLowerCase();
  const texts = statements.map(norm);
  let j = 0;
  for (const s of sentences) {
    const t = norm(s.text ?? '');
    while (j < texts.length - 1 && !texts[j]!.includes(t)) j++;
    out[j]?.push(s);
  }
  return out;
}

export async function draftWithModel(input: ModelDraftInput): Promise<ModelDraft> {
  const max = input.maxRequirements ?? 8;
  const { user, ids } = requirementsPrompt(input.description, input.passages, max);
  const reply = await completeText(input.engine, {
    messages: [
      { role: 'system', content: REQUIREMENTS_SYSTEM_PROMPT },
      { role: 'user', content: user },
    ],
    temperature: 0.2,
    top_p: 0.9,
    max_tokens: 600,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const raw = resolveNumberMarkers(reply.text, ids);
  // a small model repeats itself: the same statement is kept once
  const seen = new Set<string>();
  const lines = parseRequirementLines(raw, ids)
    .filter((l) => {
      const key = l.statement
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, max);
  // one source check for the whole list (the passages are embedded once), checked against every given
  // passage: a statement citing one that does not support it is marked by the check
  const cited = lines.map((l) => (l.citations.length ? `${l.statement} ${l.citations.map((c) => `[${c}]`).join(' ')}` : l.statement));
  const report = lines.length ? await input.check(cited.map((c) => `- ${c}`).join('\n'), ids) : null;
  const sentencesOf = statementSentences(
    report?.sentences ?? [],
    lines.map((l) => l.statement),
  );
  const requirements: ModelRequirement[] = [];
  for (const [i, l] of lines.entries()) {
    const claims = sentencesOf[i]!.filter((s) => s.kind === 'claim');
    const failed = claims.find((s) => s.supported !== true);
    const supportedBy = [...new Set(claims.filter((c) => c.supported === true && c.bestChunk).map((c) => c.bestChunk!))];
    requirements.push({
      id: `M${i + 1}`,
      statement: l.statement,
      citations: l.citations,
      attributed: l.citations.length || failed ? [] : supportedBy,
      supported: claims.length ? !failed : null,
      reason: failed?.reason ?? claims[0]?.reason ?? 'no claim to check',
    });
  }
  return { description: input.description, requirements, raw, aborted: reply.aborted, passageIds: ids };
}

/** Characters of the window's context budget left for the instructions and the description. */
const PROMPT_RESERVE = 800;
/** Passages given to the model at most. */
const MAX_PASSAGES = 6;

export interface CitedPassagesDeps {
  getChunk: (id: string) => Promise<Chunk | null>;
  check: ModelDraftInput['check'];
  engine: ChatEngine;
  /** The model's context window in tokens (the passages are cut to its budget). */
  contextWindow: number;
}

/**
 * The model drafts from the passages the evidence-only draft cites (at most 6), each cut to an equal
 * share of the window's context budget.
 */
export async function draftFromCitedPassages(deps: CitedPassagesDeps, draft: RequirementDraft, signal?: AbortSignal): Promise<ModelDraft> {
  const ids = [...new Set(draft.requirements.map((r) => r.source.chunkId))].slice(0, MAX_PASSAGES);
  if (!ids.length)
    throw new RequirementsDraftError(
      'The evidence-only draft has no passage with a requirement to give the model; describe the hazard or operation differently.',
    );
  const chunks = (await Promise.all(ids.map((id) => deps.getChunk(id)))).filter((c): c is Chunk => c !== null);
  const budget = Math.max(1000, contextCharsFor(deps.contextWindow, DEFAULT_ANSWER_CONFIG.generation) - PROMPT_RESERVE);
  const each = Math.floor(budget / Math.max(1, chunks.length));
  return draftWithModel({
    description: draft.query,
    passages: chunks.map((c) => ({ id: c.id, title: c.title, text: collapseWhitespace(c.text).slice(0, each) })),
    engine: deps.engine,
    check: deps.check,
    ...(signal ? { signal } : {}),
  });
}

/** The model's candidates as Markdown (audit answer, CLI), each with the source check's verdict. */
export function modelDraftToMarkdown(d: ModelDraft): string {
  const mark = (s: boolean | null) => (s === true ? 'supported by its passages' : s === false ? 'NOT supported by its passages: check it' : 'no claim checked');
  const sources = (r: ModelRequirement) =>
    r.citations.length
      ? r.citations.map((c) => `[${c}]`).join(' ')
      : r.attributed.length
        ? `${r.attributed.map((c) => `[${c}]`).join(' ')} (added by the source check; the model cited none)`
        : '(cites no passage)';
  return [
    `# Candidate requirements drafted by the model${d.description ? `: ${d.description}` : ''}`,
    '',
    ...d.requirements.map((r) => `- ${r.id}: ${r.statement} ${sources(r)} — ${mark(r.supported)}`),
  ].join('\n');
}
