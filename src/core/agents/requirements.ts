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
import { namedDocuments, type AgentResult, type ConsultedDocument } from './agents.js';
import {
  collectionOf,
  collectionOfIndex,
  currencyOf,
  DEFAULT_DRAFT_RANK_CONFIG,
  hazardTerms,
  lexiconOf,
  nonRequirementReason,
  objectiveOf,
  rankObjectives,
  readAcrossColumns,
  sentenceMatch,
  soraEdition,
  type Collection,
  type Currency,
  type DraftRankConfig,
  type RankedObjective,
} from './requirement-relevance.js';
import { contentTokens } from '../text/tokenize.js';
import { shortEdition } from '../text/edition.js';
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
  /** "OSO #05", "Mitigation M2", "Step #9" (from the printed headings), or the document's title when the passage is under none. */
  group: string;
  /** The group's heading as printed ("OSO #06 — C3 link characteristics … are appropriate for the UAS operation"), or the document's title. */
  groupTitle?: string;
  /** Current text, an earlier SORA edition printed verbatim, or a restatement (listed in that order). */
  currency?: Currency;
  /** (Optional: drafts recorded before issue 26 lack this and the two fields above.) Fused relevance to the description (reciprocal ranks: the passage's retrieval rank, its objective's rank, the sentence's own match); higher first. */
  relevance?: number;
  rationale: string;
  source: DraftSource;
  /** Evidence-only drafts are verbatim; a model draft would be checked by the grounding check. */
  verbatim: true;
  /** False when the source is a restatement (the curated set), not the regulation's own wording. */
  sourceVerbatim: boolean;
  /** True when the sentence was read across the columns of a table printed side by side: its words may come from neighbouring cells (check the printed page). */
  acrossColumns?: boolean;
}

export interface DraftDocument {
  id: string;
  title: string;
  edition: string;
  /** Why it was consulted, in plain words. */
  reason: string;
  kept: boolean;
  /** Candidate requirements listed from it. */
  contributed?: number;
}

export interface RequirementDraft {
  query: string;
  mode: 'evidence-only';
  createdAt: string;
  /** What was done, in plain words (the header of every rendering). */
  summary?: string;
  /** Documents consulted, with the reason each was consulted. */
  documents: DraftDocument[];
  /** Ranked by relevance to the description within each edition tier (current text first), grouped by objective. */
  requirements: CandidateRequirement[];
  /** Sentences with a modal verb left out because they are not requirements, with the reason. */
  excluded?: { statement: string; reason: string; chunkId: string }[];
  /** Set when nothing passed the evidence gate. */
  noEvidence: boolean;
}

export interface DraftPassage {
  chunk: Chunk;
  documentTitle: string;
  documentEdition: string;
  /** 1-based rank of the passage among the selected evidence (null: found only by the objective search). */
  rank: number | null;
  /** 1-based rank of its objective / mitigation in the search of the objectives' own text, when found that way. */
  objectiveRank?: number;
  /** Whether the source prints the regulation's own wording (the manifest's `verbatim`). */
  sourceVerbatim: boolean;
}

/** The SORA objective or mitigation a passage belongs to, from its printed title and section path, else the document. */
export function groupOf(chunk: Pick<Chunk, 'title' | 'sectionPath'>, documentTitle: string): string {
  return objectiveOf(chunk).key ?? documentTitle;
}

/** How the candidates are ranked: the hazard's weighted terms, the collection's idf, the latest SORA edition in the index. */
export interface DraftRanking {
  terms: ReadonlyMap<string, number>;
  collection: Collection;
  latestEdition: number | null;
  config?: DraftRankConfig;
}

const CURRENCY_ORDER: Currency[] = ['current', 'earlier-edition', 'restatement'];

/**
 * Candidate requirements from the selected passages: every sentence that passes the normative test
 * (`normativeStatements`, then `nonRequirementReason`), once, ranked by fused relevance (reciprocal
 * rank of the passage in the retrieval, of its objective in the objective search, and of the
 * sentence's own match with the description's words), the current text first, then an earlier
 * SORA edition, then restatements; within each, grouped by objective (groups by their best candidate).
 */
