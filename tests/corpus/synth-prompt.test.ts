/** Cleaning of model-written synthetic questions (passage and routing generators). */
import { describe, expect, it } from 'vitest';
import { cleanQuestions, repeatsOneOf } from '../../corpus-build/synth/prompt.js';
import { repeatsRouteExample, routeSchema, tablePrompt } from '../../corpus-build/synth/route-prompt.js';

describe('synthetic question cleaning', () => {
  it('flags a question that mostly repeats a worked example, and only those', () => {
    const repeats = repeatsOneOf(['What light must a UA display at night?']);
    expect(repeats('What light must the UA display at night time?')).toBe(true);
    expect(repeats('Who keeps the logbook of a remote pilot?')).toBe(false);
  });

  it('drops empty, overlong, duplicate and example-repeating questions', () => {
    const long = `Why ${'really '.repeat(60)}?`;
    expect(
      cleanQuestions([
        '  Who  signs the declaration? ',
        'who signs the declaration?',
        'short?',
        long,
        'Does a drone need a lamp on it when it flies after dark?',
      ]),
    ).toEqual(['Who signs the declaration?']);
  });

  it('routing prompts: the invented example is recognised, the schema asks for each style', () => {
    expect(repeatsRouteExample('What minimum energy reserve applies to a BVLOS flight with a planned flight time of 25 min?')).toBe(true);
    expect(repeatsRouteExample('What SAIL applies for a final GRC of 3 with ARC-b?')).toBe(false);
    expect(Object.keys(routeSchema('both').properties)).toEqual(['value_and_obligation', 'value_and_explanation']);
    expect(tablePrompt('database', 'Table 9 — X', 'a     b  c')).toMatch(/^Table: Table 9 — X\n"""\na \| b c\n"""/);
  });
});
