/**
 * Loader for Q&A rules JSON: questions answered per country.
 *
 *   { "questions": [ { "question_id", "question_text", "category", "tags",
 *       "answers_by_country": { "FR": { "answer_html", "links", "last_reviewed" } } } ] }
 *
 * Every question × country becomes one `Chunk` of kind 'qa', whose jurisdiction is the
 * country key and whose text is the answer's HTML converted to plain text.
 */
import type { Chunk, ChunkLink } from '../../src/core/model/chunk.js';
import { collapseWhitespace } from '../../src/core/text/sentences.js';
import { SourceFormatError } from '../errors.js';
import { isRecord, typeName } from './json-checks.js';

export interface QaRulesMeta {
  docId: string;
  edition: string;
  language: string;
}

/** A link of an answer, normalised from either a bare URL string or a `{title, url}` object. */
export interface QaLink {
  title: string | null;
  url: string;
}

// ---------------------------------------------------------------------------------------------
// HTML → plain text
// ---------------------------------------------------------------------------------------------

/** Latin-1 named entities, in code-point order from U+00A0 to U+00FF. */
const LATIN1_NAMES =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn ' +
  'sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave ' +
  'Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ' +
  'ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN ' +
  'szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute ' +
  'icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml ' +
  'yacute thorn yuml';

/** Named entities decoded by `decodeEntities` (Latin-1, markup and common typographic ones). */
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map<string, string>([
  ...LATIN1_NAMES.split(' ').map((n, i): [string, string] => [n, String.fromCodePoint(0xa0 + i)]),
  ['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"],
  ['OElig', 'Œ'], ['oelig', 'œ'], ['Scaron', 'Š'], ['scaron', 'š'], ['Yuml', 'Ÿ'], ['fnof', 'ƒ'],
  ['circ', 'ˆ'], ['tilde', '˜'], ['ensp', '\u2002'], ['emsp', '\u2003'], ['thinsp', '\u2009'],
  ['zwnj', '\u200c'], ['zwj', '\u200d'], ['lrm', '\u200e'], ['rlm', '\u200f'],
  ['ndash', '–'], ['mdash', '—'], ['lsquo', '‘'], ['rsquo', '’'], ['sbquo', '‚'],
  ['ldquo', '“'], ['rdquo', '”'], ['bdquo', '„'], ['dagger', '†'], ['Dagger', '‡'],
  ['bull', '•'], ['hellip', '…'], ['permil', '‰'], ['prime', '′'], ['Prime', '″'],
  ['lsaquo', '‹'], ['rsaquo', '›'], ['euro', '€'], ['trade', '™'], ['minus', '−'],
  ['le', '≤'], ['ge', '≥'], ['ne', '≠'], ['asymp', '≈'], ['infin', '∞'], ['larr', '←'],
  ['rarr', '→'], ['uarr', '↑'], ['darr', '↓'], ['harr', '↔'], ['check', '✓'], ['deg', '°'],
]);

/**
 * Decode HTML character references: numeric (`&#233;`, `&#xE9;`) and the named entities in
 * `NAMED_ENTITIES`. Unknown names are left as written; invalid code points become U+FFFD.
 */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const invalid = !Number.isFinite(cp) || cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff);
      return invalid ? '\ufffd' : String.fromCodePoint(cp);
    }
    return NAMED_ENTITIES.get(ref) ?? whole;
  });
}

