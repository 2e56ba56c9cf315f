/**
 * Identifiers as people write them, rewritten the way the documents print them:
 * "OSO #8" / "OSO 8" / "oso#8" → "OSO #08", "Step 2" → "Step #2", "M1A" / "M1 (A)" → "M1(A)",
 * "S4.2" / "s.4.2" → "S.4.2", "SAIL 4" → "SAIL IV".
 *
 * Nothing here is a list of identifiers: every form is learned from the documents' own text
 * (`identifierFormsFromTexts`), so a rewrite only ever produces a form the documents use.
 * The lexical side splits "#08" and "#8" into the different words "08" and "8" and
 * "M1A" into one word where the documents have "m1" "a"; the embedder tokenizes them
 * differently too. Pure: no DOM, no Node built-ins.
 */

/** How the documents write the numbers after one prefix ("OSO" → " #", two digits). */
export interface NumberedForm {
  /** The prefix as the documents print it. */
  prefix: string;
  /** What stands between prefix and number: " #", " ", "-" or "". */
  sep: string;
  /** Digits of a number below 10 (2 when the documents write "08"). */
  width: number;
}

export interface IdentifierForms {
  /** Lower-case prefix → its numbering form. */
  numbered: Map<string, NumberedForm>;
  /** Lower-case prefix → its form, for prefixes the documents number only with Roman numerals ("SAIL III"). */
  roman: Map<string, string>;
  /** Key ("m1a") → lettered identifier as printed ("M1(A)"). */
  lettered: Map<string, string>;
  /** Key ("s42:2") → dotted section number as printed ("S.4.2"). */
  dotted: Map<string, string>;
  /** Acronym prefixes that are also ordinary lower-case words of the documents ("DO" / "do"): rewritten only when written in capitals. */
  words: Set<string>;
}

export interface IdentifierLearning {
  /** A prefix counts as a numbering pattern when the documents use it at least this often. Default 3. */
  minCount: number;
}

export const DEFAULT_IDENTIFIER_LEARNING: IdentifierLearning = { minCount: 3 };

