import { describe, expect, it } from 'vitest';
import { answerConfig, DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { buildChatMessages, trimHistory } from '../../src/core/answer/messages.js';
import { contextMessage, DEVELOPER_PROMPT, NO_ANSWER_TEXT, NO_CONTEXT_MARKER, SECTION_LABELS, SYSTEM_PROMPT } from '../../src/core/answer/prompts.js';
import { makeChunk, retrievalOf } from './helpers.js';

// the buildChatMessages tests check the free-form (SKYSAFE) message order
const FREE = answerConfig({ answerForm: 'free' });
const context = retrievalOf([makeChunk('skysafe-sora-curated/17', 'iGRC table', 'The iGRC is read from Table 2.')]).context;

describe('prompts adapt the SKYSAFE system and developer prompts', () => {
  it('keep the SKYSAFE context-only rules and add citation, section, clarification and no-approval rules', () => {
    expect(SYSTEM_PROMPT).toContain('Use only the information provided in the current context');
    expect(SYSTEM_PROMPT).toContain('Do not claim approval, certification, validation, or authority decisions');
    expect(SYSTEM_PROMPT).toMatch(/copied exactly as it appears in the context/);
    for (const label of SECTION_LABELS) expect(SYSTEM_PROMPT).toContain(`"${label}"`);
    for (const word of ['approved', 'compliant', 'you are authorised']) expect(SYSTEM_PROMPT).toContain(word);
    expect(DEVELOPER_PROMPT).toContain(`respond with exactly: \`${NO_ANSWER_TEXT}\``);
    expect(DEVELOPER_PROMPT).toContain(NO_CONTEXT_MARKER);
    expect(DEVELOPER_PROMPT).toMatch(/characteristic dimension/);
    expect(DEVELOPER_PROMPT).toMatch(/VLOS or BVLOS/);
    expect(DEVELOPER_PROMPT).toMatch(/airspace class/);
    expect(DEVELOPER_PROMPT).toMatch(/clarification question/);
    expect(DEVELOPER_PROMPT).not.toMatch(/one indicator at a time/);
  });

  it('wrap the context, or the [NO CONTEXT] marker when it is empty', () => {
    expect(contextMessage(context)).toContain('[skysafe-sora-curated/17] iGRC table — skysafe-sora-curated, page 12');
    expect(contextMessage('  ')).toContain(`<context>\n${NO_CONTEXT_MARKER}\n</context>`);
  });
});

describe('buildChatMessages follows the SKYSAFE interaction order', () => {
  it('system(+developer), user question, assistant acknowledgement, user context — one system message for WebLLM', () => {
    const m = buildChatMessages({ question: 'How is the iGRC determined?', context, config: answerConfig({ citationMarkers: 'id' }, FREE) });
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(m[0]!.content.startsWith(SYSTEM_PROMPT)).toBe(true);
    expect(m[0]!.content).toContain('# Developer instructions');
    expect(m[0]!.content.endsWith(DEVELOPER_PROMPT)).toBe(true);
    expect(m[1]!.content).toBe('How is the iGRC determined?');
    expect(m[2]!.content).toBe(DEFAULT_ANSWER_CONFIG.acknowledgement);
    expect(m[3]!.content).toContain('[skysafe-sora-curated/17]');
    // WebLLM: only the first message may be a system message; the last must be a user message
    expect(m.slice(1).some((x) => x.role === 'system')).toBe(false);
    expect(m[m.length - 1]!.role).toBe('user');
  });

  it("puts the developer prompt in a second system message in 'system' mode", () => {
    const m = buildChatMessages({ question: 'q', context, config: answerConfig({ developerMessageMode: 'system', citationMarkers: 'id' }, FREE) });
    expect(m.map((x) => x.role)).toEqual(['system', 'system', 'user', 'assistant', 'user']);
    expect(m[0]!.content).toBe(SYSTEM_PROMPT);
    expect(m[1]!.content).toBe(DEVELOPER_PROMPT);
  });

  it('places previous turns before the current question, oldest first', () => {
    const history = [
      { question: 'Q1', answer: 'A1' },
      { question: 'Q2', answer: 'A2' },
    ];
    const m = buildChatMessages({ question: 'Q3', history, context, config: FREE });
    expect(m.map((x) => `${x.role}:${x.content.slice(0, 2)}`).slice(1, 6)).toEqual(['user:Q1', 'assistant:A1', 'user:Q2', 'assistant:A2', 'user:Q3']);
  });

  it('trims history to the turn and character budget, dropping the oldest whole turns', () => {
    const history = Array.from({ length: 6 }, (_, i) => ({ question: `question ${i}`, answer: 'x'.repeat(100) }));
    expect(trimHistory(history, { maxTurns: 4, maxChars: 10_000 }).map((t) => t.question)).toEqual(['question 2', 'question 3', 'question 4', 'question 5']);
    expect(trimHistory(history, { maxTurns: 10, maxChars: 230 }).map((t) => t.question)).toEqual(['question 4', 'question 5']);
    expect(trimHistory(history, { maxTurns: 10, maxChars: 50 })).toEqual([]);
    const m = buildChatMessages({ question: 'now', history, context, config: answerConfig({ history: { maxTurns: 1 } }, FREE) });
    expect(m.filter((x) => x.role === 'assistant')).toHaveLength(2); // one history answer + the acknowledgement
  });
});