/** Elements whose start and end delimit a line. */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'caption', 'dd', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'pre',
  'section', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul',
]);
/** Block elements that are separated from their neighbours by an empty line. */
const PARAGRAPH = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements dropped together with their content. */
const DROPPED = ['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'object', 'svg'];

const TAG_RE =
  /<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;

/**
 * Convert an HTML fragment to plain text.
 *
 * - No tag survives; comments, `<script>`, `<style>` (and similar non-content elements) are
 *   dropped with their content, also when unclosed.
 * - Character references are decoded.
 * - Block elements and `<br>` become line breaks, paragraphs and headings are separated by an
 *   empty line, list items start on their own line prefixed "— " (indented two spaces per
 *   nesting level), table cells are separated by " | ".
 * - Inside text, whitespace runs collapse to one space (HTML semantics) except in `<pre>`;
 *   lines are trimmed and at most one empty line is kept in a row.
 */
export function htmlToText(html: string): string {
  let src = html.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const tag of DROPPED) {
    src = src.replace(new RegExp(`<${tag}\\b[^>]*>[\\s\\S]*?(?:</${tag}\\s*>|$)`, 'gi'), '');
    src = src.replace(new RegExp(`</?${tag}\\b[^>]*>`, 'gi'), '');
  }
  // Processing instructions / doctype / CDATA markers are not content.
  src = src.replace(/<![^>]*>|<\?[^>]*>/g, '');

  let out = '';
  let pendingBreak = 0; // 0 none, 1 newline, 2 empty line
  let listDepth = 0;
  let preDepth = 0;
  let cellsInRow = 0;

  let afterMarker = false; // a list marker was just written: its item's first block joins it
  const requestBreak = (n: number): void => {
    if (!afterMarker) pendingBreak = Math.max(pendingBreak, n);
  };
  const emit = (s: string): void => {
    if (s === '') return;
    if (pendingBreak > 0 && out !== '') out += pendingBreak === 2 ? '\n\n' : '\n';
    pendingBreak = 0;
    out += s;
    afterMarker = false;
  };
  const emitText = (raw: string): void => {
    if (preDepth > 0) {
      const lines = decodeEntities(raw).split('\n');
      lines.forEach((l, k) => {
        if (k > 0) out += '\n';
        emit(l);
      });
      return;
    }
    let t = decodeEntities(raw.replace(/[ \t\n\r\f]+/g, ' '));
    // A line's leading space is not content.
    if (out === '' || out.endsWith('\n') || pendingBreak > 0 || out.endsWith(' ')) t = t.replace(/^ +/, '');
    emit(t);
  };

  let last = 0;
  for (const m of src.matchAll(TAG_RE)) {
    emitText(src.slice(last, m.index));
    last = m.index + m[0].length;
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    if (name === 'br') {
      // An explicit line break: emit it even with nothing after yet (consecutive <br> count).
      if (pendingBreak > 0 && out !== '') out += pendingBreak === 2 ? '\n\n' : '\n';
      pendingBreak = 0;
      afterMarker = false;
      out += '\n';
    } else if (name === 'li') {
      afterMarker = false; // an empty item (or one opening a nested list) ends here
      requestBreak(1);
      if (!closing) {
        emit(`${'  '.repeat(Math.max(0, listDepth - 1))}— `);
        afterMarker = true;
      }
    } else if (name === 'ul' || name === 'ol') {
      listDepth = Math.max(0, listDepth + (closing ? -1 : 1));
      requestBreak(1);
    } else if (name === 'td' || name === 'th') {
      if (!closing) {
        if (cellsInRow > 0) emit(' | ');
        cellsInRow++;
      }
    } else if (name === 'tr') {
      cellsInRow = 0;
      requestBreak(1);
    } else if (name === 'pre') {
      preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
      requestBreak(2);
    } else if (PARAGRAPH.has(name)) {
      requestBreak(listDepth > 0 ? 1 : 2); // no empty lines inside a list
    } else if (BLOCK.has(name)) {
      requestBreak(1);
    }
    // Any other (inline or unknown) tag is removed without a trace.
  }
  emitText(src.slice(last));

  return out
    .split('\n')
    .map((l) => {
      const r = l.trimEnd();
      return /^ *— /.test(r) ? r : r.trim(); // keep list-item indentation only
    })
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Q&A JSON → chunks
// ---------------------------------------------------------------------------------------------

/** An ISO 3166-1 alpha-2 code (format check) or 'EU'. */
export const COUNTRY_CODE_RE = /^[A-Z]{2}$/;


const collapse = collapseWhitespace;

/**
 * Parse Q&A rules JSON into chunks, one per question × country, in file order (countries in
 * the order the file lists them).
 *
 * id `${docId}/${question_id}/${country lower-case}`, kind 'qa', jurisdiction = country key,
 * title = question text, sectionPath [category, title], text = `htmlToText(answer_html)`,
 * links from `links` (URL strings or `{title, url}`), extra `{questionId, category, tags,
 * lastReviewed, links}`, summary '' and keywords [] (filled by enrichment), retrieval =
 * `${title} ${title}. ${text}` with whitespace runs collapsed.
 *
 * @throws SourceFormatError naming the question (id, or index when it has none) and the field.
 */
export function loadQaRules(jsonText: string, meta: QaRulesMeta): Chunk[] {
  const { docId } = meta;
  let data: unknown;
  try {
    data = JSON.parse(jsonText);
  } catch (e) {
    throw new SourceFormatError(docId, 'the file', 'JSON', `not valid JSON: ${(e as Error).message}.`);
  }
  if (!isRecord(data)) {
    throw new SourceFormatError(docId, 'the file', '(top level)', `expected an object with "questions", got ${typeName(data)}.`);
  }
  if (!Array.isArray(data.questions)) {
    throw new SourceFormatError(
      docId,
      'the file',
      'questions',
      data.questions === undefined ? 'missing. Expected an array of questions.' : `expected an array, got ${typeName(data.questions)}.`,
    );
  }

  const chunks: Chunk[] = [];
  const seen = new Map<string, number>();

  data.questions.forEach((q: unknown, i: number) => {
    const name =
      isRecord(q) && typeof q.question_id === 'string' && q.question_id.trim() !== ''
        ? `question "${q.question_id}" (#${i})`
        : `question #${i}`;
    const fail = (field: string, problem: string): never => {
      throw new SourceFormatError(docId, name, field, problem);
    };
    if (!isRecord(q)) return fail('(question)', `expected an object, got ${typeName(q)}.`);

    const str = (obj: Record<string, unknown>, key: string, field: string): string => {
      const v = obj[key];
      if (v === undefined) return fail(field, 'missing. Expected a string.');
      if (typeof v !== 'string') return fail(field, `expected a string, got ${typeName(v)}.`);
      if (v.trim() === '') return fail(field, 'empty.');
      return v;
    };

    const questionId = str(q, 'question_id', 'question_id').trim();
    if (/[\s/]/.test(questionId)) fail('question_id', `"${questionId}" contains whitespace or "/"; it is part of chunk ids.`);
    const prev = seen.get(questionId);
    if (prev !== undefined) fail('question_id', `duplicate: question #${prev} has the same id.`);
    seen.set(questionId, i);

    const title = collapse(str(q, 'question_text', 'question_text'));
    const category = collapse(str(q, 'category', 'category'));

    let tags: string[] = [];
    if (q.tags !== undefined) {
      if (!Array.isArray(q.tags)) fail('tags', `expected an array of strings, got ${typeName(q.tags)}.`);
      (q.tags as unknown[]).forEach((t, j) => {
        if (typeof t !== 'string') fail(`tags[${j}]`, `expected a string, got ${typeName(t)}.`);
      });
      tags = [...(q.tags as string[])];
    }

    const answers = q.answers_by_country;
    if (answers === undefined) fail('answers_by_country', 'missing. Expected an object keyed by country code.');
    if (!isRecord(answers)) return fail('answers_by_country', `expected an object keyed by country code, got ${typeName(answers)}.`);
    const countries = Object.keys(answers);
    if (countries.length === 0) fail('answers_by_country', 'no country answers this question. Add at least one answer.');

    for (const country of countries) {
      const base = `answers_by_country.${country}`;
      if (!COUNTRY_CODE_RE.test(country)) {
        fail(
          base,
          `"${country}" is not a country code. Use an ISO 3166-1 alpha-2 code in upper case (e.g. "FR", "DE") or "EU".`,
        );
      }
      const a = answers[country];
      if (!isRecord(a)) return fail(base, `expected an object with answer_html, got ${typeName(a)}.`);

      const html = a.answer_html;
      if (html === undefined) fail(`${base}.answer_html`, 'missing. Expected an HTML string.');
      if (typeof html !== 'string') return fail(`${base}.answer_html`, `expected an HTML string, got ${typeName(html)}.`);
      const text = htmlToText(html);
      if (text === '') fail(`${base}.answer_html`, 'no text left once tags are removed.');

      const links = normaliseLinks(a.links, `${base}.links`, fail);

      let lastReviewed: string | null = null;
      if (a.last_reviewed !== undefined && a.last_reviewed !== null) {
        if (typeof a.last_reviewed !== 'string') {
          fail(`${base}.last_reviewed`, `expected a date string, got ${typeName(a.last_reviewed)}.`);
        }
        lastReviewed = a.last_reviewed as string;
      }

      const chunkLinks: ChunkLink[] = links.map((l) => ({ label: l.title ?? l.url, target: null }));
      chunks.push({
        id: `${docId}/${questionId}/${country.toLowerCase()}`,
        docId,
        kind: 'qa',
        title,
        sectionPath: [category, title],
        pageStart: null,
        pageEnd: null,
        text,
        summary: '',
        keywords: [],
        jurisdiction: country,
        edition: meta.edition,
        language: meta.language,
        links: chunkLinks,
        retrieval: collapse(`${title} ${title}. ${text}`),
        extra: { questionId, category, tags, lastReviewed, links },
      });
    }
    return undefined;
  });

  return chunks;
}

/** Validate and normalise an answer's `links` (absent → []). */
function normaliseLinks(raw: unknown, field: string, fail: (field: string, problem: string) => never): QaLink[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return fail(field, `expected an array of URLs or {title, url} objects, got ${typeName(raw)}.`);
  return raw.map((l: unknown, j: number): QaLink => {
    if (typeof l === 'string') {
      if (l.trim() === '') return fail(`${field}[${j}]`, 'empty URL.');
      return { title: null, url: l.trim() };
    }
    if (isRecord(l)) {
      if (typeof l.url !== 'string' || l.url.trim() === '') {
        return fail(`${field}[${j}].url`, `expected a non-empty URL string, got ${JSON.stringify(l.url)}.`);
      }
      if (l.title !== undefined && l.title !== null && typeof l.title !== 'string') {
        return fail(`${field}[${j}].title`, `expected a string, got ${typeName(l.title)}.`);
      }
      const title = typeof l.title === 'string' && l.title.trim() !== '' ? collapse(l.title) : null;
      return { title, url: l.url.trim() };
    }
    return fail(`${field}[${j}]`, `expected a URL string or a {title, url} object, got ${typeName(l)}.`);
  });
}