// a capitalised word (or acronym, optionally with a one-letter series such as "PDRA-S"), not inside a dotted id
const NUMBERED = /(?<![\p{L}\p{N}.\-#])([A-Z][A-Za-z]{1,7}(?:-[A-Z])?)([ ]?#[ ]?|[ ]|-|)(\d{1,3})(?![\p{L}\p{N}]|\.\d)/gu;
const ROMAN = /(?<![\p{L}\p{N}.\-])([A-Z]{2,8})[ ]([IVX]{1,4})(?![\p{L}\p{N}])/gu;
const LETTERED = /(?<![\p{L}\p{N}.\-])([A-Z]\d{1,2})[ ]?\(([A-Z])\)/gu;
const DOTTED = /(?<![\p{L}\p{N}.\-])([A-Z])\.(\d{1,2}(?:\.\d{1,2})*)(?![\p{L}\p{N}]|\.\d)/gu;

const canonicalSep = (s: string): string => (s.includes('#') ? ' #' : s);

/** Learn the identifier forms from the documents' text. */
export function identifierFormsFromTexts(texts: Iterable<string>, learning: IdentifierLearning = DEFAULT_IDENTIFIER_LEARNING): IdentifierForms {
  const numberedSeen = new Map<string, { prefixes: Map<string, number>; seps: Map<string, number>; padded: number; unpadded: number; total: number }>();
  const romanSeen = new Map<string, { prefix: string; n: number }>();
  const lettered = new Map<string, string>();
  const dotted = new Map<string, string>();
  const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  const texts2 = [...texts];
  for (const text of texts2) {
    for (const m of text.matchAll(NUMBERED)) {
      const [, prefix, sep, digits] = m as unknown as [string, string, string, string];
      const key = prefix.toLowerCase();
      const s = numberedSeen.get(key) ?? { prefixes: new Map(), seps: new Map(), padded: 0, unpadded: 0, total: 0 };
      numberedSeen.set(key, s);
      bump(s.prefixes, prefix);
      bump(s.seps, canonicalSep(sep));
      s.total++;
      if (Number(digits) < 10) {
        if (digits.length >= 2) s.padded++;
        else s.unpadded++;
      }
    }
    for (const m of text.matchAll(ROMAN)) {
      const key = m[1]!.toLowerCase();
      const s = romanSeen.get(key) ?? { prefix: m[1]!, n: 0 };
      s.n++;
      romanSeen.set(key, s);
    }
    for (const m of text.matchAll(LETTERED)) lettered.set(`${m[1]}${m[2]}`.toLowerCase(), `${m[1]}(${m[2]})`);
    for (const m of text.matchAll(DOTTED)) dotted.set(`${m[1]}${m[2]!.replace(/\./g, '')}`.toLowerCase() + `:${m[2]!.split('.').length}`, `${m[1]}.${m[2]}`);
  }
  const top = <K>(m: Map<K, number>): K => [...m.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const numbered = new Map<string, NumberedForm>();
  for (const [key, s] of numberedSeen) {
    if (s.total < learning.minCount) continue;
    numbered.set(key, { prefix: top(s.prefixes), sep: top(s.seps), width: s.padded > s.unpadded ? 2 : 1 });
  }
  const roman = new Map<string, string>();
  for (const [key, s] of romanSeen) if (s.n >= learning.minCount && !numberedSeen.has(key)) roman.set(key, s.prefix);
  const words = new Set<string>();
  const acronyms = new Set([...numbered.entries()].filter(([, f]) => /^[A-Z-]+$/.test(f.prefix)).map(([k]) => k));
  for (const [k, p] of roman) if (/^[A-Z]+$/.test(p)) acronyms.add(k);
  for (const text of texts2) for (const w of text.match(/(?<![\p{L}\p{N}])[a-z]+(?:-[a-z])?(?![\p{L}\p{N}])/gu) ?? []) if (acronyms.has(w)) words.add(w);
  return { numbered, roman, lettered, dotted, words };
}

const ROMANS = ['', 'I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

// as people write them: any case, "#" or "no." or nothing, spaces anywhere
const Q_NUMBERED = /(?<![\p{L}\p{N}.\-#])([A-Za-z][A-Za-z]{1,7}(?:[-\s][A-Za-z])?)(\s*#\s*|\s*-\s*|\s+(?:no\.?\s*)?|)(\d{1,3})(?![\p{L}\p{N}]|\.\d)/gu;
const Q_LETTERED = /(?<![\p{L}\p{N}.\-])([A-Za-z]\d{1,2})(?:\s?\(([A-Za-z])\)|([A-Za-z])|\s([A-Z]))(?![\p{L}\p{N}(])/gu;
// "S.4.2", "s.4.2", "S4.2"; a letter run straight into a single number ("C2", "M1") is another kind of name
const Q_DOTTED = /(?<![\p{L}\p{N}.\-])([A-Za-z])(?:\.\s?(\d{1,2}(?:\.\d{1,2})*)|(\d{1,2}(?:\.\d{1,2})+))(?![\p{L}\p{N}]|\.\d)/gu;

/**
 * Rewrite the identifiers of a text (a question) into the documents' forms. Only a form the
 * documents use is produced; anything else is left as written. `bareRuns: false` (for the
 * documents' own text, the BM25 field) leaves a prefix run straight into digits ("UAS3") alone.
 */
export function normaliseIdentifiers(text: string, forms: IdentifierForms, options: { bareRuns?: boolean } = {}): string {
  const { bareRuns = true } = options;
  let out = text.replace(Q_NUMBERED, (all, prefix: string, sep: string, digits: string) => {
    // "OSO8" in a question is OSO #08; in a document a run like "UAS3" is a word with its footnote mark
    if (sep === '' && !bareRuns) return all;
    const key = prefix.toLowerCase().replace(/\s/, '-');
    if (forms.words.has(key) && prefix !== prefix.toUpperCase()) return all;
    const roman = forms.roman.get(key);
    const n = Number(digits);
    if (roman !== undefined) return n >= 1 && n < ROMANS.length ? `${roman} ${ROMANS[n]}` : all;
    const form = forms.numbered.get(key);
    if (!form) return all;
    // padded, never stripped: "#081" (a number with its footnote mark) stays as printed
    const written = `${form.prefix}${form.sep}${digits.length >= form.width ? digits : digits.padStart(form.width, '0')}`;
    return written.toLowerCase() === all.toLowerCase() ? all : written;
  });
  out = out.replace(Q_LETTERED, (all, base: string, a?: string, b?: string, c?: string) => forms.lettered.get(`${base}${a ?? b ?? c}`.toLowerCase()) ?? all);
  out = out.replace(Q_DOTTED, (all, letter: string, a?: string, b?: string) => {
    const nums = (a ?? b)!;
    return forms.dotted.get(`${letter}${nums.replace(/\./g, '')}`.toLowerCase() + `:${nums.split('.').length}`) ?? all;
  });
  return out;
}

/**
 * Chunks with their retrieval string's identifiers as the documents mostly print them, for the
 * BM25 field: the documents also write "OSO #8" now and then, which a question rewritten to
 * "OSO #08" would no longer match word for word. Forms learned from the chunks themselves (as the
 * engine learns them from the index), runs into digits ("UAS3", a word and its footnote mark) left alone.
 */
export function withIdentifiersAsPrinted<T extends { title: string; text: string; retrieval: string }>(chunks: readonly T[]): T[] {
  const forms = identifierFormsFromTexts(chunks.map((c) => `${c.title}\n${c.text}`));
  return chunks.map((c) => ({ ...c, retrieval: normaliseIdentifiers(c.retrieval, forms, { bareRuns: false }) }));
}
