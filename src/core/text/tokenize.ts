/**
 * The one tokenizer of the lexical side (BM25, keyword boost, term overlap):
 * lower-case regex word tokens, no stemming (SKYSAFE §2.5.2), so a lexical match
 * is always a visible match. Keeps regulatory identifiers such as "#04", "m1(a)"
 * apart only as plain word tokens ("m1", "a").
 */
export const WORD = /[\p{L}\p{N}]+/gu;

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** English function words that carry no retrieval signal (used for keywords and term overlap, not BM25). */
export const STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have how if in into is it its ' +
    'may might must of on or our shall should so such than that the their them then there these they this those to ' +
    'under upon was we were what when where which while who whom why will with would you your not no any all each ' +
    'also other more most some same both either neither only own very just about above after again against before ' +
    'below between during further here once out over through too until up down off i me my he she his her us'
  ).split(' '),
);

/** Content tokens: tokenized, stopwords and one-letter tokens removed. */
export function contentTokens(text: string): string[] {
  return tokenize(text).filter((t) => !STOPWORDS.has(t) && (t.length > 1 || /\d/.test(t)));
}
