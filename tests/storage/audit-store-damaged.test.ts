/**
 * Damaged audit records (issue 27, item 5): a record changed or cut short in the browser's
 * storage must not hide the rest of the log. Every record read is checked; a damaged one is
 * skipped, counted, left out of the export, and Clear and "delete the damaged records" still work.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRIEVAL_CONFIG } from '../../src/core/retrieval/config.js';
import { auditRecordProblems, createAuditStore, parseAuditExport, type AuditRecordInput, type AuditStore } from '../../src/storage/audit-store.js';
import { AUDIT_STORE, openUserDb } from '../../src/storage/db.js';
import { auditMarkdown } from '../../src/ui/settings/audit-summary.js';

let n = 0;
const freshName = () => `skycite-audit-damaged-${++n}-${Math.random().toString(36).slice(2)}`;

function input(answer: string): AuditRecordInput {
  return {
    question: `question for ${answer}`,
    subQueries: [],
    retrievalConfig: DEFAULT_RETRIEVAL_CONFIG,
    trace: [],
    evidence: [{ id: 'c1', score: 0.8 }],
    context: '[c1] text',
    modelId: null,
    modelParams: null,
    answer,
    citedSources: ['c1'],
    grounding: null,
    reasoning: null,
    mode: 'evidence-only',
    indexManifestSha: 'abc',
  };
}

function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

const open: AuditStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A store holding three valid records (answers a, b, c, oldest first) and the given raw values written straight into IndexedDB. */
async function storeWith(raw: unknown[]): Promise<{ s: AuditStore; dbName: string }> {
  const dbName = freshName();
  const s = createAuditStore({ dbName, now: clock(), keepQuestionsOutOfLog: () => false });
  open.push(s);
  for (const a of ['a', 'b', 'c']) await s.add(input(a));
  const db = await openUserDb(dbName);
  for (const v of raw) await db.put(AUDIT_STORE, v as never);
  db.close();
  return { s, dbName };
}

/** A valid record's fields with one change: what a corrupted or hand-edited entry looks like. */
const damagedRecord = (id: string, over: Record<string, unknown>) => ({ ...input('x'), id, time: '2026-01-01T00:00:02.500Z', ...over });

