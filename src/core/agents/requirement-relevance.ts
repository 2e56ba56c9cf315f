/**
 * What makes a requirements draft readable: which printed sentences are requirements at all,
 * which SORA objective or mitigation a passage belongs to, and how relevant a sentence is to
 * the hazard. Everything is read from the documents' own text and structure (their modal verbs,
 * their headings, their glossary and abbreviations); nothing from evaluation questions.
 * Pure: no DOM, no Node built-ins.
 */
import type { Chunk } from '../model/chunk.js';
import { abbreviationLexicon, abbreviationsFromChunks } from '../retrieval/abbreviations.js';
import { collapseWhitespace } from '../text/sentences.js';
import { contentTokens } from '../text/tokenize.js';

/** Settings of the draft's ranking, each with where its value comes from. */
export interface DraftRankConfig {
  /** Reciprocal-rank constant of the fusion (RRF's k = 60, as the retrieval and the agents use). */
  k: number;
  /** BM25's k1 and b (Robertson's standard values, as the index's BM25 stage). */
  k1: number;
  b: number;
  /** SORA objectives / mitigations of the current text searched by their own text (as many as the documents the agents consult: 3). */
  objectives: number;
  /** Top passages of the agents whose printed titles lend the hazard the documents' own words (pseudo-relevance feedback), and their weight. */
  feedbackPassages: number;
  feedbackWeight: number;
  /** Weight of a term found in the passage's heading rather than in the sentence. */
  headingWeight: number;
  /**
   * A restatement's candidate (not under an objective found by the objective search) is listed only when
   * it states at least this share of what the best restatement candidate states of the description
   * (descriptionShare), as the quotes of an answer keep a unit at half the best one's probability
   * (QuotesConfig.relativeFloor 0.5): for "loss of command and control link" it keeps "in the event of a
   * loss of the command-and-control link, the UAS must …" and leaves out "the remote pilot must maintain
   * control of the UA" and the serial-number, remote-ID and night-light conditions printed beside it (the
   * curated PDRA passages, issue 35 item 3).
   */
  restatementShare: number;
}

export const DEFAULT_DRAFT_RANK_CONFIG: DraftRankConfig = {
  k: 60,
  k1: 1.2,
  b: 0.75,
  objectives: 3,
  feedbackPassages: 5,
  feedbackWeight: 0.5,
  headingWeight: 0.5,
  restatementShare: 0.5,
};

// ---------------------------------------------------------------------------------------------
// Is this sentence a requirement?

/**
 * Why a sentence that contains a modal verb is nonetheless not a requirement, or null when it is
 * one. The classes were read off the documents' own modal sentences (SORA 2.5, its annexes, the
 * curated SORA 2.0 set):
 * - a question ("Who must report?", the operations-manual template's headings);
 * - a sentence about the text itself, whose subject is the content / section / annex / note … and
 *   whose verb describes it ("This content describes … how operations must be conducted");
 * - the modal inside an embedded question or a relative clause ("determine whether they should",
 *   "requirements a UAS operation should comply with … which should result in"): the main clause
 *   states a fact, not an obligation;
 * - a note to the reader or a definition ("It should be noted that …", "should be understood as",
 *   "should be interpreted as");
 * - something stated as not required ("no evidence is required", "is not required");
 * - a permission ("the UAS designer should be allowed to experiment new solutions");
 * - an exhortation with nothing to check: a state of mind as the subject and no object or purpose
 *   ("sound judgement must be exercised by …", "caution should be used").
 */
