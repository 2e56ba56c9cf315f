/**
 * Loader for Q&A rules JSON: questions answered per country.
 *
 *   { "questions": [ { "question_id", "question_text", "category", "tags",
 *       "answers_by_country": { "FR": { "answer_html", "links", "last_reviewed" } } } ] }
 *
 * Every question × country becomes one `Chunk` of kind 'qa', whose jurisdiction is the
 * country key and whose text is the answer's HTML converted to plain text.
 */
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
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

/** Elements whose start and end delimit a line. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'caption',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'pre',
  'section',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
]);
/** Block elements that are separated from their neighbours by an empty line. */
const PARAGRAPH = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements dropped together with their content. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'object', 'svg']);

type Html5Node = DefaultTreeAdapterMap['node'];
type Html5Parent = DefaultTreeAdapterMap['parentNode'];

/**
 * Convert an HTML fragment to plain text. Parsing — tags, attributes, comments, character
 * references, implied end tags, unclosed elements — is the HTML5 parser's (parse5); the layout
 * of the text is ours:
 *
 * - No tag survives; comments, `<script>`, `<style>` (and similar non-content elements) are
 *   dropped with their content, also when unclosed.
 * - Character references are decoded as browsers decode them.
 * - Block elements and `<br>` become line breaks, paragraphs and headings are separated by an
 *   empty line, list items start on their own line prefixed "— " (indented two spaces per
 *   nesting level), table cells are separated by " | ".
 * - Inside text, whitespace runs collapse to one space (HTML semantics) except in `<pre>`;
 *   lines are trimmed and at most one empty line is kept in a row.
 */
export function htmlToText(html: string): string {
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
  const emitText = (text: string): void => {
    if (preDepth > 0) {
      text.split('\n').forEach((l, k) => {
        if (k > 0) out += '\n';
        emit(l);
      });
      return;
    }
    let t = text.replace(/[ \t\n\r\f]+/g, ' ');
    // A line's leading space is not content.
    if (out === '' || out.endsWith('\n') || pendingBreak > 0 || out.endsWith(' ')) t = t.replace(/^ +/, '');
    emit(t);
  };
  /** An element's start (closing = false) or end (closing = true). */
  const tag = (name: string, closing: boolean): void => {
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
    // Any other (inline or unknown) element leaves no trace.
  };
  const walk = (parent: Html5Parent): void => {
    for (const node of parent.childNodes as Html5Node[]) {
      if (node.nodeName === '#text') emitText((node as DefaultTreeAdapterMap['textNode']).value);
      else if ('tagName' in node) {
        const name = node.tagName.toLowerCase();
        if (DROPPED.has(name)) continue;
        tag(name, false);
        if (name !== 'br') {
          walk(node);
          tag(name, true);
        }
      }
      // comments and document types are not content
    }
  };
  walk(parseFragment(html));

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
    const name = isRecord(q) && typeof q.question_id === 'string' && q.question_id.trim() !== '' ? `question "${q.question_id}" (#${i})` : `question #${i}`;
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
        fail(base, `"${country}" is not a country code. Use an ISO 3166-1 alpha-2 code in upper case (e.g. "FR", "DE") or "EU".`);
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
