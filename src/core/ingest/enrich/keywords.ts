/**
 * Deterministic keywords: the chunk's most distinctive one- and two-word terms by
 * TF-IDF over the whole chunk set (title terms count double), plus regulatory
 * identifiers printed in the title (OSO #04, M1(A), SAIL, iGRC ...).
 */
import { STOPWORDS, tokenize } from '../../text/tokenize.js';

export interface KeywordOptions {
  /** Keywords per chunk. Default 8. */
  count: number;
}

const termsOf = (text: string): string[] => {
  const toks = tokenize(text);
  const out: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const a = toks[i]!;
    const okA = !STOPWORDS.has(a) && a.length > 2 && !/^\d+$/.test(a);
    if (okA) out.push(a);
    const b = toks[i + 1];
    if (okA && b && !STOPWORDS.has(b) && b.length > 2 && !/^\d+$/.test(b)) out.push(`${a} ${b}`);
  }
  return out;
};

const IDENTIFIER = /\b(OSO #\d+|M[12]\([A-C]\)|SAIL|iGRC|GRC|iARC|ARC|TMPR|PDRA|STS|DAA|ERP|C2|C3|VLOS|BVLOS|EVLOS)\b/g;

/** Compute keywords for every input (same order). */
export function extractKeywords(docs: { title: string; text: string }[], opts: KeywordOptions = { count: 8 }): string[][] {
  const df = new Map<string, number>();
  const tfs = docs.map(({ title, text }) => {
    const tf = new Map<string, number>();
    for (const t of termsOf(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of termsOf(title)) tf.set(t, (tf.get(t) ?? 0) + 2);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const n = docs.length;
  return docs.map(({ title }, i) => {
    const tf = tfs[i]!;
    const scored = [...tf.entries()]
      .filter(([t]) => (df.get(t) ?? 0) < n * 0.5) // too common to discriminate
      .map(([t, f]) => {
        const idf = Math.log(1 + n / (df.get(t) ?? 1));
        const bigram = t.includes(' ') ? 1.5 : 1;
        return { t, s: (1 + Math.log(f)) * idf * bigram };
      })
      .sort((a, b) => b.s - a.s || (a.t < b.t ? -1 : 1));
    const out: string[] = [];
    for (const m of title.matchAll(IDENTIFIER)) {
      const id = m[1]!.toLowerCase();
      if (!out.includes(id)) out.push(id);
    }
    for (const { t } of scored) {
      if (out.length >= opts.count) break;
      if (out.some((k) => k.includes(t) || t.includes(k))) continue;
      out.push(t);
    }
    return out.slice(0, opts.count);
  });
}
