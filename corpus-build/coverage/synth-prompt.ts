/**
 * Prompts for the out-of-scope synthetic questions: on-topic drone questions whose
 * rule lives in an instrument the corpus references but does not contain
 * (src/core/coverage/coverage.json, status `absent`). The model sees only the
 * instrument's label, location and description written for the coverage data — no
 * corpus passage and no evaluation question. Changing anything here changes
 * COVERAGE_PROMPT_VERSION, so the generator writes the records again.
 */
import type { CoverageInstrument } from '../../src/core/coverage/types.js';

export const COVERAGE_PROMPT_VERSION = 'coverage-questions/1';

export const COVERAGE_STYLES = [
  { key: 'names_rule', count: 2 },
  { key: 'operator', count: 2 },
  { key: 'public', count: 1 },
  { key: 'inspector', count: 1 },
] as const;
export type CoverageStyle = (typeof COVERAGE_STYLES)[number]['key'];

export const COVERAGE_SYSTEM_PROMPT = `You write realistic questions that people ask about EU drone (UAS) rules.
You are given one legal instrument or provision and what it decides. Write questions whose answer is decided by THAT provision, in these styles:
- names_rule: the question names the provision (for example its Article, point, Regulation number or name) and asks what it requires or allows.
- operator: a drone operator or remote pilot describes their own situation in the first person and asks what applies; do not name the provision.
- public: a member of the public with no legal vocabulary asks in everyday words.
- inspector: an inspector or authority officer asks a precise question about what the provision requires.
Rules: each question must be about the subject of the given provision, specific, and different from the others. Do not ask about risk assessments, SORA, SAIL, ground or air risk classes or operational safety objectives. No answers, only questions.`;

/** An invented example turn (not a real instrument of the corpus); questions repeating it are dropped. */
export const COVERAGE_EXAMPLE = {
  instrument: {
    label: 'Night lighting of unmanned aircraft (an invented example provision)',
    location: 'Example Regulation, point X.1',
    description: 'Which lights an unmanned aircraft must show when it flies at night and when they must be on.',
  },
  output: {
    names_rule: [
      'What does point X.1 of the Example Regulation require about lights on a drone at night?',
      'Under point X.1, when must the night lights be switched on?',
    ],
    operator: [
      'I want to film fireworks with my quadcopter after sunset; does it need a light on it?',
      'Our drone team flies inspections at dawn; do we have to keep the lamp flashing until we land?',
    ],
    public: ['Why do some drones blink green in the evening?'],
    inspector: ['Which colour and visibility must a drone\u2019s night light have to comply?'],
  },
};

export function coverageQuestionPrompt(ins: Pick<CoverageInstrument, 'label' | 'location' | 'description'>): string {
  return `Provision: ${ins.label}\nWhere it is: ${ins.location}\nWhat it decides: ${ins.description}\nWrite the questions as JSON.`;
}

export function coverageQuestionsSchema() {
  const properties: Record<string, unknown> = {};
  for (const s of COVERAGE_STYLES) properties[s.key] = { type: 'array', items: { type: 'string', maxLength: 220 }, minItems: s.count, maxItems: s.count };
  return { type: 'object', properties } as const;
}

/** Drop empty, too short, duplicate and example-repeating questions; normalise whitespace. */
export function cleanCoverageQuestions(qs: readonly string[]): string[] {
  const example = new Set(
    Object.values(COVERAGE_EXAMPLE.output)
      .flat()
      .map((q) => q.toLowerCase()),
  );
  const out: string[] = [];
  for (const raw of qs) {
    const q = raw.replace(/\s+/g, ' ').trim();
    if (q.length < 12 || example.has(q.toLowerCase()) || /\bX\.1\b|example regulation/i.test(q)) continue;
    if (out.some((o) => o.toLowerCase() === q.toLowerCase())) continue;
    out.push(q);
  }
  return out;
}
