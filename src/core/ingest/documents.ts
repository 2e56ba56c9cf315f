/**
 * Documents as units (the agent-based RAG paper's "document agents"): one source
 * file can hold many logical documents. The EASA AMC & GM file holds the SORA main
 * body (AMC1 Article 11), each of its Annexes, AMC1 Article 12, the AMC & GM to
 * UAS.SPEC.030 and .040 ... This module derives the documents from the chunks'
 * own structure (the hierarchical ids and section paths the structure-aware
 * chunker built from the printed headings), gives each an id, title, edition,
 * jurisdiction and page range, and builds the summary index: a hierarchical,
 * extractive summary (section → document, no LLM) and a one- or two-line
 * description. Pure: used by the build (Node) and, for the user's own
 * documents, by the browser.
 */
import { SkyCiteError } from '../errors.js';
import type { Chunk } from '../model/chunk.js';
import { collapseWhitespace, splitSentences } from '../text/sentences.js';
import { contentTokens } from '../text/tokenize.js';

export interface DocumentSection {
  /** Section path as printed, outermost first (relative to the document root). */
  path: string[];
  /** Ids of the chunks of this section, in document order. */
  chunkIds: string[];
  /** Extractive summary: the section's most central sentences. */
  summary: string;
}

export interface DocumentUnit {
  /** Stable id, e.g. "easa-amc-gm-2019-947/art11/annex-e"; a single-document source uses its source id. */
  id: string;
  /** Source (file) id from the registry. */
  sourceId: string;
  title: string;
  edition: string;
  jurisdiction: string;
  language: string;
  pageStart: number | null;
  pageEnd: number | null;
  /** The printed headings of the entries the document is made of (AMC1 …, GM1 …), for audit. */
  entries: string[];
  chunkIds: string[];
  sections: DocumentSection[];
  /** Extractive summary of the whole document, from its sections' summaries. */
  summary: string;
  /** One or two lines: what it is, where, and its most central sentence. */
  description: string;
}

export interface SourceInfo {
  id: string;
  title: string;
  edition: string;
  jurisdiction: string;
}

export interface SummaryBudget {
  /** Characters of a section summary. */
  section: number;
  /** Characters of a document summary. */
  document: number;
  /** Characters of the description's extract. */
  description: number;
}

export const DEFAULT_SUMMARY_BUDGET: SummaryBudget = { section: 360, document: 720, description: 220 };

export class DocumentSplitError extends SkyCiteError {
  override name = 'DocumentSplitError';
  override readonly code = 'document-split';
}

/** Where a chunk sits: its document key, the depth of the document's root in the section path, and the entry it comes from. */
interface Placement {
  key: string;
  depth: number;
  entry: string | null;
  annex: string | null;
}

const ENTRY_PREFIX = /^(?:(?:amc|gm)\d+(?:bis)?-)+/;
/** "art11", "art12-2-a" → "art11", "art12"; "uas-spec-030-3-e" → "uas-spec-030". */
const PROVISION = /^(art\d+[a-z]?|uas-[a-z]+-\d+|[a-z]+)/;

/**
 * The document key of a chunk of a structure-chunked source: the entry slug (the
 * id's second segment) reduced to the provision it is AMC or GM to (all AMC and GM
 * to one provision make one document), and an Annex its own document.
 */
function placeStructured(chunk: Chunk): Placement {
  const seg = chunk.id.split('/');
  const entry = seg[1] ?? '';
  const annex = seg[2]?.startsWith('annex-') ? seg[2] : null;
  if (entry === 'front-matter' || entry === 'abbreviations') return { key: 'front-matter', depth: 0, entry, annex: null };
  const provision = PROVISION.exec(entry.replace(ENTRY_PREFIX, ''))?.[1] ?? entry;
  return annex ? { key: `${provision}/${annex}`, depth: 2, entry, annex } : { key: provision, depth: 1, entry, annex: null };
}

/** Is this source chunked by structure (ids carry the entry slugs)? */
const isStructured = (chunks: Chunk[]): boolean =>
  chunks.some((c) => c.kind === 'amc-gm-entry' || c.kind === 'oso' || c.kind === 'glossary' || c.kind === 'front-matter');

