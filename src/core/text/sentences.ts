/**
 * Sentence splitting for regulatory English. Used by the build (summaries, long
 * unit splitting), the grounding check and the evidence-only answer.
 * Abbreviations common in EASA texts ("e.g.", "i.e.", "No.", "Art.") do not end
 * a sentence; neither does a decimal point or an enumerator such as "(a)".
 */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'no',
  'nos',
  'art',
  'para',
  'paras',
  'fig',
  'figs',
  'vs',
  'cf',
  'approx',
  'min',
  'max',
  'ref',
  'refs',
  'sect',
  'vol',
  'ed',
  'eds',
  'p',
  'pp',
  'mr',
  'ms',
  'dr',
  'st',
  'incl',
  'resp',
  'ca',
  'al',
]);

export interface SentenceSpan {
  text: string;
  /** Offset of the sentence in the input string. */
  start: number;
  end: number;
}

/** Split text into sentences with their offsets; whitespace inside sentences is kept as is. */
export function splitSentenceSpans(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  const re = /[.!?]+["'’”)\]]*(?=\s+|$)|\n\s*\n/g;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const end = m.index + m[0].length;
    if (m[0].startsWith('.') && !m[0].includes('\n')) {
      const before = text.slice(start, m.index);
      const word = /([A-Za-z.]+)$/.exec(before)?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word) || /^[a-z]$/i.test(word) || (/\d$/.test(before) && /^\s*\d/.test(text.slice(end)))) continue;
      // next sentence must start with a capital, a digit, an enumerator or a quote
      const next = text.slice(end).trimStart();
      if (next && !/^[A-Z0-9(‘'"“—–•\[]/.test(next)) continue;
    }
    pushSpan(spans, text, start, end);
    start = end;
  }
  pushSpan(spans, text, start, text.length);
  return spans;
}

function pushSpan(spans: SentenceSpan[], text: string, start: number, end: number): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed) spans.push({ text: trimmed, start: start + lead, end: start + lead + trimmed.length });
}

export const splitSentences = (text: string): string[] => splitSentenceSpans(text).map((s) => s.text);

/** Collapse whitespace runs to one space. */
export const collapseWhitespace = (s: string): string => s.replace(/\s+/g, ' ').trim();
