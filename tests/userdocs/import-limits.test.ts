/**
 * Import limits (issue 27, item 8): every string a document brings (file name, title,
 * jurisdiction, edition, pages) has a limit; a message repeats at most the beginning of a value
 * (60 characters and "…"); the duplicate check is not fooled by zero-width or compatibility
 * characters; and a document stored before the file-name limit keeps loading, its name held to it.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { duplicateOf, MAX_EXPORT_PAGES, parseUserDocumentExport, USER_DOCUMENT_EXPORT_FORMAT } from '../../src/core/userdocs/export-file.js';
import { MAX_FILE_NAME_CHARS, validateUserDocumentForm } from '../../src/core/userdocs/form.js';
import { comparable, shown } from '../../src/core/userdocs/validate.js';
import { createUserDocsStore, openUserDocsDb, USER_DOCS_STORE, type StoredUserDocument } from '../../src/storage/user-docs-store.js';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

const form = { fileName: 'guidance.pdf', fileBytes: 10, title: 'LBA guidance', jurisdiction: 'DE', edition: '2024-03' };
const good = {
  format: USER_DOCUMENT_EXPORT_FORMAT,
  version: 2,
  document: { title: 'Guidance on flights near hospitals', jurisdiction: 'DE', edition: '2024-03' },
  source: { fileName: 'hospitals.pdf', format: 'pdf', pages: ['Operators shall obtain the consent of the hospital.'] },
};
const refusal = (name: string, x: unknown): string => {
  const r = parseUserDocumentExport(name, JSON.stringify(x));
  if (r.ok) throw new Error('expected a refusal');
  return r.message;
};
const HUGE = 3_000_000;

describe('limits on the fields of a document', () => {
  it('refuses a 3-million-character file name, repeating only its first 60 characters', () => {
    const name = `${'n'.repeat(HUGE)}.pdf`;
    const r = validateUserDocumentForm({ ...form, fileName: name });
    expect(r.ok).toBe(false);
    const msg = (r as { problems: { file: string } }).problems.file;
    expect(msg).toContain(`“${'n'.repeat(60)}…” has ${HUGE + 4} characters; at most ${MAX_FILE_NAME_CHARS}`);
    expect(msg.length).toBeLessThan(250);
    expect(validateUserDocumentForm({ ...form, fileName: `${'n'.repeat(MAX_FILE_NAME_CHARS - 4)}.pdf` }).ok).toBe(true);
  });

  it('echoes a 1-million-character jurisdiction cut short', () => {
    const r = validateUserDocumentForm({ ...form, jurisdiction: 'X'.repeat(1_000_000) });
    const msg = (r as { problems: { jurisdiction: string } }).problems.jurisdiction;
    expect(msg).toMatch(/^“X{60}…” is not a jurisdiction/);
    expect(msg.length).toBeLessThan(250);
  });

  it('refuses an export whose file name, title or jurisdiction is too long, and a chosen file name is cut short in the message', () => {
    const long = 'x'.repeat(HUGE);
    expect(refusal('h.json', { ...good, source: { ...good.source, fileName: `${long}.pdf` } })).toMatch(/at most 255/);
    expect(refusal('h.json', { ...good, document: { ...good.document, title: long } })).toMatch(/The title has 3000000 characters; at most 200/);
    const j = refusal('h.json', { ...good, document: { ...good.document, jurisdiction: long } });
    expect(j.length).toBeLessThan(300);
    const chosen = refusal(`${long}.skycite.json`, { hello: 1 });
    expect(chosen.startsWith(`${'x'.repeat(60)}…: not a document exported by SkyCite`)).toBe(true);
    expect(chosen.length).toBeLessThan(300);
    const f = refusal('h.json', { ...good, source: { ...good.source, format: long } });
    expect(f.length).toBeLessThan(300);
  });

  it('refuses an export with more pages than a document has', () => {
    const pages = Array.from({ length: MAX_EXPORT_PAGES + 1 }, () => 'text');
    expect(refusal('h.json', { ...good, source: { ...good.source, pages } })).toMatch(/holds 10001 pages; an exported document has at most 10000/);
  });

  it('shows values without control or invisible characters', () => {
    expect(shown('a\u0000b\u202Ec\u200Bd')).toBe('a bcd');
    expect(shown('short')).toBe('short');
    expect(shown('é'.repeat(61))).toBe(`${'é'.repeat(60)}…`);
  });
});

describe('the duplicate check', () => {
  const existing = [{ id: 'a', title: 'Guidance on flights near hospitals', edition: '2024-03', jurisdiction: 'DE' }];

  it('sees through a zero-width space, a bidirectional mark and a soft hyphen in the title', () => {
    for (const title of [
      'Guidance on\u200B flights near hospitals',
      '\u200EGuidance on flights near hospitals',
      'Guid\u00ADance on flights near hospitals',
      'Guidance on flights near hos\u2060pitals',
    ]) {
      expect(duplicateOf({ title, edition: '2024-03', jurisdiction: 'DE' }, existing)?.id).toBe('a');
    }
  });

  it('compares in NFKC: full-width letters and compatibility forms are the same title', () => {
    expect(duplicateOf({ title: 'Ｇｕｉｄａｎｃｅ on flights near hospitals', edition: '２０２４-03', jurisdiction: 'DE' }, existing)?.id).toBe('a');
    expect(comparable('ﬁle\u200B  Name')).toBe('file name');
  });

  it('still tells different documents apart', () => {
    expect(duplicateOf({ title: 'Guidance on flights near schools', edition: '2024-03', jurisdiction: 'DE' }, existing)).toBeUndefined();
  });
});

describe('a document stored before the file-name limit', () => {
  it('is loaded with its file name held to the limit, and its text kept', async () => {
    const db = `skycite-limits-${Math.random().toString(36).slice(2)}`;
    const rt = createInProcessRuntime({
      baseUrl: 'http://localhost/',
      probeAdapter: async () => NO_ADAPTER,
      createEmbedder: async () => fakeEmbedder(),
      fetchImpl: await servedIndex(),
      userDocStore: createUserDocsStore({ open: () => openUserDocsDb(db) }),
    });
    await rt.init({ denseBackend: 'exact', rerank: false });
    const info = await rt.addUserDocument({
      title: 'Beekeeping surveys',
      jurisdiction: 'FR',
      edition: '2',
      fileName: 'bees.txt',
      format: 'text',
      pages: 'The remote pilot keeps 15 metres from every beehive.',
    });
    rt.dispose();
    const raw = await openUserDocsDb(db);
    const rec = (await raw.get(USER_DOCS_STORE, info.id)) as StoredUserDocument;
    await raw.put(USER_DOCS_STORE, { ...rec, meta: { ...rec.meta, fileName: `${'b'.repeat(HUGE)}.txt` } });
    raw.close();
    const loaded = await createUserDocsStore({ open: () => openUserDocsDb(db) }).list();
    expect(loaded.problems).toEqual([]);
    expect(loaded.records[0]!.meta.fileName).toBe(`${'b'.repeat(MAX_FILE_NAME_CHARS - 1)}…`);
    expect(loaded.records[0]!.pages).toBe(rec.pages);
  });

  it('refuses to add a document whose file name is over the limit (nothing stored)', async () => {
    const db = `skycite-limits-${Math.random().toString(36).slice(2)}`;
    const rt = createInProcessRuntime({
      baseUrl: 'http://localhost/',
      probeAdapter: async () => NO_ADAPTER,
      createEmbedder: async () => fakeEmbedder(),
      fetchImpl: await servedIndex(),
      userDocStore: createUserDocsStore({ open: () => openUserDocsDb(db) }),
    });
    await rt.init({ denseBackend: 'exact', rerank: false });
    const err = (await rt
      .addUserDocument({ title: 'Bees', jurisdiction: 'FR', edition: '2', fileName: `${'b'.repeat(HUGE)}.txt`, format: 'text', pages: 'Beehives.' })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/at most 255/);
    expect(err.message.length).toBeLessThan(300);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records).toEqual([]);
  });
});