const PRINTED_EDITION = /\bEdition:\s*([A-Z][a-z]+ \d{4})/;
const PRINTED_SORA = /JARUS SORA V(\d+\.\d+)/;

const firstLine = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '') ?? '';

/** The identifier an entry heading prints: "Article 11", "UAS.SPEC.030", "Article 12". */
function provisionLabel(heading: string): string | null {
  const m = /(Article \d+[a-z]?|UAS\.[A-Z]+\.\d+)/.exec(heading);
  return m ? m[1]! : null;
}

/** The subject printed after the identifier: "AMC1 UAS.SPEC.030(2) Application … — EASA Form 208" → "Application … — EASA Form 208". */
function subjectOf(heading: string): string {
  return heading.replace(/^(?:(?:AMC|GM)\d+(?:bis)? )+(?:Article \d+[a-z]?|UAS\.[A-Z]+\.\d+)(?:\(\w+\))*\s*/, '').trim();
}

/** An all-capitals line printed under an annex heading ("INTEGRITY AND ASSURANCE LEVELS FOR THE OSOs"). */
function annexSubtitle(chunks: Chunk[], heading: string): string | null {
  const first = chunks[0];
  if (!first) return null;
  const lines = first.text
    .split('\n')
    .map((l) => collapseWhitespace(l))
    .filter((l) => l && l !== heading);
  const caps = lines.slice(0, 3).find((l) => l.length >= 6 && /[A-Z]{3}/.test(l) && !/[a-z]{3}/.test(l.replace(/\(OSOs\)|\bOSOs\b/g, '')));
  if (!caps) return null;
  // drop a table header printed on the same line ("GLOSSARY OF TERMS Term Acronym Definition")
  return caps.replace(/\s+(?:Term|Acronym|Definition)(?:\s|$).*$/, '').trim() || null;
}

interface Group {
  key: string;
  depth: number;
  chunks: Chunk[];
  entries: Map<string, Chunk[]>;
  annex: string | null;
}

/** Split one source's chunks (in document order) into its logical documents. */
export function splitSourceDocuments(chunks: Chunk[], source: SourceInfo, budget: SummaryBudget = DEFAULT_SUMMARY_BUDGET): DocumentUnit[] {
  if (!chunks.length) return [];
  for (const c of chunks) {
    if (c.docId !== source.id) throw new DocumentSplitError(`Chunk ${c.id} belongs to ${c.docId}, not to ${source.id}.`);
  }
  if (!isStructured(chunks)) {
    return [makeDocument(source.id, source, chunks, 0, [], source.title, source.edition, budget)];
  }
  const groups = new Map<string, Group>();
  for (const c of chunks) {
    const p = placeStructured(c);
    let g = groups.get(p.key);
    if (!g) {
      g = { key: p.key, depth: p.depth, chunks: [], entries: new Map(), annex: p.annex };
      groups.set(p.key, g);
    }
    g.chunks.push(c);
    if (p.entry) {
      const list = g.entries.get(p.entry) ?? [];
      list.push(c);
      g.entries.set(p.entry, list);
    }
  }
  // An entry that prints an edition of its own, different from its group's main entry
  // (AMC1bis Article 11, "Edition: December 2020", beside the SORA 2.5 main body), is a document of its own.
  for (const g of [...groups.values()]) {
    if (g.annex || g.entries.size < 2) continue;
    const main = largestEntry(g);
    const mainEdition = printedEdition(g.entries.get(main)!);
    for (const [entry, cs] of g.entries) {
      const ed = printedEdition(cs);
      if (entry === main || !ed || ed === mainEdition) continue;
      const own: Group = { key: entry, depth: 1, chunks: cs, entries: new Map([[entry, cs]]), annex: null };
      groups.set(`${g.key}|${entry}`, own);
      g.chunks = g.chunks.filter((c) => !cs.includes(c));
      g.entries.delete(entry);
    }
  }
  const editionOfKey = new Map<string, string | null>();
  for (const g of groups.values()) if (!g.annex) editionOfKey.set(g.key, printedEdition(g.chunks));
  const out: DocumentUnit[] = [];
  for (const g of groups.values()) {
    const headings = [...g.entries.values()].map((cs) => cs[0]!.sectionPath[0] ?? cs[0]!.title);
    let title: string;
    let printed: string | null;
    if (g.key === 'front-matter') {
      title = `${source.title}: cover, note to the reader and abbreviations`;
      printed = null;
    } else if (g.annex) {
      const annexHeading = g.chunks[0]!.sectionPath[1] ?? g.chunks[0]!.title;
      const sub = annexSubtitle(g.chunks, annexHeading);
      title = sub ? `${annexHeading} — ${sub}` : annexHeading;
      printed = editionOfKey.get(g.key.split('/')[0]!) ?? null;
    } else {
      const main = largestEntry(g);
      const mainHeading = g.entries.get(main)![0]!.sectionPath[0] ?? g.chunks[0]!.title;
      const label = provisionLabel(mainHeading);
      const kinds = new Set(headings.map((h) => (/^GM/.test(h) ? 'GM' : 'AMC')));
      const kind = kinds.size === 2 ? 'AMC & GM' : [...kinds][0]!;
      title = g.entries.size > 1 && label ? `${kind} to ${label} — ${subjectOf(mainHeading)}` : mainHeading;
      printed = printedEdition(g.chunks);
    }
    const edition = printed ? `${printed} (as printed in ${source.title})` : source.edition;
    out.push(makeDocument(`${source.id}/${g.key}`, source, g.chunks, g.depth, headings, title, edition, budget));
  }
  return out;
}

