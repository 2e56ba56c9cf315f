/** All operations-dev cases are reproduced exactly from the corpus tables. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assessOperation } from '../../src/core/sora/index.js';
import { EvalInputError, parseJsonl, scoreOperations, toOperationCase } from '../../src/core/evaluation/operations-and-routes.js';
import { EVAL_DIR } from './corpus-text.js';

const FILE = resolve(EVAL_DIR, 'operations-dev.jsonl');
const cases = parseJsonl(readFileSync(FILE, 'utf8'), FILE).map((r) => toOperationCase(r, FILE));

describe('operations-dev.jsonl', () => {
  it('is reproduced exactly (iGRC, final GRC and SAIL)', () => {
    const report = scoreOperations(cases);
    expect(report.failures).toEqual([]);
    expect(report.exact).toBe(1);
    expect(report.n).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s cites Table 1 (p. 24) and Table 3 (p. 38)', (_id, c) => {
    const a = assessOperation(c.inputs);
    if (c.expected.igrc === null) return;
    expect(a.trace[0]).toMatchObject({ caption: expect.stringMatching(/^Table 1 /), page: 24 });
    expect(a.trace.at(-1)).toMatchObject({ caption: 'Table 3 — SAIL determination', page: 38 });
  });
});

describe('evaluation input errors', () => {
  it('names the line of malformed JSON', () => {
    expect(() => parseJsonl('{"id":"a"}\n\n{oops', 'x.jsonl')).toThrow(/x\.jsonl, line 3: malformed JSON/);
  });

  it('names the line of a case without inputs', () => {
    const records = parseJsonl('{"id":"a","expected":{"igrc":1}}', 'x.jsonl');
    expect(() => toOperationCase(records[0] as never, 'x.jsonl')).toThrow(EvalInputError);
    expect(() => toOperationCase(records[0] as never, 'x.jsonl')).toThrow(/line 1: field "inputs"/);
  });
});
