/**
 * The audit export keeps its format: an export written before the record gained route,
 * calculator, score breakdown, models and Assess runs (tests/fixtures/audit-export-v1.json,
 * written by commit cad3a56's code) still imports, and new records round-trip through
 * export → import unchanged.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_EXPORT_FORMAT, AUDIT_EXPORT_SCHEMA_VERSION, auditRecordProblems, createAuditStore, parseAuditExport } from '../../src/storage/audit-store';
import { AskSession } from '../../src/ui/ask/session.svelte';
import { repoRoot } from '../support/paths';
import { appStandIn } from '../ui/stand-ins';

const V1 = readFileSync(path.join(repoRoot, 'tests/fixtures/audit-export-v1.json'), 'utf8');
let n = 0;
const freshStore = () => createAuditStore({ dbName: `compat-${++n}-${Date.now()}` });

describe('audit export compatibility', () => {
  it('keeps the export format and schema version', () => {
    expect(AUDIT_EXPORT_FORMAT).toBe(JSON.parse(V1).format);
    expect(AUDIT_EXPORT_SCHEMA_VERSION).toBe(JSON.parse(V1).schemaVersion);
  });

  it('imports an export written before the new fields, and exports those records unchanged', async () => {
    const store = freshStore();
    expect(await store.importJson(V1)).toEqual({ added: 2, skipped: 0 });
    const again = parseAuditExport(await store.exportJson());
    const old = JSON.parse(V1) as { records: unknown[] };
    expect(again.records).toEqual(old.records);
    expect(again.records.every((r) => r.kind === undefined && r.route === undefined)).toBe(true);
  });

  it('round-trips a record with route, calculator, scores and models through export and import', async () => {
    const app = appStandIn();
    await new AskSession(app).ask('What is the SAIL for a final GRC of 4 and ARC-c?');
    const text = await app.audit.exportJson();
    const target = freshStore();
    expect(await target.importJson(text)).toEqual({ added: 1, skipped: 0 });
    const [original] = (await app.audit.list()).records;
    const [copy] = (await target.list()).records;
    expect(copy).toEqual(original);
    expect(copy!.calculator?.items.length).toBeGreaterThan(0);
    expect(copy!.evidence[0]?.parts).toBeDefined();
  });

  it('rejects a record whose new fields have the wrong type, naming the field', () => {
    const [rec] = (JSON.parse(V1) as { records: Record<string, unknown>[] }).records;
    expect(auditRecordProblems(rec)).toEqual([]);
    expect(auditRecordProblems({ ...rec, kind: 'chat' })).toEqual(['kind must be one of ask, assess, requirements']);
    expect(auditRecordProblems({ ...rec, models: null })).toEqual(['models must be an object']);
    expect(auditRecordProblems({ ...rec, route: 'rules' })).toEqual(['route must be an object or null']);
  });
});