function largestEntry(g: Group): string {
  let best = '';
  let n = -1;
  for (const [e, cs] of g.entries) {
    if (cs.length > n) {
      best = e;
      n = cs.length;
    }
  }
  return best;
}

/** The edition an entry prints under its heading: "SORA 2.5, Edition September 2025". */
function printedEdition(chunks: Chunk[]): string | null {
  for (const c of chunks.slice(0, 3)) {
    const m = PRINTED_EDITION.exec(c.text);
    if (m) {
      const sora = PRINTED_SORA.exec(c.text);
      return `${sora ? `SORA ${sora[1]}, ` : ''}Edition ${m[1]!}`;
    }
  }
  return null;
}

function makeDocument(
  id: string,
  source: SourceInfo,
  chunks: Chunk[],
  depth: number,
  entries: string[],
  title: string,
  edition: string,
  budget: SummaryBudget,
): DocumentUnit {
  const pages = chunks.flatMap((c) => [c.pageStart, c.pageEnd]).filter((p): p is number => p !== null);
  const sections = sectionsOf(chunks, depth, budget);
  const summary = extractiveSummary(
    sections.map((s) => s.summary),
    chunks.map((c) => c.text),
    budget.document,
  );
  const pageStart = pages.length ? Math.min(...pages) : null;
  const pageEnd = pages.length ? Math.max(...pages) : null;
  const where = pageStart === null ? 'unpaged' : pageStart === pageEnd ? `p. ${pageStart}` : `pp. ${pageStart}–${pageEnd}`;
  // the description's extract: the document's own opening statement (its first prose sentence in reading order)
  const opening = chunks
    .slice(0, 8)
    .flatMap((c) => splitSentences(collapseWhitespace(c.summary || c.text)))
    .find(isProse);
  const lead = clip(opening ?? splitSentences(summary)[0] ?? '', budget.description);
  return {
    id,
    sourceId: source.id,
    title,
    edition,
    jurisdiction: chunks[0]!.jurisdiction || source.jurisdiction,
    language: chunks[0]!.language,
    pageStart,
    pageEnd,
    entries,
    chunkIds: chunks.map((c) => c.id),
    sections,
    summary,
    description: `${title} (${where}, ${sections.length} section${sections.length === 1 ? '' : 's'}, ${chunks.length} passage${chunks.length === 1 ? '' : 's'}).${lead ? ` ${lead}` : ''}`,
  };
}

