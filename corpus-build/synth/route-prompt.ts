/**
 * Prompts of the synthetic routing questions (`npm run synth:routes`): for each table the SORA
 * calculator holds, a local instruction LLM writes questions answered by looking a value up in
 * that table (`database`) and questions that need such a value *and* an explanation from the
 * text (`both`). The `rules` class comes from the passage questions of `synthetic-questions.jsonl`
 * (questions the text of a non-table passage answers). No evaluation question is shown to the
 * model or used to write these prompts' wording beyond the path definitions of the router itself.
 * Changing anything here changes ROUTE_PROMPT_VERSION, which regenerates every table's questions.
 */
import { repeatsOneOf } from './prompt.js';

export const ROUTE_PROMPT_VERSION = 'route-questions/2';

export const ROUTE_SYSTEM_PROMPT = `You write questions that people type into a drone-regulation assistant. The assistant has a calculator that holds the tables of the SORA risk assessment (EASA AMC to Regulation (EU) 2019/947) and answers a question about a table by looking up the cell for the values given.
Rules: each item is one question a person would type, ending with a question mark. Every question gives concrete values for the table's inputs (numbers with units, classes, levels or categories as the table's rows and columns use them, or a description of the operation from which they follow). Never mention "the table", "the passage" or table numbers unless a person would. No answers, only questions.`;

/**
 * A worked example given as a previous chat turn: an invented table (not from the corpus, not from
 * any evaluation question) that shows the form of the answer, not its subjects.
 */
export const EXAMPLE_TABLE = {
  caption: 'Table X — Minimum energy reserve at landing',
  text: 'Planned flight time | VLOS | BVLOS\n≤ 10 min | 10 % | 20 %\n> 10 min and ≤ 30 min | 15 % | 25 %\n> 30 min | 20 % | 30 %',
};
export const EXAMPLE_REPLIES = {
  database: {
    document_terms: [
      'What minimum energy reserve applies to a BVLOS flight with a planned flight time of 25 min?',
      'Which reserve is required at landing for VLOS operations planned for 40 minutes?',
    ],
    plain_words: [
      'How much battery must be left when a drone I can see lands after a 5-minute flight?',
      'What percentage of charge do I need to keep for a 20 minute flight out of sight?',
    ],
    operator_situation: [
      'We fly pipeline surveys beyond visual line of sight for about 35 minutes per sortie - what reserve do we need to land with?',
      'My quadcopter does 8-minute hops that I watch the whole time; what is the minimum reserve for me?',
    ],
  },
  both: {
    value_and_obligation: [
      'What reserve applies to a 25-minute BVLOS flight, and how do we have to monitor it during the flight?',
      'For a 12 minute VLOS flight, which minimum reserve applies and what must the pilot do if it is reached early?',
    ],
    value_and_explanation: [
      'Which reserve do I need for a 40 minute BVLOS flight and why is it higher than for VLOS?',
      'What reserve applies to a 9 minute VLOS hop, and what does "planned flight time" mean here?',
    ],
  },
} as const;

/** How many questions of each kind per table and seed. */
export const ROUTE_STYLES = {
  database: [
    { key: 'document_terms', count: 2, hint: "uses the table's own terms and asks only for the value the table gives" },
    { key: 'plain_words', count: 2, hint: 'asks for the same kind of value in everyday words, with the values in common units' },
    { key: 'operator_situation', count: 2, hint: 'an operator describes their own drone and operation in the first person and asks only which value applies' },
  ],
  both: [
    {
      key: 'value_and_obligation',
      count: 2,
      hint: 'asks for the value the table gives for the values stated and, in the same question, what the operator then has to do, show or comply with',
    },
    {
      key: 'value_and_explanation',
      count: 2,
      hint: 'asks for the value the table gives for the values stated and, in the same question, why it is so or what a term of the result means',
    },
  ],
} as const;

export type RoutePathKind = keyof typeof ROUTE_STYLES;

/** Characters of table text given to the model. */
export const TABLE_CHARS = 1800;

export function tablePrompt(kind: RoutePathKind, caption: string, text: string): string {
  const body = text
    .replace(/[ \t]{3,}/g, ' | ')
    .replace(/[ \t]{2,}/g, ' ')
    .slice(0, TABLE_CHARS);
  const styles = ROUTE_STYLES[kind].map((s) => `- ${s.key} (${s.count}): ${s.hint}.`).join('\n');
  return `Table: ${caption}\n"""\n${body}\n"""\nWrite questions in these styles:\n${styles}\nReply in JSON.`;
}

export function routeSchema(kind: RoutePathKind) {
  const properties: Record<string, unknown> = {};
  for (const s of ROUTE_STYLES[kind]) properties[s.key] = { type: 'array', items: { type: 'string', maxLength: 240 }, minItems: s.count, maxItems: s.count };
  return { type: 'object', properties } as const;
}

/** One generated record: a table, a path, one seed's questions. */
export interface RouteQuestions {
  readonly table: string;
  readonly path: RoutePathKind;
  readonly seed: number;
  readonly prompt: string;
  readonly questions: readonly { readonly style: string; readonly q: string }[];
}

export const ROUTE_FILE = 'route-questions.jsonl';

/** True when a question mostly repeats one of the worked example's questions (≥ 60 % of its words). */
export const repeatsRouteExample = repeatsOneOf(Object.values(EXAMPLE_REPLIES).flatMap((r) => Object.values(r).flat()));