export function draftFromPassages(
  query: string,
  passages: DraftPassage[],
  documents: RequirementDraft['documents'],
  now: () => Date = () => new Date(),
  ranking?: DraftRanking,
): RequirementDraft {
  const cfg = ranking?.config ?? DEFAULT_DRAFT_RANK_CONFIG;
  const terms = ranking?.terms ?? new Map(contentTokens(query).map((t) => [t, 1] as const));
  const col = ranking?.collection ?? collectionOf(passages.map((p) => p.chunk));
  const latest = ranking ? ranking.latestEdition : Math.max(-1, ...passages.map((p) => soraEdition(p.documentEdition) ?? -1));
  const seen = new Set<string>();
  const excluded: NonNullable<RequirementDraft['excluded']> = [];
  const flat: (Omit<CandidateRequirement, 'id' | 'relevance'> & { match: number; passageRank: number | null; objectiveRank?: number; order: number })[] = [];
  for (const p of passages) {
    const c = p.chunk;
    const objective = objectiveOf(c);
    const group = objective.key ?? p.documentTitle;
    const groupTitle = objective.key ? objective.title : p.documentTitle;
    // the heading printed at the top of the passage is not part of its first sentence
    const body = collapseWhitespace(c.text);
    const title = collapseWhitespace(c.title);
    for (const st of normativeStatements(body.startsWith(title) ? body.slice(title.length) : body)) {
      const key = st.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const why = nonRequirementReason(st.text);
      if (why) {
        excluded.push({ statement: st.text, reason: why, chunkId: c.id });
        continue;
      }
      const section = c.sectionPath.length ? c.sectionPath.join(' › ') : c.title;
      const found =
        p.rank !== null ? `passage ${p.rank} the document agents selected` : `a passage of ${objective.key} found by searching the objectives' own text`;
      flat.push({
        statement: st.text,
        modal: st.modal,
        group,
        groupTitle,
        currency: currencyOf(p.documentEdition, p.sourceVerbatim, latest !== null && latest > 0 ? latest : null),
        rationale: `Printed as a "${st.modal}" statement in ${c.title} (${formatPages(c)}); from ${found} for “${query}”.`,
        source: { chunkId: c.id, document: p.documentTitle, edition: p.documentEdition, section, pages: formatPages(c) },
        verbatim: true,
        sourceVerbatim: p.sourceVerbatim,
        ...(readAcrossColumns(c.text, st.text) ? { acrossColumns: true } : {}),
        match: sentenceMatch(st.text, `${groupTitle} ${c.title}`, terms, col, cfg),
        passageRank: p.rank,
        ...(p.objectiveRank !== undefined ? { objectiveRank: p.objectiveRank } : {}),
        order: flat.length,
      });
    }
  }
  const lexRank = new Map(
    [...flat]
      .filter((r) => r.match > 0)
      .sort((a, b) => b.match - a.match || a.order - b.order)
      .map((r, i) => [r.order, i + 1] as const),
  );
  const rr = (rank: number | null | undefined) => (rank ? 1 / (cfg.k + rank) : 0);
  const scored = flat.map((r) => ({ ...r, relevance: rr(r.passageRank) + rr(r.objectiveRank) + rr(lexRank.get(r.order)) }));
  const byScore = (a: (typeof scored)[number], b: (typeof scored)[number]) => b.relevance - a.relevance || a.order - b.order;
  const sorted: typeof scored = [];
  for (const tier of CURRENCY_ORDER) {
    const inTier = scored.filter((r) => r.currency === tier).sort(byScore);
    // within a group, the sentences read cleanly before those read across table columns (labelled), each by relevance
    for (const g of [...new Set(inTier.map((r) => r.group))])
      sorted.push(...inTier.filter((r) => r.group === g).sort((a, b) => Number(a.acrossColumns ?? false) - Number(b.acrossColumns ?? false)));
  }
  const requirements = sorted.map(({ match: _m, passageRank: _p, objectiveRank: _o, order: _r, ...r }, i) => ({
    id: `REQ-${String(i + 1).padStart(3, '0')}`,
    ...r,
    relevance: Number(r.relevance.toFixed(5)),
  }));
  // the documents that gave candidates first (in their consulted order), then those that gave none
  const docs = documents
    .map((d) => ({
      ...d,
      contributed: requirements.filter((r) => passages.some((p) => p.chunk.id === r.source.chunkId && (p.chunk.documentId ?? p.chunk.docId) === d.id)).length,
    }))
    .sort((a, b) => Number(!a.contributed) - Number(!b.contributed));
  return {
    query,
    mode: 'evidence-only',
    createdAt: now().toISOString(),
    summary: draftSummary(requirements, docs, excluded.length),
    documents: docs,
    requirements,
    excluded,
    noEvidence: passages.length === 0,
  };
}

