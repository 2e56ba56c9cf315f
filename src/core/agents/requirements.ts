/**
 * Safety-requirement drafting, evidence-only mode (the agent-based RAG paper's
 * use case): from a hazard, a function or an operation description, the
 * document agents select passages; their normative statements ("shall",
 * "should", "must", "is required") are extracted verbatim, each with the passage
 * it comes from (document, section, pages) and a rationale, grouped by OSO or
 * mitigation where the SORA applies. Nothing is paraphrased: a candidate
 * requirement is always a sentence printed in the source.
 *
 * Exports: Markdown, JSON and CSV (for a requirements tool).
 */
import type { Chunk } from '../model/chunk.js';
import type { AgentResult } from './agents.js';
import { formatPages } from '../retrieval/context.js';
import { collapseWhitespace, splitSentences } from '../text/sentences.js';
import { csvCell, csvRow } from '../text/csv.js';

export type Modal = 'shall' | 'must' | 'should' | 'is required';

const NORMATIVE = /\b(shall|must|should|(?:is|are) required)\b/i;

export interface NormativeStatement {
  text: string;
  modal: Modal;
}

/** The sentences of a text that state an obligation or a recommendation, verbatim (whitespace collapsed). */
export function normativeStatements(text: string): NormativeStatement[] {
  const out: NormativeStatement[] = [];
  for (const s of splitSentences(collapseWhitespace(text))) {
    const m = NORMATIVE.exec(s);
    if (!m) continue;
    const word = m[1]!.toLowerCase();
    out.push({ text: s.trim(), modal: word.endsWith('required') ? 'is required' : (word as Modal) });
  }
  return out;
}

export interface DraftSource {
  chunkId: string;
  document: string;
  edition: string;
  section: string;
  pages: string;
}

export interface CandidateRequirement {
  id: string;
  statement: string;
  modal: Modal;
  /** "OSO #05 …", "Mitigation M2 …", or the document's title when no SORA objective applies. */
  group: string;
  rationale: string;
  source: DraftSource;
  /** Evidence-only drafts are verbatim; a model draft would be checked by the grounding check. */
  verbatim: true;
  /** False when the source is a restatement (the curated set), not the regulation's own wording. */
  sourceVerbatim: boolean;
}

export interface RequirementDraft {
  query: string;
  mode: 'evidence-only';
  createdAt: string;
  /** Documents consulted, with the reason each was selected. */
  documents: { id: string; title: string; edition: string; reason: string; kept: boolean }[];
  requirements: CandidateRequirement[];
  /** Set when nothing passed the evidence gate. */
  noEvidence: boolean;
}

export interface DraftPassage {
  chunk: Chunk;
  documentTitle: string;
  documentEdition: string;
  /** 1-based rank of the passage among the selected evidence. */
  rank: number;
  /** Whether the source prints the regulation's own wording (the manifest's `verbatim`). */
  sourceVerbatim: boolean;
}

const OSO = /\bOSO #(\d+)/;
const MITIGATION = /\b(M1\s?\([ABC]\)|M1|M2|M3)\b/;

/** The SORA objective or mitigation a passage belongs to, from its printed title and section path. */
export function groupOf(chunk: Pick<Chunk, 'title' | 'sectionPath'>, documentTitle: string): string {
  const path = [...chunk.sectionPath].reverse();
  for (const t of [chunk.title, ...path]) {
    const m = OSO.exec(t);
    if (m) return `OSO #${m[1]!.padStart(2, '0')}`;
  }
  for (const t of [chunk.title, ...path]) {
    const m = MITIGATION.exec(t);
    if (m) return `Mitigation ${m[1]!.replace(/\s/g, '')}`;
  }
  return documentTitle;
}

