/**
 * Template routing questions written from the calculator's typed tables
 * (corpus-build/synth/route-templates.ts), added to the router's training folds: one group per
 * table the model-written questions cover, deterministic, values drawn from the tables, and a
 * `both` question is a value question with a request for text added.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { templateRouteQuestions } from '../../corpus-build/synth/route-templates.js';
import { parseRouteModel } from '../../src/core/route/route-model.js';
import { extractOperation } from '../../src/core/sora/extract.js';
import shipped from '../../src/core/route/route-model.json';

const ROOT = resolve(import.meta.dirname, '../..');
const routeTables = new Set(
  readFileSync(resolve(ROOT, 'corpus-build/data/route-questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { table: string }).table),
);

describe('template routing questions', () => {
  const q = templateRouteQuestions(10);

  it('covers exactly the tables of the model-written questions (so a held-out table takes its templates with it)', () => {
    expect(new Set(q.map((x) => x.table))).toEqual(routeTables);
    expect(routeTables.size).toBe(12);
  });

  it('writes N database and N both questions per table, N/4 rules questions, the same ones every time', () => {
    const count = (path: string) => q.filter((x) => x.path === path).length;
    expect([count('database'), count('both'), count('rules')]).toEqual([120, 120, 36]);
    expect(JSON.stringify(templateRouteQuestions(10))).toBe(JSON.stringify(q));
    expect(JSON.stringify(templateRouteQuestions(10, 2))).not.toBe(JSON.stringify(q));
  });

  it('gives table inputs the calculator reads in most value questions, and no quantities in the rules questions', () => {
    const value = q.filter((x) => x.path !== 'rules');
    const read = value.filter((x) => extractOperation(x.text).inputs.length > 0).length;
    expect(read / value.length).toBeGreaterThan(0.7);
    for (const x of q.filter((y) => y.path === 'rules')) expect(/\d\s*(?:m|kg|g|km|people)\b/.test(x.text), x.text).toBe(false);
  });

  it('makes a both question a value question with a request for text added', () => {
    for (const x of q.filter((y) => y.path === 'both')) expect(x.text, x.text).toMatch(/(?:, and |\? )[^?]+\?$/);
    for (const x of q.filter((y) => y.path === 'database')) expect(x.text, x.text).not.toMatch(/, and |\? \S/);
  });

  it('is part of the shipped model (npm run train:router, 10 per table and path)', () => {
    expect(parseRouteModel(shipped).trainedOn.templates).toMatchObject({ perTable: 10, n: 276 });
  });
});
