/**
 * Is a question written in English? The indexed documents are English only, so a question in
 * another language finds look-alike passages or none. A small function-word vote: each language
 * scores the share of the question's words that are among its commonest function words; English
 * is assumed unless another language clearly wins. Domain abbreviations (SAIL, GRC, UAS…) count
 * for no language.
 */
import { tokenize } from './tokenize.js';

export interface LanguageGuess {
  /** ISO 639-1 code. */
  readonly code: string;
  readonly name: string;
  /** Function words of that language found in the text. */
  readonly evidence: readonly string[];
}

const WORDS: Readonly<Record<string, { name: string; words: string }>> = {
  en: {
    name: 'English',
    words: 'the a an of to in is are for and or with what which how when who does do can must should be on at by from my our this that it if',
  },
  de: {
    name: 'German',
    words:
      'der die das den dem des ein eine einen einem ist sind für und oder mit wie was welche welcher welches wann wer muss müssen kann können soll sollte ich wir mein unser bei von auf nicht auch über nach zu im',
  },
  fr: {
    name: 'French',
    words:
      'le la les un une des du est sont pour et ou avec quel quelle quels quelles comment quand qui doit doivent peut peuvent je nous mon notre dans sur par pas aussi au aux ce cette en de',
  },
  es: {
    name: 'Spanish',
    words:
      'el la los las un una unos es son para y o con qué cuál cuáles cómo cuándo quién debe deben puede pueden yo nosotros mi nuestro en sobre por no también del al este esta de',
  },
  it: {
    name: 'Italian',
    words:
      'il lo la i gli le un una è sono per e o con che quale quali come quando chi deve devono può possono io noi mio nostro nel sulla di non anche del della questo questa si',
  },
  nl: {
    name: 'Dutch',
    words: 'de het een is zijn voor en of met wat welke hoe wanneer wie moet moeten kan kunnen ik wij mijn ons in op van niet ook bij naar dit deze',
  },
  pl: { name: 'Polish', words: 'jest są dla i lub z co jaki jaka jakie jak kiedy kto musi muszą może mogą ja my mój nasz w na od nie też do przy ten ta to' },
  pt: {
    name: 'Portuguese',
    words:
      'o a os as um uma é são para e ou com que qual quais como quando quem deve devem pode podem eu nós meu nosso em sobre por não também do da no na este esta de',
  },
};

const SETS = Object.fromEntries(Object.entries(WORDS).map(([code, v]) => [code, new Set(v.words.split(' '))]));

/** The language of a question when it is clearly not English; null for English or too little text to tell. */
export function nonEnglishLanguage(text: string): LanguageGuess | null {
  const tokens = tokenize(text).filter((t) => !/\d/.test(t));
  if (tokens.length < 3) return null;
  let best: { code: string; hits: string[] } | null = null;
  let english = 0;
  for (const [code, set] of Object.entries(SETS)) {
    const hits = tokens.filter((t) => set.has(t));
    if (code === 'en') english = hits.length;
    else if (!best || hits.length > best.hits.length) best = { code, hits };
  }
  if (!best) return null;
  // another language must show at least two of its function words and clearly more than English
  if (best.hits.length < 2 || best.hits.length <= english * 1.5) return null;
  return { code: best.code, name: WORDS[best.code]!.name, evidence: [...new Set(best.hits)] };
}

/** The notice shown with a question in another language. */
export function englishOnlyNotice(guess: LanguageGuess): string {
  return `The documents SkyCite searches are in English only, and your question seems to be in ${guess.name}: passages are matched by meaning and by words, so a question in ${guess.name} finds few or unrelated passages. Ask in English, with the regulation's terms (for example "operational authorisation", "SAIL", "ground risk").`;
}
