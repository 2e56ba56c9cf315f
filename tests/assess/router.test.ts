/** Routing of chat messages to rules / database / both. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { extractJurisdictions } from '../../src/core/route/jurisdictions.js';
import { prefilterRoute, readsTableValue, routeMessage, type ChatTurn, type RouterClassifier } from '../../src/core/route/router.js';
import { extractOperation } from '../../src/core/sora/extract.js';
import { parseJsonl, scoreRouter, toRouterCase } from '../../src/core/evaluation/operations-and-routes.js';
import { EVAL_DIR } from './corpus-text.js';

// The development cases live outside the repository (EVAL_DIR, next to CORPUS_DIR): without them the
// measurement is skipped, and its name says why.
const FILE = resolve(EVAL_DIR, 'router-dev.jsonl');
const DEV_CASES = existsSync(FILE);

describe('router pre-filter', () => {
  // the router is trained on model-written questions only: the dev file is a measurement (0.80 when
  // measured, 16 of 20), and this guards against a regression below it
  it.skipIf(!DEV_CASES)(
    `reaches path accuracy ≥ 0.8 on router-dev.jsonl (never trained on) without a classifier${DEV_CASES ? '' : ` (skipped: ${FILE} not found; it lies outside the repository, set CORPUS_DIR so that ../eval beside it holds router-dev.jsonl)`}`,
    () => {
      const cases = parseJsonl(readFileSync(FILE, 'utf8'), FILE).map((r) => toRouterCase(r, FILE));
      const report = scoreRouter(cases);
      expect(report.accuracy, JSON.stringify(report.errors, null, 2)).toBeGreaterThanOrEqual(0.8);
    },
  );

  it('keeps a parameter-only follow-up on the path of the turn it follows', async () => {
    const history: ChatTurn[] = [
      { role: 'user', content: 'SAIL for GRC 4 and ARC-c?' },
      { role: 'assistant', content: 'SAIL IV (Table 3, p. 38).' },
    ];
    // the first turn has no recorded path: the router's verdict on it is what the follow-up keeps
    const first = prefilterRoute(history[0]?.content ?? '').decision.path;
    expect(first).not.toBe('rules');
    const d = await routeMessage('and for ARC-d?', history);
    expect(d.path).toBe(first);
    expect(d.reasoning).toMatch(/follow-up/);
    expect((await routeMessage('and for ARC-d?', [])).reasoning).not.toMatch(/follow-up/); // no history: nothing to follow
    expect((await routeMessage('what about SAIL V?', [{ role: 'user', content: 'Which OSOs need high robustness at SAIL IV?', path: 'database' }])).path).toBe(
      'database',
    );
  });

  it('routes calculation + explanation questions to both', () => {
    expect(prefilterRoute('Which SAIL for GRC 5 and ARC-b, and why is it not lower?').decision.path).toBe('both');
    expect(prefilterRoute('What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?').decision.path).toBe('database');
    expect(prefilterRoute('Explain what the M1(B) operational restrictions mitigation is').decision.path).toBe('rules');
  });

  it('hands undecided messages to the classifier, and only those', async () => {
    const classify = vi.fn<RouterClassifier['classify']>(async () => ({ path: 'database' as const, confidence: 0.7, reasoning: 'stub' }));
    const classifier: RouterClassifier = { classify };
    const undecided = await routeMessage('ARC?', [], classifier);
    expect(classify).toHaveBeenCalledTimes(1);
    expect(undecided).toMatchObject({ path: 'database', confidence: 0.7 });
    await routeMessage('What SAIL results from a final GRC of 4 and ARC-c?', [], classifier);
    expect(classify).toHaveBeenCalledTimes(1);
  });

  it('returns path, confidence, jurisdictions and reasoning', () => {
    const d = prefilterRoute('What SAIL for GRC 3 and ARC-b in France?').decision;
    expect(d).toMatchObject({ path: 'database', jurisdictions: ['FR'] });
    expect(d.confidence).toBeGreaterThan(0.5);
    expect(d.confidence).toBeLessThanOrEqual(1);
    expect(d.reasoning).not.toBe('');
  });
});

describe('jurisdiction extraction', () => {
  it('maps country names and adjectives to ISO codes, EU to EU, and nothing to []', () => {
    expect(extractJurisdictions('Can I fly BVLOS in France?')).toEqual(['FR']);
    expect(extractJurisdictions('German and Dutch rules compared')).toEqual(['DE', 'NL']);
    expect(extractJurisdictions('Is this the same across the EU?')).toEqual(['EU']);
    expect(extractJurisdictions('What is the SAIL for GRC 3 and ARC-b?')).toEqual([]);
    expect(extractJurisdictions('How do I polish the propellers?')).toEqual([]);
  });
});

describe('router: inputs read by the calculator extractor', () => {
  // measured 0.841 (37 of 44) with the model trained on synthetic questions, 0.955 (42 of 44) with clause features, the
  // engineer-written routing questions and the rule for a message that reads no table value (issue 35); never trained on
  it('routes the engineer-written routing questions (tests/fixtures/router-own.jsonl, never trained on) with accuracy ≥ 0.93', () => {
    const file = resolve(import.meta.dirname, '../fixtures/router-own.jsonl');
    const cases = parseJsonl(readFileSync(file, 'utf8'), file).map((r) => toRouterCase(r, file));
    const report = scoreRouter(cases);
    expect(report.accuracy, JSON.stringify(report.errors, null, 2)).toBeGreaterThanOrEqual(0.93);
  });

  // the held-out split of corpus-build/data/route-written.jsonl: never trained on, chosen by nothing (0.948, 55 of 58, when adopted)
  it('routes the held-out engineer-written questions (route-written.jsonl, split held-out) with accuracy ≥ 0.93', () => {
    const file = resolve(import.meta.dirname, '../../corpus-build/data/route-written.jsonl');
    const rows = parseJsonl(readFileSync(file, 'utf8'), file).filter((r) => (r.value as { split?: string }).split === 'held-out');
    expect(rows.length).toBe(58);
    const report = scoreRouter(rows.map((r) => toRouterCase(r, file)));
    expect(report.accuracy, JSON.stringify(report.errors, null, 2)).toBeGreaterThanOrEqual(0.93);
  });

  it('sends a message that neither asks for a table value nor gives one to the text, whatever the model says (issue 35, item 10)', () => {
    for (const q of ['What is a controlled ground area?', 'Can PDRA-S02 be used over a populated area?', 'What counts as a sparsely populated area?']) {
      const r = prefilterRoute(q);
      expect(r.decision.path, q).toBe('rules');
    }
    const ex = (t: string) => extractOperation(t);
    expect(readsTableValue(ex('What is a sparsely populated area?'), 'What is a sparsely populated area?')).toBe(false);
    expect(readsTableValue(ex('Which band is 700 people per km²?'), 'Which band is 700 people per km²?')).toBe(true);
    expect(readsTableValue(ex('Final GRC for iGRC 5 with M1(A) medium?'), 'Final GRC for iGRC 5 with M1(A) medium?')).toBe(true);
    expect(readsTableValue(ex('By how much does M2 high lower an iGRC of 3?'), 'By how much does M2 high lower an iGRC of 3?')).toBe(true);
  });

  it('sends a table question with density words or imperial units to the table path', () => {
    expect(prefilterRoute('What is the iGRC of a 1.2 m quadcopter at 15 m/s over a sparsely populated area?').decision.path).toBe('database');
    expect(prefilterRoute('Intrinsic GRC for a 6 ft wingspan plane at 45 mph over remote terrain?').decision.path).toBe('database');
    expect(prefilterRoute('What is a sparsely populated area?').decision.path).toBe('rules');
  });

  it('keeps a long follow-up that refers back to the same operation on its path', async () => {
    const history: ChatTurn[] = [
      { role: 'user', content: 'What SAIL for a 1 m drone at 20 m/s over 300 people/km² with ARC-b?', path: 'database' },
      { role: 'assistant', content: 'SAIL II.' },
    ];
    const long = prefilterRoute('Same drone, but now the route crosses a suburban area near the motorway and we keep the residual ARC-b as before', history);
    expect(long.cues.followUpOf).toBe('database');
    expect(long.decision.path).toBe('database');
    const inputsOnly = prefilterRoute('Now with a 2.5 m wingspan, a top speed of 30 m/s and over a lightly populated area please', history);
    expect(inputsOnly.cues.followUpOf).toBe('database');
    const fresh = prefilterRoute('What is a controlled ground area?', history);
    expect(fresh.cues.followUpOf).toBeUndefined();
    expect(fresh.decision.path).toBe('rules');
  });
});