/** Sections: chunks grouped by the first one or two levels of their section path below the document root. */
function sectionsOf(chunks: Chunk[], depth: number, budget: SummaryBudget): DocumentSection[] {
  const byKey = new Map<string, { path: string[]; chunks: Chunk[] }>();
  for (const c of chunks) {
    const path = c.sectionPath.length ? c.sectionPath : [c.title];
    const rel = path.slice(Math.min(depth, path.length - 1), Math.min(path.length, depth + 2));
    const key = rel.join('\u0000');
    const s = byKey.get(key) ?? { path: rel, chunks: [] };
    s.chunks.push(c);
    byKey.set(key, s);
  }
  return [...byKey.values()].map((s) => ({
    path: s.path,
    chunkIds: s.chunks.map((c) => c.id),
    summary:
      extractiveSummary(
        s.chunks.map((c) => c.summary || firstLine(c.text)),
        s.chunks.map((c) => `${c.title} ${c.text}`),
        budget.section,
      ) || s.path[s.path.length - 1]!,
  }));
}

/**
 * Extractive summary: the candidate sentences (from `candidates`) most central to
 * the term distribution of `body` (cosine of content-token counts), up to
 * `maxChars` (or `maxSentences`), duplicates dropped, in their original order.
 */
export function extractiveSummary(candidates: string[], body: string[], maxChars: number, maxSentences = Infinity): string {
  const centroid = counts(contentTokens(body.join(' ')));
  const sentences: string[] = [];
  const seen = new Set<string>();
  const all: string[] = [];
  for (const c of candidates) {
    for (const s of splitSentences(collapseWhitespace(c))) {
      const t = s.trim();
      const k = t.toLowerCase();
      if (t.length < 20 || seen.has(k)) continue;
      seen.add(k);
      all.push(t);
    }
  }
  // prefer prose over table cells and form fields ("Part B OSO #08 #2 Part D …")
  const prose = all.filter(isProse);
  sentences.push(...(prose.length ? prose : all));
  const scored = sentences.map((s, i) => ({ s, i, score: cosine(counts(contentTokens(s)), centroid) }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  const picked: typeof scored = [];
  let len = 0;
  for (const x of scored) {
    if (picked.length >= maxSentences) break;
    if (len && len + x.s.length + 1 > maxChars) continue;
    picked.push(x);
    len += x.s.length + 1;
    if (len >= maxChars * 0.8) break;
  }
  return picked
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s)
    .join(' ');
}

/** A whole sentence (ends with punctuation, not clipped) of at least six words, half of them lower-case words of three letters or more. */
export function isProse(s: string): boolean {
  const words = s.split(/\s+/).filter(Boolean);
  if (words.length < 6 || !/[.;:!?]$/.test(s)) return false;
  return words.filter((w) => /^[a-z‘’'(]*[a-z]{3,}/.test(w)).length / words.length >= 0.5;
}

function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    const y = b.get(t);
    if (y) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > max * 0.6 ? space : max).trim()}…`;
}

/** Split every source's chunks into documents; checks that every chunk is in exactly one document. */
export function splitDocuments(chunks: Chunk[], sources: SourceInfo[], budget: SummaryBudget = DEFAULT_SUMMARY_BUDGET): DocumentUnit[] {
  const docs = sources.flatMap((s) =>
    splitSourceDocuments(
      chunks.filter((c) => c.docId === s.id),
      s,
      budget,
    ),
  );
  const owner = new Map<string, string>();
  for (const d of docs) {
    for (const id of d.chunkIds) {
      const prev = owner.get(id);
      if (prev) throw new DocumentSplitError(`Chunk ${id} is in two documents: ${prev} and ${d.id}.`);
      owner.set(id, d.id);
    }
  }
  const orphan = chunks.find((c) => !owner.has(c.id));
  if (orphan) throw new DocumentSplitError(`Chunk ${orphan.id} (source ${orphan.docId}) is in no document: its source is not registered.`);
  return docs;
}

/** The text embedded for a summary-index node. */
export const documentNodeText = (d: Pick<DocumentUnit, 'title' | 'summary'>): string => `${d.title}. ${d.summary}`;
export const sectionNodeText = (d: Pick<DocumentUnit, 'title'>, s: DocumentSection): string => `${d.title} › ${s.path.join(' › ')}. ${s.summary}`;