describe('damaged audit records', () => {
  it('lists the valid records and counts a record whose answer is not text instead of failing the whole list', async () => {
    const { s } = await storeWith([damagedRecord('broken-answer', { answer: 42 })]);
    const page = await s.list();
    expect(page.records.map((r) => r.answer)).toEqual(['c', 'b', 'a']);
    expect(page).toMatchObject({ total: 3, damaged: 1, hasMore: false });
    // nothing the view reads can throw on the listed records (the view's `answer.split`)
    expect(() => page.records.map((r) => r.answer.split('\n'))).not.toThrow();
    expect(await s.get('broken-answer')).toBeUndefined();
  });

  it('counts a record without a time (not in the time index) and one whose nested fields are damaged', async () => {
    const noTime = damagedRecord('no-time', {});
    delete (noTime as Record<string, unknown>)['time'];
    const badRoute = damagedRecord('bad-route', { route: { path: 'rules', reasoning: 'x' } });
    const badCalc = damagedRecord('bad-calc', { calculator: { inputs: {}, readings: [], items: [{ label: 'SAIL' }] } });
    const badEvidence = damagedRecord('bad-evidence', { evidence: [{ id: 'c1' }] });
    const { s } = await storeWith([noTime, badRoute, badCalc, badEvidence, { id: 'only-an-id' }]);
    const page = await s.list();
    expect(page.records.map((r) => r.answer)).toEqual(['c', 'b', 'a']);
    expect(page.damaged).toBe(5);
    expect(await s.count()).toBe(8);
  });

  it('pages over the valid records only: a damaged record between them shifts nothing', async () => {
    const { s } = await storeWith([damagedRecord('between', { mode: 'chatty' })]);
    const first = await s.list({ offset: 0, limit: 2 });
    const second = await s.list({ offset: 2, limit: 2 });
    expect(first.records.map((r) => r.answer)).toEqual(['c', 'b']);
    expect(first.hasMore).toBe(true);
    expect(second.records.map((r) => r.answer)).toEqual(['a']);
    expect(second.hasMore).toBe(false);
  });

  it('searches the valid records and reports the damaged count', async () => {
    const { s } = await storeWith([damagedRecord('q-damaged', { question: { text: 'b' } })]);
    const hits = await s.search('question for b');
    expect(hits.records.map((r) => r.answer)).toEqual(['b']);
    expect(hits.damaged).toBe(1);
  });

  it('exports the valid records only, as an export that imports again', async () => {
    const { s } = await storeWith([damagedRecord('broken', { answer: null })]);
    const data = parseAuditExport(await s.exportJson());
    expect(data.recordCount).toBe(3);
    expect(data.records.map((r) => r.answer)).toEqual(['c', 'b', 'a']);
    expect(data.records.every((r) => auditRecordProblems(r).length === 0)).toBe(true);
  });

  it('clears the log, damaged records included', async () => {
    const { s } = await storeWith([damagedRecord('broken', { answer: null })]);
    await s.clear();
    expect(await s.count()).toBe(0);
    expect(await s.list()).toMatchObject({ records: [], total: 0, damaged: 0 });
  });

  it('deletes only the damaged records on request', async () => {
    const { s } = await storeWith([damagedRecord('broken-1', { answer: null }), damagedRecord('broken-2', { citedSources: 'c1' })]);
    expect(await s.removeDamaged()).toBe(2);
    expect(await s.list()).toMatchObject({ total: 3, damaged: 0 });
    expect(await s.removeDamaged()).toBe(0);
  });

  it('replaces a damaged record with its copy from an export', async () => {
    const source = createAuditStore({ dbName: freshName(), now: clock(), keepQuestionsOutOfLog: () => false });
    open.push(source);
    const good = await source.add({ ...input('restored'), id: 'same-id' });
    const { s } = await storeWith([damagedRecord('same-id', { answer: null })]);
    expect(await s.importJson(await source.exportJson())).toEqual({ added: 1, skipped: 0 });
    expect(await s.get('same-id')).toEqual(good);
    expect((await s.list()).damaged).toBe(0);
  });

  // issue 36, item 3: the shapes the earlier check let through, each of which blanked the log or broke an export
  it.each([
    ['route: []', { route: [] }, 'route must be an object or null'],
    ['requirements: []', { kind: 'requirements', requirements: [] }, 'requirements must be an object or null'],
    ['a route without confidence', { route: { path: 'rules', reasoning: 'x', jurisdictions: [] } }, 'route.confidence is missing'],
    ['calculator: []', { calculator: [] }, 'calculator must be an object or null'],
    [
      'a calculator cell without its caption',
      { calculator: { items: [{ label: 'SAIL', status: 'ok', value: 'II', cells: [{ row: 'r' }] }] } },
      'calculator.items.0.cells.0.caption is missing',
    ],
    ['model parameters without a temperature', { modelParams: { top_p: 0.9, max_tokens: 10 } }, 'modelParams.temperature is missing'],
    ['an evidence score as text', { evidence: [{ id: 'c1', score: '0.8' }] }, 'evidence.0.score must be a number'],
    ['a time that is not a date', { time: 'yesterday' }, 'time must be an ISO 8601 date and time'],
  ])(
    'quarantines a record with %s, lists it as damaged with its problem, and keeps the rest of the log and the summary export usable',
    async (_what, over, problem) => {
      const { s } = await storeWith([damagedRecord('odd', over)]);
      expect(auditRecordProblems(damagedRecord('odd', over))).toContain(problem);
      const page = await s.list();
      expect(page.records.map((r) => r.answer)).toEqual(['c', 'b', 'a']);
      expect(page.damaged).toBe(1);
      expect(page.damagedRecords).toEqual([{ id: 'odd', problem }]);
      expect(() => auditMarkdown(page.records, { exportedAt: '2026-01-02T00:00:00Z', damaged: page.damaged })).not.toThrow();
      expect(parseAuditExport(await s.exportJson()).recordCount).toBe(3);
    },
  );

  it('lists a damaged record whose key is not text by a readable name', async () => {
    const { s } = await storeWith([{ ...damagedRecord('x', {}), id: 42, answer: null }]);
    expect((await s.list()).damagedRecords).toEqual([{ id: '42', problem: 'id must be a string' }]);
  });
});
