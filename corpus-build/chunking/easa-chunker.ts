/**
 * Structure-aware chunking of the EASA AMC & GM layout text: one chunk per
 * regulatory unit (AMC/GM entry, SORA section and step, annex section, OSO,
 * glossary entry), one chunk per table (caption as printed and notes kept),
 * long units split at paragraph boundaries and never mid-sentence.
 *
 * Produces chunk drafts without summary, keywords, links or retrieval string:
 * the enrichment stage fills those for every source alike.
 */
import type { Chunk, ChunkKind } from '../../src/core/model/chunk.js';
import type { LayoutDocument, LayoutLine } from '../loaders/easa-layout.js';
import { FIGURE_CAPTION, type Heading, collapse, continuesTitle, detectHeading } from './easa-structure.js';
import { findTableRegions, type TableRegion } from './tables.js';
import { splitIntoParts } from './split.js';
import { isHeadingOnly } from './hygiene.js';
import { isColumnHeader, readGlossaryColumns } from './glossary.js';

export interface ChunkerMeta {
  docId: string;
  edition: string;
  jurisdiction: string;
  language: string;
}

export interface ChunkingOptions {
  /** Units longer than this (characters of collapsed text) are split into parts. Default 900 (DEFAULT_CHUNKING). */
  maxChars: number;
  /** A trailing part shorter than this is merged into the previous one. Default 300 (DEFAULT_CHUNKING). */
  minChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxChars: 900, minChars: 300 };

/** A chunk before enrichment (summary, keywords, links, retrieval added later). */
export type ChunkDraft = Omit<Chunk, 'summary' | 'keywords' | 'links' | 'retrieval'>;

export interface Unit {
  heading: Heading | null;
  idPrefix: string;
  path: string[];
  kind: ChunkKind;
  lines: LayoutLine[];
}

const ABBREVIATIONS = /^\s*List of abbreviations\s*$/;

const kindOf = (h: Heading | null): ChunkKind => {
  if (!h) return 'front-matter';
  switch (h.type) {
    case 'entry':
      return 'amc-gm-entry';
    case 'oso':
      return 'oso';
    case 'glossary':
      return 'glossary';
    default:
      return 'section';
  }
};

/** Detect headings for every line; returns per-line headings and the lines consumed as title continuations. */
export function detectHeadings(lines: LayoutLine[]): { headings: (Heading | null)[]; continuation: Set<number> } {
  const headings: (Heading | null)[] = new Array(lines.length).fill(null);
  const continuation = new Set<number>();
  let inSoraBody = false;
  let annex: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.footnote || continuation.has(i)) continue;
    const prev = i > 0 ? lines[i - 1]!.text : '';
    const h = detectHeading(line.text, { prev, inSoraBody, annex });
    if (!h) {
      if (ABBREVIATIONS.test(line.text) && !inSoraBody && !annex) {
        headings[i] = { type: 'entry', level: 1, slug: 'abbreviations', title: 'List of abbreviations' };
      }
      continue;
    }
    // wrapped titles
    let title = h.title;
    let j = i + 1;
    while (j < lines.length && j <= i + 2 && continuesTitle(h, lines[j]!.text)) {
      title = collapse(`${title} ${lines[j]!.text}`);
      continuation.add(j);
      j++;
    }
    if (h.type === 'glossary') title = glossaryTerm(title, lines, i);
    headings[i] = { ...h, title };
    if (h.type === 'entry') {
      inSoraBody = h.slug === 'amc1-art11';
      annex = null;
    } else if (h.type === 'annex') {
      inSoraBody = false;
      annex = h.annex ?? null;
    }
  }
  return { headings, continuation };
}

/**
 * Glossary terms wrap inside their column ("Beyond visual line of" / "sight"):
 * append the term-column text of the following lines of the same entry.
 */
function glossaryTerm(title: string, lines: LayoutLine[], i: number): string {
  const m = /^(I\.\d+\.) (.*?)( \([^)]*\))?$/.exec(title);
  if (!m) return title;
  let term = m[2]!;
  for (let j = i + 1; j <= i + 3 && j < lines.length; j++) {
    const t = lines[j]!.text;
    if (t.trim() === '' || /^I\.\d+\./.test(t)) break;
    const lead = /^ */.exec(t)![0].length;
    if (lead > 12) continue; // definition column only
    const first = t.trim().split(/\s{3,}/)[0]!;
    if (first.length > 30) break;
    term = `${term} ${first}`;
  }
  return collapse(`${m[1]} ${term}${m[3] ?? ''}`);
}

