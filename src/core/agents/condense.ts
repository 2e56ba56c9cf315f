/**
 * The document agents' refined context condensed by the loaded model (the agent-based RAG paper's
 * step 3): for each document the agents kept, the model reads that document's best passages and
 * keeps only the statements that bear on the question, each with the number of its passage. What it
 * writes is then held to the passages:
 *  - a statement citing a passage that was not given is stripped of that citation;
 *  - every statement goes through the source check; one the passages do not support is dropped;
 *  - a statement with no citation keeps the passage the check found supporting it;
 *  - when nothing is left (the model found nothing, failed, or was stopped), the document's
 *    extractive refined context is used, and the reason is recorded.
 * So the condensed context never carries a sentence the passages do not state, and every line
 * names its passage (`[chunk-id]`), as the answer prompt expects.
 *
 * Pure over the one ChatEngine interface and an injected source check (the runtime's in the app,
 * checkGrounding with an embedder in Node).
 */
import { parseReplyJson } from '../llm/json.js';
import { numberContextMarkers, stripCitations } from '../answer/citations.js';
import { completeText } from '../llm/complete.js';
import type { ChatEngine } from '../llm/engine.js';
import type { GroundingReport } from '../answer/grounding.js';
import { statementSentences, type DraftPassageText } from './requirements-model.js';
import { DEFAULT_AGENT_CONFIG, documentHeader } from './agents.js';
import { collapseWhitespace } from '../text/sentences.js';

export const CONDENSE_SYSTEM_PROMPT =
  'You prepare notes from numbered passages of one regulatory document for a question. ' +
  'Copy or shorten only the statements that help answer the question; for each, give the number of the passage it comes from. ' +
  'Keep numbers, units, names and defined terms exactly as printed. Do not answer the question and add nothing of your own. ' +
  'Reply in JSON: {"notes": [{"passage": 1, "text": "…"}]}; if no passage helps, reply {"notes": []}.';

/** Maximum notes per document. */
export const MAX_NOTES = 6;

/** The reply's form (WebLLM's / llama.cpp's constrained JSON output). */
export const CONDENSE_SCHEMA = {
  type: 'object',
  properties: {
    notes: {
      type: 'array',
      maxItems: MAX_NOTES,
      items: {
        type: 'object',
        properties: { passage: { type: 'integer', minimum: 1 }, text: { type: 'string', maxLength: 300 } },
        required: ['passage', 'text'],
      },
    },
  },
  required: ['notes'],
} as const;

/**
 * The notes of a reply: `{passage, text}` items with a text. A reply cut off by the token limit keeps
 * its complete items; null when the reply holds no such JSON at all.
 */
export function parseNotes(reply: string): { passage: number; text: string }[] | null {
  const json = parseReplyJson(reply);
  const notes = json?.value.notes;
  if (!Array.isArray(notes)) return null;
  const complete = notes
    .filter(
      (n): n is { passage: number; text: string } =>
        !!n && typeof n === 'object' && Number.isInteger((n as { passage?: unknown }).passage) && typeof (n as { text?: unknown }).text === 'string',
    )
    .map((n) => ({ passage: n.passage, text: collapseWhitespace(n.text).trim() }))
    .filter((n) => n.text.length > 0);
  // a cut-off reply without one complete note is not "nothing relevant": it is no list at all
  return json!.complete || complete.length ? complete : null;
}

export interface CondenseDocument {
  id: string;
  title: string;
  edition: string;
  pages: string;
  /** The document's best passages for the question, best first (the agent's evidence). */
  passages: readonly DraftPassageText[];
  /** The extractive refined context (agents.ts), used when the model leaves nothing. */
  extractive: string;
}

export interface CondensedStatement {
  statement: string;
  /** The passage ids it rests on: its own citations among the given passages, or the one the check found. */
  citations: string[];
  /** True when the citation was added by the source check (the model cited none). */
  attributed: boolean;
}

export interface CondensedContext {
  documentId: string;
  /** `model`: the kept statements; `extractive`: the fallback. */
  mode: 'model' | 'extractive';
  /** The context block given to the answer prompt: a header naming document, edition and pages, then `[chunk-id] statement` lines. */
  text: string;
  statements: CondensedStatement[];
  /** Statements the model wrote that the source check did not find in the passages (dropped). */
  dropped: string[];
  /** Why the fallback was used, or what was kept. */
  reason: string;
  /** The model's reply as written (audit); empty when no call was made. */
  raw: string;
}

export interface CondenseDeps {
  engine: ChatEngine;
  /** The source check of a text against the given passages. */
  check: (text: string, passageIds: string[]) => Promise<GroundingReport>;
  signal?: AbortSignal;
  /** Reply limit in tokens (default 600: six notes of at most 300 characters). */
  maxTokens?: number;
}

/** The prompt for one document: its numbered passages and the question. */
export function condensePrompt(question: string, d: CondenseDocument): { user: string; ids: string[] } {
  const blocks = d.passages.map((p) => `[${p.id}] ${p.title}\n${collapseWhitespace(p.text)}`).join('\n\n');
  const numbered = numberContextMarkers(blocks);
  return { ids: numbered.ids, user: `Document: ${d.title} (${d.edition})\n\nPassages:\n${numbered.context}\n\nQuestion: ${question}\n\nNotes:` };
}