const TIER_HEADINGS: Record<Currency, string> = {
  current: 'Current text',
  'earlier-edition': 'Earlier SORA edition (superseded wording, printed verbatim)',
  restatement: 'Restatements of SORA 2.0 (not the regulation’s wording: check the official text)',
};

/** A tier's heading, naming the SORA edition its candidates come from. */
export function tierHeading(tier: Currency, editions: readonly string[]): string {
  const eras = [...new Set(editions.map(soraEdition).filter((e): e is number => e !== null))].sort();
  const named = eras.length ? ` (SORA ${eras.map((e) => e.toFixed(1)).join(', ')})` : '';
  return tier === 'restatement' ? TIER_HEADINGS.restatement : `${TIER_HEADINGS[tier]}${named}`;
}

function draftSummary(reqs: readonly CandidateRequirement[], docs: readonly DraftDocument[], excluded: number): string {
  const n = reqs.length;
  const from = docs.filter((d) => (d.contributed ?? 0) > 0).length;
  const tiers = CURRENCY_ORDER.filter((t) => reqs.some((r) => r.currency === t));
  const order =
    tiers.length > 1
      ? ` The current text comes first; ${tiers
          .slice(1)
          .map((t) => (t === 'restatement' ? 'restatements of SORA 2.0' : 'an earlier SORA edition'))
          .join(' and ')} after it, labelled.`
      : '';
  const left = excluded
    ? ` ${excluded} sentence${excluded === 1 ? '' : 's'} with “shall / should / must” ${excluded === 1 ? 'was' : 'were'} left out because ${excluded === 1 ? 'it is' : 'they are'} not requirements (questions, notes to the reader, descriptions of the text).`
    : '';
  return `${n} candidate requirement${n === 1 ? '' : 's'} from ${from} of the ${docs.length} documents consulted, most relevant to your description first, grouped by the safety objective (OSO), mitigation or SORA step they are printed under.${order}${left}`;
}

/** Plain-language reason a consulted document was read, from what the retrieval found in it. */
function plainReason(
  c: Pick<ConsultedDocument, 'id' | 'title' | 'kept'>,
  query: string,
  flatTop: readonly string[],
  objectives: readonly RankedObjective[],
): string {
  const parts: string[] = [];
  if (namedDocuments(query, [c.title]).size) parts.push('your description names it');
  if (flatTop[0] === c.id) parts.push('it holds the passage that best matches your description');
  const owned = flatTop.filter((d) => d === c.id).length;
  if (owned > 1) parts.push(`${owned} of the ${flatTop.length} passages that best match your description are in it`);
  else if (owned === 1 && flatTop[0] !== c.id) parts.push(`one of the ${flatTop.length} passages that best match your description is in it`);
  const mine = objectives.filter((o) => o.documentId === c.id);
  if (mine.length)
    parts.push(`its ${mine.map((o) => o.key).join(', ')} ${mine.length === 1 ? 'is' : 'are'} about what you describe (searched by the objectives’ own text)`);
  const why = parts.length ? parts.join('; ') : 'it is among the documents closest to your description';
  return c.kept ? why : `${why}; left out: none of its passages matched closely enough`;
}

/**
 * The draft from the document agents' result: the top `perDocument` passages of each kept
 * document, plus the passages of the SORA objectives and mitigations whose own text best matches
 * the description (searched in the whole index, within the question's filters), ranked and grouped
 * by draftFromPassages. `verbatimOf` tells whether a source prints the regulation's wording.
 */
