/** The router's learned model: features, training, prediction, the shipped file's provenance and checks. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  messageClauses,
  parseRouteModel,
  predictRoute,
  routeFeatures,
  trainRouteModel,
  type RouteExample,
  type RouteModel,
} from '../../src/core/route/route-model.js';
import shipped from '../../src/core/route/route-model.json';

const ROOT = resolve(import.meta.dirname, '../..');

describe('route model features', () => {
  it('folds numbers, keeps word pairs and adds what the calculator extractor reads', () => {
    const f = routeFeatures('SAIL for a final GRC of 4 with ARC-c?');
    expect(f).toContain('w:#');
    expect(f).toContain('b:grc of');
    expect(f.some((x) => x.startsWith('x:in:'))).toBe(true);
    expect(f).not.toContain('w:4');
  });

  it('with clause features, sees a request for text beside the value request (issue 35, item 10)', () => {
    expect(messageClauses('Which SAIL for GRC 5 and ARC-b, and why is it not lower?')).toEqual(['Which SAIL for GRC 5 and ARC-b', 'why is it not lower']);
    const both = routeFeatures('Which SAIL for GRC 5 and ARC-b, and why is it not lower?', undefined, 'clauses');
    expect(both).toEqual(expect.arrayContaining(['c:calc:1', 'c:other:1', 'c:calc+other', 't:why', 't:lower']));
    const value = routeFeatures('What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?', undefined, 'clauses');
    expect(value).toEqual(expect.arrayContaining(['c:n:1', 'c:calc:1', 'c:other:0']));
    expect(value.some((f) => f.startsWith('t:'))).toBe(false);
    expect(routeFeatures('SAIL for GRC 4?', undefined, 'words').some((f) => f.startsWith('c:'))).toBe(false); // the words set has none
  });
});

describe('route model training', () => {
  // an invented three-way task: the label follows the words, so a model that learns gets it right on new phrasings
  const ex = (text: string, path: RouteExample['path']): RouteExample => ({ text, path });
  const train = [
    ex('why is the rule there', 'rules'),
    ex('why must the pilot check it', 'rules'),
    ex('explain why the rule applies', 'rules'),
    ex('value for 3 and 4 please', 'database'),
    ex('the value for 7 and 2', 'database'),
    ex('give the value for 5 and 1', 'database'),
    ex('value for 3 and 4 and why', 'both'),
    ex('the value for 6 and 2 and why is it so', 'both'),
    ex('give the value for 9 and 8 and explain why', 'both'),
  ];

  it('learns a separable task and predicts new phrasings of it', () => {
    const m = trainRouteModel(train, { minCount: 1 });
    expect(predictRoute(m, 'why does the rule exist').path).toBe('rules');
    expect(predictRoute(m, 'value for 11 and 12').path).toBe('database');
    expect(predictRoute(m, 'value for 11 and 12, and why').path).toBe('both');
    const p = predictRoute(m, 'why').probabilities;
    expect(p.rules + p.database + p.both).toBeCloseTo(1, 6);
  });

  it('follows the labels: with rules and database swapped, predictions swap', () => {
    const swapped = train.map((e) => ({ ...e, path: e.path === 'rules' ? ('database' as const) : e.path === 'database' ? ('rules' as const) : e.path }));
    const m = trainRouteModel(swapped, { minCount: 1 });
    expect(predictRoute(m, 'why does the rule exist').path).toBe('database');
  });

  it('with the extractor gate, a message whose table inputs and output the calculator reads is not sent to rules', () => {
    // a model that always says rules
    const onlyRules: RouteModel = {
      formatVersion: 1,
      kind: 'multinomial',
      extractorGate: true,
      trainedOn: {},
      classes: ['rules', 'database', 'both'],
      bias: [5, 0, -1],
      weights: {},
    };
    const q = 'the SAIL for a final GRC of 4 with ARC-c';
    expect(predictRoute(onlyRules, q)).toMatchObject({ path: 'database', gated: true });
    expect(predictRoute({ ...onlyRules, extractorGate: false }, q)).toMatchObject({ path: 'rules', gated: false });
    expect(predictRoute(onlyRules, 'why is the rule there')).toMatchObject({ path: 'rules', gated: false });
  });

  it('is deterministic', () => {
    expect(JSON.stringify(trainRouteModel(train, { minCount: 1 }))).toBe(JSON.stringify(trainRouteModel(train, { minCount: 1 })));
  });
});

describe('the shipped route model', () => {
  it('was trained on the committed synthetic questions (retrain with npm run train:router after they change)', () => {
    const m = parseRouteModel(shipped);
    const sha = (f: string) =>
      createHash('sha256')
        .update(readFileSync(resolve(ROOT, 'corpus-build/data', f)))
        .digest('hex');
    expect(m.trainedOn['route-questions.jsonl']).toBe(sha('route-questions.jsonl'));
    expect(m.trainedOn['synthetic-questions.jsonl']).toBe(sha('synthetic-questions.jsonl'));
    // and on the engineer-written routing questions of the cv split (the held-out split never: issue 35, item 10)
    expect(m.trainedOn['route-written.jsonl']).toBe(sha('route-written.jsonl'));
    expect(m.features).toBe('clauses');
  });

  it('rejects a malformed model file with a message that names the fix', () => {
    expect(() => parseRouteModel(null)).toThrow(/npm run train:router/);
    const ok = {
      formatVersion: 1,
      kind: 'multinomial',
      extractorGate: true,
      classes: ['rules', 'database', 'both'],
      bias: [0, 0, 0],
      weights: { 'w:x': [1, 0, 0] },
    };
    expect(parseRouteModel(ok).weights['w:x']).toEqual([1, 0, 0]);
    expect(() => parseRouteModel({ ...ok, classes: ['rules', 'database'] })).toThrow(/classes/);
    expect(() => parseRouteModel({ ...ok, weights: { 'w:x': [1, 'a', 0] } })).toThrow(/w:x/);
    expect(() => parseRouteModel({ ...ok, kind: 'factored' })).toThrow(/bias must have 2/);
    expect(() => parseRouteModel({ ...ok, extractorGate: undefined })).toThrow(/extractorGate/);
  });
});