/** One document's condensed context. Engine failures fall back to the extractive context (the reason says so), except a stop. */
export async function condenseDocument(question: string, d: CondenseDocument, deps: CondenseDeps): Promise<CondensedContext> {
  const fallback = (reason: string, raw = '', dropped: string[] = []): CondensedContext => ({
    documentId: d.id,
    mode: 'extractive',
    text: d.extractive,
    statements: [],
    dropped,
    reason,
    raw,
  });
  if (!d.passages.length) return fallback('no passage to condense');
  const { user, ids } = condensePrompt(question, d);
  let reply;
  try {
    reply = await completeText(deps.engine, {
      messages: [
        { role: 'system', content: CONDENSE_SYSTEM_PROMPT },
        { role: 'user', content: user },
      ],
      temperature: 0,
      top_p: 1,
      max_tokens: deps.maxTokens ?? 600,
      schema: CONDENSE_SCHEMA,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch (e) {
    if (deps.signal?.aborted) throw e;
    return fallback(`the model failed (${(e as Error).message}); the extractive context is used`);
  }
  const raw = reply.text;
  if (reply.aborted) return fallback('stopped before the notes were complete; the extractive context is used', raw);
  const notes = parseNotes(raw);
  if (!notes) return fallback('the model wrote no notes in the expected form; the extractive context is used', raw);
  if (!notes.length) return fallback('the model found nothing relevant in the passages; the extractive context is used', raw);
  const seen = new Set<string>();
  const lines = notes
    .map((n) => {
      const id = ids[n.passage - 1];
      // a number outside the given passages is no citation; the source check may still find the note's passage
      return { statement: stripCitations(n.text).trim(), citations: id ? [id] : [] };
    })
    .filter((l) => {
      const key = l.statement
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_NOTES);
  const statements: CondensedStatement[] = [];
  const dropped: string[] = [];
  // one source check for all the notes, one per line, against every given passage (embedded once): a
  // citation the passages do not bear out is caught
  const cited = lines.map((l) => (l.citations.length ? `${l.statement} ${l.citations.map((c) => `[${c}]`).join(' ')}` : l.statement));
  const report = await deps.check(cited.map((c) => `- ${c}`).join('\n'), ids);
  const sentencesOf = statementSentences(
    report.sentences,
    lines.map((l) => l.statement),
  );
  for (const [i, l] of lines.entries()) {
    const claims = sentencesOf[i]!.filter((s) => s.kind === 'claim');
    const failed = claims.some((s) => s.supported !== true);
    const supportedBy = [...new Set(claims.map((c) => c.bestChunk).filter((c): c is string => !!c))];
    const citations = l.citations.length ? l.citations : supportedBy.slice(0, 1);
    if (!claims.length || failed || !citations.length) {
      dropped.push(l.statement);
      continue;
    }
    statements.push({ statement: l.statement, citations, attributed: !l.citations.length });
  }
  if (!statements.length) return fallback(`none of the model's ${lines.length} notes was found in the passages; the extractive context is used`, raw, dropped);
  // one passage id per line, at the line's start: the answer prompt numbers `[chunk-id] ` markers there
  const text = [documentHeader(d), ...statements.map((s) => `[${s.citations[0]}] ${s.statement}`)].join('\n');
  return {
    documentId: d.id,
    mode: 'model',
    text,
    statements,
    dropped,
    reason: `${statements.length} note(s) kept${dropped.length ? `, ${dropped.length} dropped (not found in the passages)` : ''}`,
    raw,
  };
}

/** Every kept document's condensed context, in order, and the combined context (blocks separated by a blank line, cut to `maxChars`). */
export async function condenseDocuments(
  question: string,
  documents: readonly CondenseDocument[],
  deps: CondenseDeps,
  maxChars = Infinity,
): Promise<{ context: string; documents: CondensedContext[] }> {
  const out: CondensedContext[] = [];
  for (const d of documents) out.push(await condenseDocument(question, d, deps));
  return {
    context: out
      .map((c) => c.text)
      .join('\n\n')
      .slice(0, maxChars),
    documents: out,
  };
}

/** A kept document of the agents' result, as {@link condenseDocument} reads it. */
export interface ConsultedForCondense {
  id: string;
  title: string;
  edition: string;
  pages: string;
  kept: boolean;
  /** Its agent's evidence passages, best first. */
  evidenceIds: readonly string[];
  refined: string;
}

/**
 * The condensation inputs of the kept documents: each one's first `passages` evidence passages, each
 * cut to `charsEach` characters (so three documents' prompts fit the model's window), and its
 * extractive refined context as the fallback.
 */
export function condenseInputs(
  consulted: readonly ConsultedForCondense[],
  chunkOf: (id: string) => Pick<DraftPassageText, 'id' | 'title' | 'text'> | undefined,
  o: { passages: number; charsEach: number },
): CondenseDocument[] {
  return consulted
    .filter((c) => c.kept)
    .map((c) => ({
      id: c.id,
      title: c.title,
      edition: c.edition,
      pages: c.pages,
      extractive: c.refined,
      passages: c.evidenceIds
        .slice(0, o.passages)
        .map((id) => chunkOf(id))
        .filter((p): p is DraftPassageText => !!p)
        .map((p) => ({ id: p.id, title: p.title, text: collapseWhitespace(p.text).slice(0, o.charsEach) })),
    }));
}

/**
 * The answer's context from the kept documents, condensed (the app's session and `eval:answers
 * --condense` alike): each document's first passages as many as its extractive refined context holds
 * (AgentConfig.refined.passages), each cut to an equal share of `budget` characters, condensed in turn;
 * the combined context cut to `budget`.
 */
export function condenseConsulted(
  question: string,
  consulted: readonly ConsultedForCondense[],
  chunkOf: (id: string) => Pick<DraftPassageText, 'id' | 'title' | 'text'> | undefined,
  budget: number,
  deps: CondenseDeps,
): Promise<{ context: string; documents: CondensedContext[] }> {
  const passages = DEFAULT_AGENT_CONFIG.refined.passages;
  return condenseDocuments(question, condenseInputs(consulted, chunkOf, { passages, charsEach: Math.floor(budget / passages) }), deps, budget);
}
