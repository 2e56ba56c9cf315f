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
  descriptionShare,
  unreadableUnitReason,
  hazardTerms,
  lexiconOf,
  nonRequirementReason,
  objectiveOf,
  rankObjectives,
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
import { collapseWhitespace } from '../text/sentences.js';
import { csvCell, csvRow } from '../text/csv.js';
import { quotableUnits, segmentUnits, unitQuote, type GridLike, type UnitKind, type UnitSource } from '../text/units.js';
import { gridForChunk } from '../sora/tables/grid.js';

export type Modal = 'shall' | 'must' | 'should' | 'is required';

const NORMATIVE = /\b(shall|must|should|(?:is|are) required)\b/i;

export interface NormativeStatement {
  /** The unit as a reader quotes it (core/text/units.ts): one sentence, list item, table cell or footnote, never text spliced across table columns. */
  text: string;
  modal: Modal;
  /** Table cells: the row and column headers the cell sits under, as printed ("Criterion #1 (Technical design) · Medium"). */
  header?: string;
  /** The words as printed, when the reading differs (merged amendment mark-up read, a footnote number separated). */
  printed?: string;
  /** The printed text merges struck-through and inserted words here; `text` reads them as amended. */
  amendment?: 'read';
  /** The unit's kind (a sentence, list item, table cell or footnote). */
  kind: UnitKind;
  /** Offsets into the passage text of the lines the unit is printed on. */
  start: number;
  end: number;
}

/**
 * The quotable units of a passage that state an obligation or a recommendation: the passage is read
 * by THE segmentation (core/text/units.ts — sentences, list items, table cells under their row and
 * column headers, footnotes; the passage's own heading left out), so a table row is never read across
 * its columns; then each unit with a modal verb ("shall", "must", "should", "is / are required").
 */
export function normativeStatements(source: string | UnitSource, grid: GridLike | null = null): NormativeStatement[] {
  const out: NormativeStatement[] = [];
  for (const u of quotableUnits(segmentUnits(headingOnItsLine(typeof source === 'string' ? { text: source } : source), grid))) {
    const m = NORMATIVE.exec(u.text);
    if (!m) continue;
    const word = m[1]!.toLowerCase();
    out.push({
      text: u.text,
      modal: word.endsWith('required') ? 'is required' : (word as Modal),
      ...(u.header ? { header: u.header } : {}),
      ...(u.printed ? { printed: u.printed } : {}),
      ...(u.amendment ? { amendment: u.amendment } : {}),
      kind: u.kind,
      start: u.start,
      end: u.end,
    });
  }
  return out;
}

/**
 * The passage with its printed heading on a line of its own when the text runs on after it on the same
 * line ("GM1 Article 11 Definitions The following …"): the space after the heading becomes a line break,
 * so the heading is not read into the first statement (offsets into the text are unchanged).
 */