export function draftFromAgents(
  result: Pick<AgentResult, 'query' | 'consulted'> & Partial<Pick<AgentResult, 'flat' | 'evidence'>>,
  chunks: Chunk[],
  verbatimOf: (sourceId: string) => boolean,
  perDocument = 5,
  now: () => Date = () => new Date(),
  config: DraftRankConfig = DEFAULT_DRAFT_RANK_CONFIG,
): RequirementDraft {
  const passages: DraftPassage[] = [];
  const kept = result.consulted.filter((x) => x.kept);
  const titleOf = new Map(result.consulted.map((c) => [c.id, c] as const));
  // the kept documents' passages, in the agents' merged order when given (else document by document)
  const chosen = new Set(kept.flatMap((c) => c.evidence.slice(0, perDocument).map((e) => e.row)));
  const order = [
    ...(result.evidence ?? []).map((e) => e.row).filter((r) => chosen.has(r)),
    ...kept.flatMap((c) => c.evidence.slice(0, perDocument).map((e) => e.row)),
  ];
  const docOf = (c: Chunk) => c.documentId ?? c.docId;
  for (const row of new Set(order)) {
    const chunk = chunks[row]!;
    const d = titleOf.get(docOf(chunk))!;
    passages.push({ chunk, documentTitle: d.title, documentEdition: d.edition, rank: passages.length + 1, sourceVerbatim: verbatimOf(chunk.docId) });
  }
  // the hazard's terms: its words, the documents' abbreviations for them, the best passages' printed titles
  const feedback = passages.slice(0, config.feedbackPassages).map((p) => p.chunk.title);
  const terms = hazardTerms(result.query, feedback, lexiconOf(chunks), config);
  const collection = collectionOfIndex(chunks);
  const editions = chunks.map((c) => soraEdition(c.edition)).filter((e): e is number => e !== null);
  const latestEdition = editions.length ? Math.max(...editions) : null;
  // the objectives and mitigations whose own text matches, within the question's filters: the top few per tier
  const f = result.flat?.filters ?? {};
  const allowed = (c: Chunk) =>
    (!f.docIds?.length || f.docIds.includes(c.docId)) && (result.flat?.broadened || !f.jurisdictions?.length || f.jurisdictions.includes(c.jurisdiction));
  const ranked = rankObjectives(chunks, allowed, terms, collection, config);
  const tierOf = (o: RankedObjective) => {
    const c = chunks[o.rows[0]!]!;
    return currencyOf(c.edition, verbatimOf(c.docId), latestEdition);
  };
  // the current text's objectives only: restatements and earlier editions come in through the agents' passages, after it
  const objectives = ranked.filter((o) => tierOf(o) === 'current').slice(0, config.objectives);
  const have = new Map(passages.map((p) => [p.chunk.id, p] as const));
  const extraDocs = new Map<string, DraftDocument>();
  for (const o of objectives) {
    const tierRank = objectives.filter((x) => tierOf(x) === tierOf(o)).indexOf(o) + 1;
    for (const row of o.rows) {
      const chunk = chunks[row]!;
      const known = have.get(chunk.id);
      if (known) {
        known.objectiveRank = tierRank;
        continue;
      }
      const consulted = titleOf.get(o.documentId);
      const title = consulted?.title ?? documentTitleOf(chunk);
      const edition = consulted?.edition ?? chunk.edition;
      if (!consulted && !extraDocs.has(o.documentId)) extraDocs.set(o.documentId, { id: o.documentId, title, edition, reason: '', kept: true });
      const p: DraftPassage = {
        chunk,
        documentTitle: title,
        documentEdition: edition,
        rank: null,
        objectiveRank: tierRank,
        sourceVerbatim: verbatimOf(chunk.docId),
      };
      passages.push(p);
      have.set(chunk.id, p);
    }
  }
  const flatTop = (result.flat?.ranked ?? []).slice(0, 20).map((c) => docOf(chunks[c.row]!));
  const documents: DraftDocument[] = [
    ...result.consulted.map((c) => ({ id: c.id, title: c.title, edition: c.edition, reason: plainReason(c, result.query, flatTop, objectives), kept: c.kept })),
    ...[...extraDocs.values()].map((d) => ({
      ...d,
      reason: `its ${objectives
        .filter((o) => o.documentId === d.id)
        .map((o) => o.key)
        .join(
          ', ',
        )} ${objectives.filter((o) => o.documentId === d.id).length === 1 ? 'is' : 'are'} about what you describe (searched by the objectives’ own text)`,
    })),
  ];
  return draftFromPassages(result.query, passages, documents, now, { terms, collection, latestEdition, config });
}

/** A document's title when the agents did not consult it: the outermost printed heading below the source's root, else the source. */
function documentTitleOf(c: Chunk): string {
  return c.sectionPath.length > 1 ? collapseWhitespace(c.sectionPath[1]!) : collapseWhitespace(c.sectionPath[0] ?? c.docId);
}