/** Strip the common indentation of non-blank lines and trim blank lines at both ends. */
export function dedent(lines: string[]): string {
  const nonBlank = lines.filter((l) => l.trim() !== '');
  if (!nonBlank.length) return '';
  const indent = Math.min(...nonBlank.map((l) => /^ */.exec(l)![0].length));
  const out = lines.map((l) => (l.trim() === '' ? '' : l.slice(indent)));
  while (out.length && out[0] === '') out.shift();
  while (out.length && out[out.length - 1] === '') out.pop();
  // collapse runs of blank lines to one
  return out.filter((l, i) => !(l === '' && out[i - 1] === '')).join('\n');
}

const pagesOf = (lines: LayoutLine[]): { pageStart: number | null; pageEnd: number | null } => {
  const pages = lines.filter((l) => l.text.trim() !== '' && l.page !== null).map((l) => l.page as number);
  if (!pages.length) return { pageStart: null, pageEnd: null };
  return { pageStart: Math.min(...pages), pageEnd: Math.max(...pages) };
};

const ARTEFACT = /\b([a-z])([A-Z])[a-z]|\b([A-Z])([a-z])[a-z]/g;

/** Amendment markup merged by the text extraction ("wWhen", "Ssafety"). */
export function hasAmendmentArtefacts(text: string): boolean {
  for (const m of text.matchAll(ARTEFACT)) {
    if (m[1] && m[2] && m[1] === m[2].toLowerCase()) return true;
    if (m[3] && m[4] && m[3].toLowerCase() === m[4]) return true;
  }
  return false;
}

