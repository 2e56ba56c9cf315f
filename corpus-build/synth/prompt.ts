/**
 * The prompts of the synthetic-question generator (doc2query / InPars style):
 * for each passage, questions that the passage answers, written the ways people
 * actually ask — in the document's terms, in plain words, as an operator
 * describing their own situation, as an inspector, as a member of the public.
 *
 * The worked example in the system prompt is invented (it is not from the corpus
 * and not from any evaluation question); it shows the styles, not the subjects.
 * Changing anything here changes PROMPT_VERSION, which invalidates the stored
 * questions of every passage (the generator then regenerates them).
 */

/** The question styles, in output order, with how many of each per passage. */
export const QUESTION_STYLES = [
  { key: 'document_terms', count: 1 },
  { key: 'plain_words', count: 1 },
  { key: 'operator_situation', count: 2 },
  { key: 'public', count: 1 },
] as const;

export type QuestionStyle = (typeof QUESTION_STYLES)[number]['key'];

export const PROMPT_VERSION = 'passage-questions/1';

export const SYSTEM_PROMPT = `You write the search questions people type to find passages of EU drone (UAS) rules: EASA AMC & GM to Regulation (EU) 2019/947, the SORA risk assessment and its annexes, PDRAs and standard scenarios.
For a passage you write questions that the passage answers, in these styles:
- document_terms: uses the passage's own key terms.
- plain_words: the same kind of question with the key terms replaced by synonyms or everyday words (no abbreviations).
- operator_situation: a drone operator or remote pilot describes their own situation in the first person ("we fly...", "my drone...") and asks what applies; it shares few words with the passage.
- public: a member of the public with no regulatory vocabulary asks in everyday words.
Rules: every question must be answered by the passage and be specific to what it says (not generic). A situation must be one the passage is about: do not invent conditions the passage does not mention. Never mention "the passage", "the text", "this section" or section numbers. No answers, only questions.
`;

/**
 * A worked example given as a previous chat turn (invented: not from the corpus,
 * not from any evaluation question). Questions that repeat it are dropped.
 */
export const EXAMPLE_PASSAGE = {
  title: 'Lighting at night',
  text: 'When a UA is operated at night, it shall display a flashing green light visible from the ground so that people can see it. The light shall be on from take-off to landing.',
};
export const EXAMPLE_OUTPUT = {
  document_terms: ['What light must a UA display when it is operated at night?'],
  plain_words: ['Does a drone need a lamp on it when it flies after dark?'],
  operator_situation: [
    'We want to film a sunset show and keep flying after it gets dark - does our quadcopter need anything so people below can spot it?',
    "My drone's green LED stops flashing halfway through a night flight; can I carry on until landing?",
  ],
  public: ['Why do some drones have a blinking green light in the evening sky?'],
};

/** Characters of passage text given to the model (the longest chunks are cut). */
export const PASSAGE_CHARS = 2000;

/** The user message for one passage: title and text with layout spacing collapsed. */
export function passagePrompt(title: string, text: string, isTable = false): string {
  // tables keep their columns apart; prose loses the layout's alignment spaces
  const body = (isTable ? text.replace(/[ \t]{3,}/g, ' | ') : text).replace(/[ \t]{2,}/g, ' ').slice(0, PASSAGE_CHARS);
  return `Passage title: ${title}\nPassage:\n"""\n${body}\n"""\nWrite the questions as JSON.`;
}

/** JSON schema of the answer (enforced by the generator's grammar). */
export function questionsSchema() {
  const properties: Record<string, unknown> = {};
  // a length cap keeps a model that starts repeating itself from running into the token limit
  for (const s of QUESTION_STYLES) properties[s.key] = { type: 'array', items: { type: 'string', maxLength: 240 }, minItems: s.count, maxItems: s.count };
  return { type: 'object', properties } as const;
}

/**
 * Off-topic questions (negatives for the evidence gate): the model first lists
 * aviation and drone subjects that EU drone-rule documents do not address, then
 * writes questions about each. No subject list is written by hand.
 */
export const OFFTOPIC_VERSION = 'offtopic-questions/1';

export const OFFTOPIC_TOPICS_PROMPT = `List 40 different subjects about aviation, drones, flying or air travel that a person might ask about but that EU drone regulations (the EASA acceptable means of compliance for operating drones, the SORA risk assessment, the drone operating categories) do not address. Cover many areas: technology, hobbies, business, history, other countries, manned aviation, everyday life. Each subject in a few words. Reply in JSON.`;

export function offtopicQuestionsPrompt(topic: string): string {
  return `Subject: ${topic}\nWrite 4 different questions that a person might type into a search box about this subject, in everyday words, each specific. Do not ask about EU drone rules, SORA or drone operating categories. Reply in JSON.`;
}

export const topicsSchema = () =>
  ({ type: 'object', properties: { subjects: { type: 'array', items: { type: 'string', maxLength: 60 }, minItems: 40, maxItems: 40 } } }) as const;
export const offtopicSchema = () =>
  ({ type: 'object', properties: { questions: { type: 'array', items: { type: 'string', maxLength: 200 }, minItems: 4, maxItems: 4 } } }) as const;

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** A test for questions that mostly repeat one of the given worked-example questions (≥ 60 % of its words). */
export function repeatsOneOf(examples: readonly string[]): (q: string) => boolean {
  const exampleWords = examples.map(words);
  return (q) => {
    const w = words(q);
    return exampleWords.some((e) => {
      let shared = 0;
      for (const x of w) if (e.has(x)) shared++;
      return shared >= 0.6 * Math.max(e.size, 1);
    });
  };
}

/** True when a question mostly repeats one of the worked example's questions. */
export const repeatsExample = repeatsOneOf(Object.values(EXAMPLE_OUTPUT).flat());

/** Drop empty, overlong (a pasted passage, not a question), duplicate and example-repeating questions. */
export function cleanQuestions(qs: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of qs) {
    const q = raw.replace(/\s+/g, ' ').trim();
    const key = q.toLowerCase();
    if (q.length < 12 || q.length > 300 || seen.has(key) || repeatsExample(q)) continue;
    seen.add(key);
    out.push(q);
  }
  return out;
}