export function nonRequirementReason(sentence: string): string | null {
  const s = collapseWhitespace(sentence);
  if (/\?\s*["'’”)]*$/.test(s)) return 'a question';
  if (
    /^(?:\(?[a-z0-9ivx]+\)\s*)?(?:this|the|these|that|a|an)\s+(?:present\s+)?(?:content|section|chapter|annex|appendix|document|paragraph|table|figure|note|step|guidance|material|text|part|item)s?\b[^.;:]{0,60}?\b(?:describes?|explains?|outlines?|summari[sz]es?|presents?|introduces?|addresses|covers?|provides?|gives?|focus(?:es)?|discusses|illustrates?|sets out)\b/i.test(
      s,
    )
  )
    return 'describes the text itself';
  // only when the sentence's first modal is the embedded one ("must identify whether it … and must include" is a requirement)
  const first = /\b(?:shall|must|should|(?:is|are) required)\b/i.exec(s);
  if (first && /\b(?:how|what|whether|why|which)\b[^,;:()]*$/i.test(s.slice(0, first.index)))
    return 'the modal is inside an embedded question or a relative clause';
  if (/\b(?:shall|must|should)\s+(?:also\s+)?be\s+(?:noted|understood|interpreted|read|recalled|remembered)\b/i.test(s))
    return 'a note to the reader or a definition';
  if (/\b(?:shall|must|should)\s+(?:also\s+)?be\s+(?:allowed|permitted|free)\s+to\b/i.test(s)) return 'a permission, not an obligation';
  if (/\b(?:is|are)\s+not\s+required\b|\bno\s+[\w\s-]{1,60}?\b(?:is|are)\s+required\b/i.test(s)) return 'says what is not required';
  if (/\b(?:judge?ment|care|caution|attention|common sense|vigilance)\s+(?:shall|must|should)\s+(?:always\s+)?be\s+\w+(?:\s+by\b[^.]*)?\.?\s*$/i.test(s))
    return 'an exhortation with nothing to check';
  return null;
}

/** Column headers of the SORA tables printed over their cells ("LEVEL of ASSURANCE", "Medium (SAIL IV)"). */
const HEADER_LEAK = /\b(?:LEVEL of (?:ASSURANCE|INTEGRITY)|Level of (?:assurance|integrity)|ASSURANCE|INTEGRITY)\b|\(SAIL [IVX]+(?:\s*(?:&|and)\s*[IVX]+)?\)/;

/**
 * Why a unit, as the segmentation read it (core/text/units.ts), cannot be quoted as printed, or null
 * when it can: where the printed columns of a table could not be told apart, a unit's words come from
 * its neighbours. The signs, read off the Annex E tables:
 * - a sentence or list item printed on lines that hold another column beside it (a gap of six or more
 *   spaces inside the line: the passage was not read as a table there);
 * - a lower-case word followed by "The" and a lower-case word: a sentence of the next column runs into it;
 * - the column headers printed above the cells are read into it ("LEVEL of ASSURANCE Medium (SAIL IV) The …");
 * - a row label's number stands alone inside it ("… achieved. #06 If the operation …");
 * - it starts, or a sentence in it goes on, with a lower-case word cut from a neighbouring cell
 *   ("required achieved.", "… 25 kg. penetration OR hazard) …");
 * - two modal verbs a few words apart: struck-through and inserted phrases merged by the amendment
 *   ("should request the applicant UAS operator should to use").
 */
export function unreadableUnitReason(unit: { text: string; kind?: string; start?: number; end?: number }, passageText?: string): string | null {
  const t = collapseWhitespace(unit.text);
  // a sentence runs on into another's capitalised start ("… inspection, design The competent authority should review …")
  if (/\b(?!(?:and|or)\b)\p{Ll}{3,} The \p{Ll}/u.test(t)) return 'words of a neighbouring column run into it';
  if (unit.kind !== 'cell') {
    if (passageText === undefined || unit.start === undefined || unit.end === undefined) return null;
    const lines = passageText.slice(unit.start, unit.end).split('\n');
    return lines.some((l) => /\S {6,}\S/.test(l.trim())) ? 'it is printed beside another column' : null;
  }
  if (HEADER_LEAK.test(t)) return 'the column headers are read into it';
  if (/(?:^|[\s.])#\d{1,2}\b(?!\/)/.test(t) && !/\b(?:Step|OSO|Criterion|principle)\s?#\d/i.test(t)) return 'a row label is read into it';
  const body = t.replace(/^\(?(?:[a-z]{1,2}|\d{1,2}|[ivxl]{1,6})[.)]\s+/, '');
  if (/^\p{Ll}/u.test(body)) return 'it starts with words cut from a neighbouring cell';
  if (/(?<!\b(?:e\.g|i\.e|etc|No|cf|vs|approx))\.\s+\p{Ll}/u.test(t)) return 'words of a neighbouring cell run into it';
  if (/\b(?:shall|must|should)\b(?:\s+[^\s.;:,]+){0,6}\s+(?:shall|must|should)\b/i.test(t)) return 'struck-through and inserted phrases are merged in it';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Which objective or mitigation a passage belongs to (the documents' structure)

export interface Objective {
  /** "OSO #06", "Mitigation M1(A)", "Step #9", or null when the passage is under none of them. */
  key: string | null;
  /** The heading as printed ("OSO #06 — C3 link characteristics (e.g. performance, spectrum use) are appropriate for the UAS operation"). */
  title: string;
}

const OSO = /\bOSO\s?#\s?(\d+)/;
const MITIGATION = /\b(M1\s?\([ABC]\)|M1|M2|M3)(?![\w(])/i;
const STEP = /\bStep\s?#\s?(\d+)/;

/**
 * The SORA objective or mitigation a passage is printed under, from its title and section path
 * (outermost first): an OSO heading, a mitigation heading (M1(A), M1(B), M1(C), M2, M3), else the
 * SORA step ("Step #9") whose section holds it.
 */
export function objectiveOf(chunk: Pick<Chunk, 'title' | 'sectionPath'>): Objective {
  // outermost heading first: the objective's own heading ("B.5 M2 Effects of UA impact dynamics are reduced"), not a table caption inside it
  const heads = [...chunk.sectionPath, chunk.title].map(collapseWhitespace);
  for (const t of heads) {
    const m = OSO.exec(t);
    if (m) return { key: `OSO #${m[1]!.padStart(2, '0')}`, title: t };
  }
  for (const t of heads) {
    const m = MITIGATION.exec(t);
    if (m) return { key: `Mitigation ${m[1]!.replace(/\s/g, '').toUpperCase()}`, title: t };
  }
  for (const t of heads) {
    const m = STEP.exec(t);
    if (m) return { key: `Step #${m[1]}`, title: t };
  }
  return { key: null, title: chunk.title };
}

// ---------------------------------------------------------------------------------------------
// Relevance to the hazard

/** Hazard terms with weights: its own content words (1), the long / short forms the documents print for them (1), words of the best passages' titles (feedback weight). */
export function hazardTerms(
  query: string,
  feedbackTitles: readonly string[],
  abbreviations: { expand(q: string): string[] },
  cfg: DraftRankConfig = DEFAULT_DRAFT_RANK_CONFIG,
): Map<string, number> {
  const terms = new Map<string, number>();
  const put = (t: string, w: number) => terms.set(t, Math.max(terms.get(t) ?? 0, w));
  for (const t of contentTokens(query)) put(t, 1);
  for (const e of abbreviations.expand(query)) for (const t of contentTokens(e)) put(t, 1);
  for (const title of feedbackTitles) for (const t of contentTokens(title.replace(/^[A-Z]?[\d.]+\s+/, ''))) put(t, cfg.feedbackWeight);
  return terms;
}

/** Document frequencies over the index's passages (title and text), for the terms' idf. */
export interface Collection {
  n: number;
  df: Map<string, number>;
  idf(term: string): number;
}

export function collectionOf(chunks: readonly Pick<Chunk, 'title' | 'text'>[]): Collection {
  const df = new Map<string, number>();
  for (const c of chunks) for (const t of new Set(contentTokens(`${c.title} ${c.text}`))) df.set(t, (df.get(t) ?? 0) + 1);
  const n = Math.max(1, chunks.length);
  // BM25's idf in its always-positive form (Lucene's): log(1 + (n − df + 0.5) / (df + 0.5)); a word in every passage weighs little, never less than nothing
  return { n, df, idf: (t) => Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)) };
}

/** BM25 of a bag of tokens for weighted terms. */
export function bm25(
  tokens: readonly string[],
  terms: ReadonlyMap<string, number>,
  col: Collection,
  avgLen: number,
  cfg: Pick<DraftRankConfig, 'k1' | 'b'> = DEFAULT_DRAFT_RANK_CONFIG,
): number {
  const tf = new Map<string, number>();
  for (const t of tokens) if (terms.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  let s = 0;
  for (const [t, f] of tf) s += terms.get(t)! * col.idf(t) * ((f * (cfg.k1 + 1)) / (f + cfg.k1 * (1 - cfg.b + (cfg.b * tokens.length) / Math.max(1, avgLen))));
  return s;
}

/** How much of the hazard a sentence states: Σ weight × idf of the hazard terms in the sentence, half for those only in its heading. */
export function sentenceMatch(
  sentence: string,
  heading: string,
  terms: ReadonlyMap<string, number>,
  col: Collection,
  cfg: Pick<DraftRankConfig, 'headingWeight'> = DEFAULT_DRAFT_RANK_CONFIG,
): number {
  const inSentence = new Set(contentTokens(sentence));
  const inHeading = new Set(contentTokens(heading));
  let s = 0;
  for (const [t, w] of terms) {
    if (inSentence.has(t)) s += w * col.idf(t);
    else if (inHeading.has(t)) s += cfg.headingWeight * w * col.idf(t);
  }
  return s;
}

/**
 * The share of the description's own weight (idf of its content words, and of the long / short forms
 * the documents print for them: the terms of weight 1) that a sentence states, between 0 and 1.
 */
export function descriptionShare(sentence: string, description: string, terms: ReadonlyMap<string, number>, col: Collection): number {
  const own = [...new Set(contentTokens(description))];
  const total = own.reduce((a, t) => a + col.idf(t), 0);
  if (total <= 0) return 1;
  const inSentence = new Set(contentTokens(sentence));
  let s = 0;
  for (const [t, w] of terms) if (w >= 1 && inSentence.has(t)) s += col.idf(t);
  return Math.min(1, s / total);
}

export interface RankedObjective {
  /** The logical document and objective key ("…/annex-e", "OSO #06"). */
  documentId: string;
  key: string;
  title: string;
  /** Rows of its passages, in index order. */
  rows: number[];
  score: number;
}

/**
 * The objectives and mitigations of the allowed passages ranked for the hazard terms by their best
 * passage (MaxP: BM25 of each passage, heading and text, the objective scored by its best one), so
 * that a long objective printed over many table parts is not penalised for its length.
 */
export function rankObjectives(
  chunks: readonly Chunk[],
  allowed: (c: Chunk) => boolean,
  terms: ReadonlyMap<string, number>,
  col: Collection,
  cfg: DraftRankConfig = DEFAULT_DRAFT_RANK_CONFIG,
): RankedObjective[] {
  const units = new Map<string, RankedObjective>();
  const bags: { id: string; tokens: string[] }[] = [];
  chunks.forEach((c, row) => {
    if (!allowed(c)) return;
    const o = objectiveOf(c);
    if (!o.key || o.key.startsWith('Step')) return;
    const documentId = c.documentId ?? c.docId;
    const id = `${documentId}\u0000${o.key}`;
    const u = units.get(id) ?? { documentId, key: o.key, title: o.title, rows: [], score: 0 };
    u.rows.push(row);
    units.set(id, u);
    bags.push({ id, tokens: contentTokens(`${o.title} ${c.title} ${c.text}`) });
  });
  const avg = bags.reduce((a, b) => a + b.tokens.length, 0) / Math.max(1, bags.length);
  for (const b of bags) {
    const u = units.get(b.id)!;
    u.score = Math.max(u.score, bm25(b.tokens, terms, col, avg, cfg));
  }
  return [...units.values()]
    .filter((u) => u.score > 0)
    .sort((a, b) => b.score - a.score || a.documentId.localeCompare(b.documentId) || a.key.localeCompare(b.key));
}

/** Lexicon of the documents' own abbreviations (cached per chunk array: read once per index). */
const lexicons = new WeakMap<readonly Chunk[], { expand(q: string): string[] }>();
const collections = new WeakMap<readonly Chunk[], Collection>();

export function lexiconOf(chunks: readonly Chunk[]): { expand(q: string): string[] } {
  let l = lexicons.get(chunks);
  if (!l) lexicons.set(chunks, (l = abbreviationLexicon(abbreviationsFromChunks(chunks))));
  return l;
}

export function collectionOfIndex(chunks: readonly Chunk[]): Collection {
  let c = collections.get(chunks);
  if (!c) collections.set(chunks, (c = collectionOf(chunks)));
  return c;
}

// ---------------------------------------------------------------------------------------------
// Editions

export type Currency = 'current' | 'earlier-edition' | 'restatement';

/** The SORA edition an edition string names ("SORA 2.5, Edition …" → 2.5; "SORA V2.0" → 2.0; "SORA 2.0-era" → 2.0), or null. */
export function soraEdition(edition: string): number | null {
  const m = /\bSORA\s*V?(\d+\.\d+)/i.exec(edition);
  return m ? Number(m[1]) : null;
}

/** Current text, an earlier SORA edition printed verbatim, or a restatement (not the regulation's wording). */
export function currencyOf(edition: string, sourceVerbatim: boolean, latest: number | null): Currency {
  if (!sourceVerbatim) return 'restatement';
  const e = soraEdition(edition);
  return e !== null && latest !== null && e < latest ? 'earlier-edition' : 'current';
}

/**
 * Whether a sentence was read across the columns of a table printed side by side: in the
 * passage's text (layout kept) its words are separated by column gaps (three or more spaces
 * inside a line, not after an enumerator), so its words may come from neighbouring cells.
 */
export function readAcrossColumns(rawText: string, sentence: string): boolean {
  const words = sentence.split(/\s+/).filter(Boolean);
  if (words.length < 2) return false;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const m = new RegExp(escaped.join('\\s+')).exec(rawText);
  // a gap after an enumerator ("(a)    For", "1.   The") is indentation, not a column gap
  return m ? /[^\s).:—–•][ \t]{3,}\S/.test(m[0]) : false;
}