/** Chunk an EASA layout document. */
export function chunkEasaDocument(doc: LayoutDocument, meta: ChunkerMeta, options: ChunkingOptions = DEFAULT_CHUNKING): ChunkDraft[] {
  const { lines } = doc;
  const { headings } = detectHeadings(lines);
  const regions = findTableRegions(lines, (i) => headings[i] !== null);
  const regionAt = new Map<number, TableRegion>();
  for (const r of regions) regionAt.set(r.start, r);

  const units: { unit: Unit; tables: { region: TableRegion; lines: LayoutLine[] }[] }[] = [];
  const stack: Heading[] = [];
  let entrySlug = 'front-matter';
  let annexSlug: string | null = null;
  let current: (typeof units)[number] = {
    unit: { heading: null, idPrefix: `${meta.docId}/front-matter`, path: ['Cover and note to the reader'], kind: 'front-matter', lines: [] },
    tables: [],
  };
  units.push(current);

  for (let i = 0; i < lines.length; i++) {
    const region = regionAt.get(i);
    if (region) {
      current.tables.push({ region, lines: lines.slice(region.start, region.end + 1) });
      i = region.end;
      continue;
    }
    const h = headings[i];
    if (h) {
      while (stack.length && stack[stack.length - 1]!.level >= h.level) stack.pop();
      stack.push(h);
      if (h.type === 'entry') {
        entrySlug = h.slug;
        annexSlug = null;
      } else if (h.type === 'annex') {
        annexSlug = h.slug;
      }
      const scope = [meta.docId, entrySlug, ...(annexSlug ? [annexSlug] : [])].join('/');
      const idPrefix = h.type === 'entry' || h.type === 'annex' ? scope : `${scope}/${h.slug}`;
      current = {
        unit: { heading: h, idPrefix, path: stack.map((s) => s.title), kind: kindOf(h), lines: [] },
        tables: [],
      };
      units.push(current);
    }
    current.unit.lines.push(lines[i]!);
  }

  // a glossary entry's columns read one after the other, not interleaved line by line
  for (const { unit } of units) {
    if (unit.kind === 'glossary') unit.lines = readGlossaryColumns(unit.lines) ?? unit.lines;
  }
  const mergedAway = mergeHeadingOnlyUnits(units.map((u) => u.unit));

  const used = new Map<string, number>();
  const uniqueId = (id: string): string => {
    const n = (used.get(id) ?? 0) + 1;
    used.set(id, n);
    return n === 1 ? id : `${id}-${n}`;
  };
  const drafts: { draft: ChunkDraft; firstLine: number }[] = [];
  const firstLineOf = (ls: LayoutLine[]): number => ls.find((l) => l.text.trim() !== '')?.lineNo ?? ls[0]?.lineNo ?? 0;
  const base = (lines: LayoutLine[]) => ({
    docId: meta.docId,
    jurisdiction: meta.jurisdiction,
    edition: meta.edition,
    language: meta.language,
    ...pagesOf(lines),
  });

  for (const { unit, tables } of units) {
    const title = unit.heading?.title ?? unit.path[unit.path.length - 1]!;
    const text = dedent(unit.lines.map((l) => l.text));
    // a heading given to the unit below it keeps its id reserved, so the ids of the units after it stay as they were
    if (mergedAway.has(unit)) uniqueId(unit.idPrefix);
    if (text.trim() !== '') {
      const unitId = uniqueId(unit.idPrefix);
      const parts = splitIntoParts(unit.lines, options);
      // a first part that is the unit's heading alone goes with the text it introduces
      if (parts.length > 1 && isHeadingOnly({ title, text: dedent(parts[0]!.map((l) => l.text)) })) parts.splice(0, 2, [...parts[0]!, ...parts[1]!]);
      parts.forEach((partLines, k) => {
        const partText = dedent(partLines.map((l) => l.text));
        const d: ChunkDraft = {
          id: parts.length > 1 ? `${unitId}/part-${k + 1}` : unitId,
          kind: unit.kind,
          title,
          sectionPath: unit.path,
          text: partText,
          ...base(partLines),
        };
        if (parts.length > 1) d.part = { index: k + 1, of: parts.length };
        decorate(d);
        drafts.push({ draft: d, firstLine: firstLineOf(partLines) });
      });
    }
    for (const t of tables) {
      const id = uniqueId(`${unit.idPrefix}/table-${t.region.number.toLowerCase().replace(/\./g, '')}`);
      const d: ChunkDraft = {
        id,
        kind: 'table',
        title: t.region.captionText,
        sectionPath: [...unit.path, t.region.captionText],
        text: dedent(t.lines.map((l) => l.text)),
        ...base(t.lines),
      };
      decorate(d);
      drafts.push({ draft: d, firstLine: firstLineOf(t.lines) });
    }
  }
  // document order: a table sits where it is printed, between the parts of its unit
  return drafts.sort((a, b) => a.firstLine - b.firstLine).map((x) => x.draft);
}

/**
 * A unit whose text is its heading alone (a SORA step whose body is in its subsections, an
 * annex's title page) gives its lines to the unit right after it when that one is its
 * descendant, so the heading is read with the content it introduces instead of taking an
 * evidence slot of its own. Tables printed under the heading keep their own chunks. From the
 * last unit backwards, so a chain of headings ("Section 4", "S.4.1 Step #1") ends up in the
 * first unit with a body.
 */
export function mergeHeadingOnlyUnits(units: Unit[]): Set<Unit> {
  const merged = new Set<Unit>();
  for (let i = units.length - 2; i >= 0; i--) {
    const unit = units[i]!;
    // the next unit that still has lines (one merged away already gave its own to the unit after it)
    let j = i + 1;
    while (j < units.length - 1 && merged.has(units[j]!)) j++;
    const next = units[j]!;
    if (!unit.heading || !unit.lines.length || merged.has(next)) continue;
    const descendant = next.path.length > unit.path.length && unit.path.every((t, k) => next.path[k] === t);
    if (!descendant || !isHeadingOnly({ title: unit.heading.title, text: dedent(unit.lines.map((l) => l.text)) })) continue;
    const moved = next.kind === 'glossary' ? unit.lines.filter((l) => !isColumnHeader(l.text)) : unit.lines;
    next.lines = [...moved, ...next.lines];
    unit.lines = [];
    merged.add(unit);
  }
  return merged;
}

function decorate(d: ChunkDraft): void {
  const figures = d.text
    .split('\n')
    .map((l) => FIGURE_CAPTION.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => collapse(m[0]));
  if (figures.length) d.missingFigures = figures;
  if (hasAmendmentArtefacts(d.text)) d.amendmentArtefacts = true;
}