/** Candidate requirements from the selected passages, in passage rank order, grouped (groups in order of first appearance). */
export function draftFromPassages(
  query: string,
  passages: DraftPassage[],
  documents: RequirementDraft['documents'],
  now: () => Date = () => new Date(),
): RequirementDraft {
  const seen = new Set<string>();
  const flat: Omit<CandidateRequirement, 'id'>[] = [];
  for (const p of passages) {
    const c = p.chunk;
    const group = groupOf(c, p.documentTitle);
    // the heading printed at the top of the passage is not part of its first sentence
    const body = collapseWhitespace(c.text);
    const title = collapseWhitespace(c.title);
    for (const st of normativeStatements(body.startsWith(title) ? body.slice(title.length) : body)) {
      const key = st.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const section = c.sectionPath.length ? c.sectionPath.join(' › ') : c.title;
      flat.push({
        statement: st.text,
        modal: st.modal,
        group,
        rationale: `Printed as a "${st.modal}" statement in ${c.title} (${formatPages(c)}), passage ${p.rank} selected for “${query}”.`,
        source: { chunkId: c.id, document: p.documentTitle, edition: p.documentEdition, section, pages: formatPages(c) },
        verbatim: true,
        sourceVerbatim: p.sourceVerbatim,
      });
    }
  }
  const order = [...new Set(flat.map((r) => r.group))];
  const sorted = order.flatMap((g) => flat.filter((r) => r.group === g));
  return {
    query,
    mode: 'evidence-only',
    createdAt: now().toISOString(),
    documents,
    requirements: sorted.map((r, i) => ({ id: `REQ-${String(i + 1).padStart(3, '0')}`, ...r })),
    noEvidence: passages.length === 0,
  };
}

/**
 * The draft from the document agents' result: the top `perDocument` passages of each kept
 * document, in document rank order. `verbatimOf` tells whether a source prints the regulation's wording.
 */
export function draftFromAgents(
  result: Pick<AgentResult, 'query' | 'consulted'>,
  chunks: Chunk[],
  verbatimOf: (sourceId: string) => boolean,
  perDocument = 5,
  now: () => Date = () => new Date(),
): RequirementDraft {
  const passages: DraftPassage[] = [];
  for (const c of result.consulted.filter((x) => x.kept)) {
    for (const e of c.evidence.slice(0, perDocument)) {
      const chunk = chunks[e.row]!;
      passages.push({ chunk, documentTitle: c.title, documentEdition: c.edition, rank: passages.length + 1, sourceVerbatim: verbatimOf(chunk.docId) });
    }
  }
  return draftFromPassages(
    result.query,
    passages,
    result.consulted.map((c) => ({ id: c.id, title: c.title, edition: c.edition, reason: c.reason, kept: c.kept })),
    now,
  );
}

export function draftToMarkdown(d: RequirementDraft): string {
  const lines = [`# Candidate safety requirements${d.query ? `: ${d.query}` : ''}`, '', `Evidence-only draft (${d.createdAt}): every statement is quoted verbatim from the cited passage; no model was used. Decision support, not an approval.`, ''];
  lines.push('## Documents consulted', '');
  for (const doc of d.documents) lines.push(`- ${doc.title} (${doc.edition})${doc.kept ? '' : ' — dropped'}: ${doc.reason}`);
  lines.push('');
  if (d.noEvidence || !d.requirements.length) {
    lines.push(d.noEvidence ? 'No evidence: no passage passed the evidence gate.' : 'The selected passages contain no normative (shall / should / must / required) statement.');
    return `${lines.join('\n')}\n`;
  }
  for (const g of [...new Set(d.requirements.map((r) => r.group))]) {
    lines.push(`## ${g}`, '');
    for (const r of d.requirements.filter((x) => x.group === g)) {
      lines.push(`- **${r.id}** (${r.modal}) “${r.statement}”${r.sourceVerbatim ? '' : ' — from a restatement, not the regulation’s wording: check the official text'}`, `  - Source: ${r.source.document}, ${r.source.section}, ${r.source.pages} [${r.source.chunkId}] — ${r.source.edition}`, `  - Rationale: ${r.rationale}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

export const draftToJson = (d: RequirementDraft): string => `${JSON.stringify(d, null, 2)}\n`;

const CSV_COLUMNS = ['id', 'group', 'modal', 'statement', 'document', 'edition', 'section', 'pages', 'chunk_id', 'source_verbatim', 'rationale'] as const;

/** One CSV cell: RFC 4180 quoting and OWASP's rule against formula injection (the one escaping of every CSV writer, core/text/csv.ts). */
export const csvField = csvCell;

export function draftToCsv(d: RequirementDraft): string {
  const rows = d.requirements.map((r) =>
    csvRow([r.id, r.group, r.modal, r.statement, r.source.document, r.source.edition, r.source.section, r.source.pages, r.source.chunkId, String(r.sourceVerbatim), r.rationale]),
  );
  return `${[csvRow(CSV_COLUMNS), ...rows].join('\r\n')}\r\n`;
}