function headingOnItsLine(source: UnitSource): UnitSource {
  const title = collapseWhitespace(source.title ?? '');
  const lead = source.text.length - source.text.trimStart().length;
  if (!title || !source.text.startsWith(`${title} `, lead)) return source;
  const at = lead + title.length;
  const firstLineEnd = source.text.indexOf('\n', lead);
  if (firstLineEnd !== -1 && firstLineEnd <= at) return source;
  return { ...source, text: `${source.text.slice(0, at)}\n${source.text.slice(at + 1)}` };
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
  /** The unit as quoted (a sentence, list item or table cell; see `header` for a cell's headers). */
  statement: string;
  modal: Modal;
  /** A table cell's row and column headers, as printed. */
  header?: string;
  /** The words as printed, when the statement reads them otherwise (merged amendment mark-up, a footnote number). */
  printed?: string;
  /** The printed text merges struck-through and inserted words in this statement; it is read as amended. */
  amendment?: 'read';
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
  /** Drafts recorded before issue 35 (statements read as units since): the sentence was read across the columns of a printed table. Never set now. */
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
  /** Restatement candidates left out because they do not state what the description names (DraftRankConfig.restatementShare). */
  unrelated?: number;
  /**
   * Passages with requirements printed in a table whose columns could not be read apart (unreadableUnitReason):
   * not listed as candidates (their words may come from neighbouring cells), but named so that they are read in the table.
   */
  inTables?: { chunkId: string; title: string; pages: string; count: number }[];
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

/**
 * The group a passage's candidates are listed under: the SORA objective, mitigation or step printed
 * above it; else its document — or, for a restatement (one curated document restating many
 * sections), the passage's own heading, so that its candidates are grouped as the regulation's are.
 */
export function groupOf(chunk: Pick<Chunk, 'title' | 'sectionPath'>, documentTitle: string, restatement = false): string {
  return groupFor(chunk, documentTitle, restatement).key;
}

function groupFor(chunk: Pick<Chunk, 'title' | 'sectionPath'>, documentTitle: string, restatement: boolean): { key: string; title: string } {
  const objective = objectiveOf(chunk);
  if (objective.key) return { key: objective.key, title: objective.title };
  const own = collapseWhitespace(chunk.title);
  return restatement && own ? { key: own, title: own } : { key: documentTitle, title: documentTitle };
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
 * Candidate requirements from the selected passages: every quotable unit that passes the normative
 * test (`normativeStatements`, then `nonRequirementReason`), once, ranked by fused relevance
 * (reciprocal rank of the passage in the retrieval, of its objective in the objective search, and of
 * the unit's own match with the description's words), the current text first, then an earlier SORA
 * edition, then restatements; within each, grouped by objective (groups by the same fusion over the group's
 * passages and candidates).
 * A restatement's candidate is listed only when it states what the description names about as fully as
 * the best of them does (the share of the description's weight it states, at least `restatementShare`
 * of the best one's), or its objective was found by the objective search: the curated passages are
 * long lists of conditions, most of them about something else.
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
  const inTables: NonNullable<RequirementDraft['inTables']> = [];
  const groupEvidence = new Map<string, { passageRank: number | null; objectiveRank: number | null }>();
  const hidden: { tier: Currency; group: string; match: number }[] = [];
  type Flat = Omit<CandidateRequirement, 'id' | 'relevance'> & {
    match: number;
    share: number;
    passageRank: number | null;
    objectiveRank?: number;
    order: number;
  };
  const found: Flat[] = [];
  for (const p of passages) {
    const c = p.chunk;
    const currency = currencyOf(p.documentEdition, p.sourceVerbatim, latest !== null && latest > 0 ? latest : null);
    const { key: group, title: groupTitle } = groupFor(c, p.documentTitle, currency === 'restatement');
    // what the retrieval and the objective search say of the group, whether or not this passage gives a candidate
    const ge = groupEvidence.get(`${currency}\u0000${group}`) ?? { passageRank: null, objectiveRank: null };
    if (p.rank !== null && (ge.passageRank === null || p.rank < ge.passageRank)) ge.passageRank = p.rank;
    if (p.objectiveRank !== undefined && (ge.objectiveRank === null || p.objectiveRank < ge.objectiveRank)) ge.objectiveRank = p.objectiveRank;
    groupEvidence.set(`${currency}\u0000${group}`, ge);
    const objective = objectiveOf(c);
    // the passage's units (its printed heading is a unit of its own, not part of the first sentence)
    for (const st of normativeStatements(c, gridForChunk(c))) {
      const quoted = unitQuote(st);
      const key = quoted.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const why = nonRequirementReason(st.text);
      if (why) {
        excluded.push({ statement: quoted, reason: why, chunkId: c.id });
        continue;
      }
      if (unreadableUnitReason(st, c.text)) {
        // not a candidate, but what it says still tells how much its group is about the description
        hidden.push({ tier: currency, group, match: sentenceMatch(quoted, `${groupTitle} ${c.title}`, terms, col, cfg) });
        const at = inTables.find((x) => x.chunkId === c.id);
        if (at) at.count++;
        else inTables.push({ chunkId: c.id, title: c.title, pages: formatPages(c), count: 1 });
        continue;
      }
      const section = c.sectionPath.length ? c.sectionPath.join(' › ') : c.title;
      const via =
        p.rank !== null ? `passage ${p.rank} the document agents selected` : `a passage of ${objective.key} found by searching the objectives' own text`;
      found.push({
        statement: st.text,
        modal: st.modal,
        ...(st.header ? { header: st.header } : {}),
        ...(st.printed ? { printed: st.printed } : {}),
        ...(st.amendment ? { amendment: st.amendment } : {}),
        group,
        groupTitle,
        currency,
        rationale: `Printed as a "${st.modal}" statement in ${c.title} (${formatPages(c)}); from ${via} for “${query}”.`,
        source: { chunkId: c.id, document: p.documentTitle, edition: p.documentEdition, section, pages: formatPages(c) },
        verbatim: true,
        sourceVerbatim: p.sourceVerbatim,
        match: sentenceMatch(quoted, `${groupTitle} ${c.title}`, terms, col, cfg),
        share: descriptionShare(quoted, query, terms, col),
        passageRank: p.rank,
        ...(p.objectiveRank !== undefined ? { objectiveRank: p.objectiveRank } : {}),
        order: found.length,
      });
    }
  }
  // a restatement's candidate (not under an objective the objective search found) states what the description names,
  // as much as its best one does, or it is left out (counted)
  const loose = (r: Flat) => r.currency === 'restatement' && r.objectiveRank === undefined;
  const best = Math.max(0, ...found.filter(loose).map((r) => r.share));
  const flat = found.filter((r) => !loose(r) || (r.share > 0 && r.share >= cfg.restatementShare * best));
  const unrelated = found.length - flat.length;
  // the own-match ranks of the candidates, and of the statements read in the table (keyed -1, -2, …: they rank groups only)
  const pool = [...flat.map((r) => ({ key: r.order, match: r.match })), ...hidden.map((h, i) => ({ key: -(i + 1), match: h.match }))];
  const lexRank = new Map(
    pool
      .filter((r) => r.match > 0)
      .sort((a, b) => b.match - a.match || Math.abs(a.key) - Math.abs(b.key))
      .map((r, i) => [r.key, i + 1] as const),
  );
  const rr = (rank: number | null | undefined) => (rank ? 1 / (cfg.k + rank) : 0);
  const scored = flat.map((r) => ({ ...r, relevance: rr(r.passageRank) + rr(r.objectiveRank) + rr(lexRank.get(r.order)) }));
  const byScore = (a: (typeof scored)[number], b: (typeof scored)[number]) => b.relevance - a.relevance || a.order - b.order;
  const sorted: typeof scored = [];
  for (const tier of CURRENCY_ORDER) {
    const inTier = scored.filter((r) => r.currency === tier).sort(byScore);
    // groups by the same fusion over the group: its best passage in the retrieval, its objective's rank in the objective
    // search and its best statement's own match (a passage or a statement read in the table counts too); each group's
    // candidates by relevance
    const groupScore = (g: string): number => {
      const ge = groupEvidence.get(`${tier}\u0000${g}`);
      const lex = Math.min(
        ...inTier.filter((r) => r.group === g).map((r) => lexRank.get(r.order) ?? Infinity),
        ...hidden.flatMap((h, i) => (h.tier === tier && h.group === g ? [lexRank.get(-(i + 1)) ?? Infinity] : [])),
      );
      return rr(ge?.passageRank) + rr(ge?.objectiveRank) + (Number.isFinite(lex) ? rr(lex) : 0);
    };
    const groups = [...new Set(inTier.map((r) => r.group))];
    const scores = new Map(groups.map((g) => [g, groupScore(g)] as const));
    groups.sort((a, b) => scores.get(b)! - scores.get(a)! || groups.indexOf(a) - groups.indexOf(b));
    for (const g of groups) sorted.push(...inTier.filter((r) => r.group === g));
  }
  const requirements = sorted.map(({ match: _m, share: _s, passageRank: _p, objectiveRank: _o, order: _r, ...r }, i) => ({
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
    summary: draftSummary(requirements, docs, excluded.length, unrelated, inTables),
    documents: docs,
    requirements,
    excluded,
    ...(unrelated ? { unrelated } : {}),
    ...(inTables.length ? { inTables } : {}),
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

function draftSummary(
  reqs: readonly CandidateRequirement[],
  docs: readonly DraftDocument[],
  excluded: number,
  unrelated: number,
  inTables: NonNullable<RequirementDraft['inTables']>,
): string {
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
  const off = unrelated
    ? ` ${unrelated} requirement${unrelated === 1 ? '' : 's'} of the restatements ${unrelated === 1 ? 'was' : 'were'} left out because ${unrelated === 1 ? 'it does' : 'they do'} not state what you describe.`
    : '';
  const tables = inTables.length
    ? ` ${inTables.length === 1 ? 'One passage prints' : `${inTables.length} passages print`} further requirements in a table whose columns could not be read apart: read ${inTables.length === 1 ? 'it' : 'them'} in the table (listed below).`
    : '';
  return `${n} candidate requirement${n === 1 ? '' : 's'} from ${from} of the ${docs.length} documents consulted, most relevant to your description first, grouped by the safety objective (OSO), mitigation, SORA step or section they are printed under.${order}${left}${off}${tables}`;
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
  // the current text's objectives; a restatement's too when the agents kept its document (its candidates are then grouped
  // and ranked as the current text's are); earlier editions come in through the agents' passages only
  const restating = passages.some((p) => currencyOf(p.documentEdition, p.sourceVerbatim, latestEdition) === 'restatement');
  const objectives = [
    ...ranked.filter((o) => tierOf(o) === 'current').slice(0, config.objectives),
    ...(restating ? ranked.filter((o) => tierOf(o) === 'restatement').slice(0, config.objectives) : []),
  ];
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
  if (d.noEvidence || (!d.requirements.length && !d.inTables?.length)) {
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
          `- **${r.id}** (${r.modal}) ${r.header ? `${r.header}: ` : ''}“${r.statement}”${r.sourceVerbatim ? '' : ' — from a restatement, not the regulation’s wording: check the official text'}${r.amendment ? ` — ${amendmentNote(r)}` : ''}`,
          `  - Source: ${r.source.document}, ${r.source.section}, ${r.source.pages} [${r.source.chunkId}] — ${r.source.edition}`,
          `  - Rationale: ${r.rationale}`,
        );
      }
      lines.push('');
    }
  }
  if (d.inTables?.length) {
    lines.push('## Requirements to read in the printed table', '');
    lines.push(
      'These passages print requirements in a table whose columns could not be read apart; they are not listed above (their words may come from neighbouring cells).',
      '',
    );
    for (const t of d.inTables)
      lines.push(`- ${t.title}, ${t.pages} [${t.chunkId}]: ${t.count} statement${t.count === 1 ? '' : 's'} with “shall / should / must”`);
    lines.push('');
  }
  if (d.excluded?.length) {
    lines.push('## Left out: sentences with “shall / should / must” that are not requirements', '');
    for (const e of d.excluded) lines.push(`- “${e.statement}” — ${e.reason} [${e.chunkId}]`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/** What a candidate read as amended says about its printed words. */
export const amendmentNote = (r: Pick<CandidateRequirement, 'printed'>): string =>
  `read as amended: the printed text merges struck-through and inserted words${r.printed ? ` (“${r.printed}”)` : ''}; the consolidated text is the reference`;

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
      // a table cell with the headers it sits under, as quoted
      unitQuote({ text: r.statement, ...(r.header ? { header: r.header } : {}) }),
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