export function draftToMarkdown(d: RequirementDraft): string {
  const lines = [
    `# Candidate safety requirements${d.query ? `: ${d.query}` : ''}`,
    '',
    `Evidence-only draft (${d.createdAt}): every statement is quoted verbatim from the cited passage; no model was used. Decision support, not an approval.`,
    '',
  ];
  if (d.summary) lines.push(d.summary, '');
  lines.push('## Documents consulted', '');
  for (const doc of d.documents) {
    const gave =
      doc.contributed === undefined
        ? ''
        : doc.contributed
          ? ` It gave ${doc.contributed} candidate${doc.contributed === 1 ? '' : 's'}.`
          : doc.kept
            ? ' It gave no candidate: its matching passages state no requirement.'
            : '';
    lines.push(`- ${doc.title} (${shortEdition(doc.edition)})${doc.kept ? '' : ' — not used'}: ${doc.reason}.${gave}`);
  }
  lines.push('');
  if (d.noEvidence || !d.requirements.length) {
    lines.push(
      d.noEvidence
        ? 'No evidence: no passage passed the evidence gate.'
        : 'The selected passages contain no normative (shall / should / must / required) statement.',
    );
    return `${lines.join('\n')}\n`;
  }
  for (const tier of draftTiers(d)) {
    lines.push(`## ${tier.heading}`, '');
    for (const g of tier.groups) {
      lines.push(`### ${g.title}`, '');
      for (const r of g.requirements) {
        lines.push(
          `- **${r.id}** (${r.modal}) “${r.statement}”${r.sourceVerbatim ? '' : ' — from a restatement, not the regulation’s wording: check the official text'}${r.acrossColumns ? ` — ${ACROSS_COLUMNS_NOTE}` : ''}`,
          `  - Source: ${r.source.document}, ${r.source.section}, ${r.source.pages} [${r.source.chunkId}] — ${r.source.edition}`,
          `  - Rationale: ${r.rationale}`,
        );
      }
      lines.push('');
    }
  }
  if (d.excluded?.length) {
    lines.push('## Left out: sentences with “shall / should / must” that are not requirements', '');
    for (const e of d.excluded) lines.push(`- “${e.statement}” — ${e.reason} [${e.chunkId}]`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

export const ACROSS_COLUMNS_NOTE = 'read across the columns of a printed table: its words may come from neighbouring cells; check the printed page';

export interface DraftTier {
  tier: Currency;
  heading: string;
  groups: { group: string; title: string; requirements: CandidateRequirement[] }[];
}

/** The draft's candidates as displayed: edition tiers (current text first), each with its groups in ranked order. */
export function draftTiers(d: Pick<RequirementDraft, 'requirements'>): DraftTier[] {
  const out: DraftTier[] = [];
  for (const tier of CURRENCY_ORDER) {
    const reqs = d.requirements.filter((r) => (r.currency ?? 'current') === tier);
    if (!reqs.length) continue;
    const groups = [...new Set(reqs.map((r) => r.group))].map((g) => {
      const rs = reqs.filter((r) => r.group === g);
      const t = rs[0]!.groupTitle ?? g;
      // the printed heading, with the objective's key in front when the heading does not print it
      return { group: g, title: t.includes(g.replace(/^Mitigation /, '')) || t === g ? t : `${g} — ${t}`, requirements: rs };
    });
    out.push({
      tier,
      heading: tierHeading(
        tier,
        reqs.map((r) => r.source.edition),
      ),
      groups,
    });
  }
  return out;
}

export const draftToJson = (d: RequirementDraft): string => `${JSON.stringify(d, null, 2)}\n`;

/** The columns a requirements tool imports (kept stable: the edition tier and the group's heading are in the JSON export; the rows are in ranked order). */
const CSV_COLUMNS = ['id', 'group', 'modal', 'statement', 'document', 'edition', 'section', 'pages', 'chunk_id', 'source_verbatim', 'rationale'] as const;

/** One CSV cell: RFC 4180 quoting and OWASP's rule against formula injection (the one escaping of every CSV writer, core/text/csv.ts). */
export const csvField = csvCell;

export function draftToCsv(d: RequirementDraft): string {
  const rows = d.requirements.map((r) =>
    csvRow([
      r.id,
      r.group,
      r.modal,
      r.statement,
      r.source.document,
      r.source.edition,
      r.source.section,
      r.source.pages,
      r.source.chunkId,
      String(r.sourceVerbatim),
      r.rationale,
    ]),
  );
  return `${[csvRow(CSV_COLUMNS), ...rows].join('\r\n')}\r\n`;
}
