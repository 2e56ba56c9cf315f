import { describe, expect, it } from 'vitest';
import { auditMarkdown, SUMMARY_ANSWER_CHARS } from '../../src/ui/settings/audit-summary.js';
import type { AuditRecord } from '../../src/core/ask/audit-record.js';

const record = (over: Partial<AuditRecord>): AuditRecord =>
  ({
    id: 'r1',
    time: '2026-11-25T19:05:00Z',
    question: 'What is a SAIL?',
    answer: 'The SAIL is the specific assurance and integrity level [1].',
    citedSources: ['easa/s4.7'],
    modelId: null,
    mode: 'evidence-only',
    indexManifestSha: 'abc123',
    evidence: [{ id: 'easa/s4.7', score: 0.8 }],
    grounding: null,
    route: null,
    calculator: null,
    kind: 'ask',
    ...over,
  }) as AuditRecord;

describe('the audit export summary', () => {
  it('lists each record with its time and zone, question, mode, cited passages and index, readable as Markdown', () => {
    const md = auditMarkdown([record({}), record({ id: 'r2', kind: 'assess', question: null, answer: 'SAIL II | iGRC 3' })], {
      exportedAt: '2026-11-25T20:00:00Z',
      timeZone: 'UTC',
    });
    expect(md).toMatch(/^# SkyCite audit log — summary/);
    expect(md).toMatch(/2 records, newest first/);
    expect(md).toMatch(/## 1\. Question — .*(19|07):05.*UTC/);
    expect(md).toContain('- **Question:** What is a SAIL?');
    expect(md).toContain('- **Cited:** easa/s4.7');
    expect(md).toContain('`abc123`');
    expect(md).toContain('> The SAIL is the specific assurance and integrity level [1].');
    expect(md).toMatch(/## 2\. Assessment — /);
    expect(md).toContain('(kept out of the log)');
  });

  it('cuts a long answer and says where the whole one is, and keeps a question on one line', () => {
    const long = 'x'.repeat(SUMMARY_ANSWER_CHARS + 500);
    const md = auditMarkdown([record({ answer: long, question: 'Line one\n# not a heading' })], { exportedAt: '2026-11-25T20:00:00Z', timeZone: 'UTC' });
    expect(md).toContain('the JSON export holds the whole answer');
    expect(md).not.toContain('x'.repeat(SUMMARY_ANSWER_CHARS + 1));
    expect(md).toContain('- **Question:** Line one # not a heading');
  });
});
