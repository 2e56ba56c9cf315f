/**
 * Issue 36, "Nothing lost", in Chromium on the production build, each test in a persistent profile
 * of its own (tests/e2e/profile.ts), each failure reproduced with the tester's steps:
 *  1. two tabs adding a document with the same title keep both; each tab sees the other's changes;
 *  2. a damaged copy of a model or tokenizer file in transformers.js' own cache (or damaged mid-file
 *     in every cache) is replaced by a verified copy online, and Settings → Repair offline copy
 *     repairs it too;
 *  3. an audit record whose fields are not the shape the views read is listed as damaged, and the
 *     rest of the log and both exports stay usable;
 *  4. an update accepted in another tab waits for an import running here: the document is kept;
 *  5. the messages say where the problem is: the host's file on a first visit, nothing stored yet
 *     when a first load goes offline.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cachedCopies, damageCached, openInFreshProfile, verified, type ProfileApp } from './profile.js';
import { serveDist, type StaticServer } from './static-server.js';

const DIST = resolve('dist');
const MODEL_ID = (JSON.parse(readFileSync(join(DIST, 'static-index', 'manifest.json'), 'utf8')) as { model: { id: string } }).model.id;
const overrides = new Map<string, Buffer | null>();
let server: StaticServer;
let app: ProfileApp | null = null;

beforeAll(async () => {
  server = await serveDist(DIST, {}, overrides);
});
afterEach(async () => {
  overrides.clear();
  await app?.close();
  app = null;
});
afterAll(async () => {
  await server?.close();
});

async function addDocument(page: Page, doc: { title: string; edition: string; text: string; file?: string }): Promise<void> {
  await page.getByTestId('userdoc-file').setInputFiles({ name: doc.file ?? 'manual.txt', mimeType: 'text/plain', buffer: Buffer.from(doc.text) });
  await page.getByTestId('userdoc-title').fill(doc.title);
  await page.getByTestId('userdoc-jurisdiction').fill('DE');
  await page.getByTestId('userdoc-edition').fill(doc.edition);
  await page.getByTestId('userdoc-add').click();
}

const editionsOf = (page: Page, title: string) =>
  page
    .getByTestId('userdoc')
    .filter({ hasText: title })
    .evaluateAll((els) => els.map((e) => /· (\d{4}) ·/.exec(e.textContent ?? '')?.[1] ?? '?').sort());

describe('1. two tabs, one title', () => {
  it('keeps both documents when two tabs add one with the same title, and each tab sees the other’s additions and removals', async () => {
    app = await openInFreshProfile(server.url, { hash: '#/library' });
    const a = app.page;
    // tab B is open from before A adds anything
    const b = await app.newTab('#/library');
    await b.getByTestId('userdoc-none').waitFor({ timeout: 60_000 });

    await addDocument(a, { title: 'Operations manual', edition: '2024', text: 'Operations manual\n\nEdition 2024: batteries are stored in the red locker.' });
    await a.getByTestId('userdoc-done').waitFor({ timeout: 120_000 });
    await addDocument(b, { title: 'Operations manual', edition: '2025', text: 'Operations manual\n\nEdition 2025: batteries are stored in the blue locker.' });
    await b.getByTestId('userdoc-done').waitFor({ timeout: 120_000 });

    // what is stored: both, after a reload
    await a.reload();
    await verified(a);
    await expect.poll(() => editionsOf(a, 'Operations manual'), { timeout: 60_000 }).toEqual(['2024', '2025']);
    // tab B, never reloaded, lists A's document too
    await expect.poll(() => editionsOf(b, 'Operations manual'), { timeout: 60_000 }).toEqual(['2024', '2025']);

    // a removal in A reaches B
    await a.getByTestId('userdoc').filter({ hasText: '2024' }).getByTestId('userdoc-remove').click();
    await a
      .getByTestId('userdoc-done')
      .filter({ hasText: /Removed/ })
      .waitFor({ timeout: 60_000 });
    await expect.poll(() => editionsOf(b, 'Operations manual'), { timeout: 60_000 }).toEqual(['2025']);
    await b.reload();
    await verified(b);
    await expect.poll(() => editionsOf(b, 'Operations manual'), { timeout: 60_000 }).toEqual(['2025']);
  });
});

describe('2. every cached model and tokenizer file is verified before use', () => {
  it.each(['tokenizer.json', 'onnx/model_quantized.onnx'])(
    'replaces a damaged %s in transformers.js’ own cache online, without the user, and the index verifies',
    async (file) => {
      app = await openInFreshProfile(server.url, { offlineReady: true });
      const path = `/models/${MODEL_ID}/${file}`;
      expect(await damageCached(app.page, `^${path}$`, { cacheName: '^transformers-cache$' })).toHaveLength(1);
      expect(await cachedCopies(app.page, path)).toMatchObject({ 'transformers-cache': false });
      await app.page.reload();
      await verified(app.page, 120_000);
      const copies = await cachedCopies(app.page, path);
      expect(Object.values(copies).every(Boolean), JSON.stringify(copies)).toBe(true);
    },
  );

  it('does not use a model damaged mid-file in both caches: both copies are replaced by verified ones', async () => {
    app = await openInFreshProfile(server.url, { offlineReady: true });
    const path = `/models/${MODEL_ID}/onnx/model_quantized.onnx`;
    const damaged = await damageCached(app.page, `^${path}$`, { how: 'middle' });
    expect(damaged.some((d) => d.startsWith('transformers-cache '))).toBe(true);
    expect(damaged.some((d) => d.startsWith('workbox-precache-v2-'))).toBe(true);
    await app.page.reload();
    await verified(app.page, 120_000);
    const copies = await cachedCopies(app.page, path);
    expect(
      Object.keys(copies).some((n) => n.startsWith('workbox-precache-v2-')),
      JSON.stringify(copies),
    ).toBe(true);
    expect(Object.values(copies).every(Boolean), JSON.stringify(copies)).toBe(true);
  });

  it('Settings → Repair offline copy repairs a damaged file in transformers.js’ cache, and the index loads after it', async () => {
    app = await openInFreshProfile(server.url, { offlineReady: true });
    const path = `/models/${MODEL_ID}/tokenizer.json`;
    expect(await damageCached(app.page, `^${path}$`, { cacheName: '^transformers-cache$' })).toHaveLength(1);
    await app.page.evaluate(() => (location.hash = '#/settings'));
    await app.page.getByTestId('storage-repair').click();
    await app.page.getByTestId('storage-repair-status').and(app.page.locator('[data-phase="done"]')).waitFor({ timeout: 180_000 });
    const copies = await cachedCopies(app.page, path);
    expect(Object.values(copies).every(Boolean), JSON.stringify(copies)).toBe(true);
    await app.page.reload();
    await verified(app.page, 120_000);
  });
});

describe('3. the audit log reads only records of the shape its views read', () => {
  it('lists records with route: [], requirements: [], a route without confidence or calculator: [] as damaged; the others and both exports stay usable', async () => {
    app = await openInFreshProfile(server.url, { hash: '#/settings' });
    const page = app.page;
    await page.getByTestId('audit-count').waitFor({ timeout: 60_000 });
    await page.evaluate(async () => {
      const valid = {
        id: 'good-1',
        time: '2026-01-01T10:00:00.000Z',
        question: 'What is the SAIL of my operation?',
        subQueries: [],
        retrievalConfig: {},
        trace: [],
        evidence: [{ id: 'c1', score: 0.5 }],
        context: '[c1] text',
        modelId: null,
        modelParams: null,
        answer: 'SAIL II, from Table 7.',
        citedSources: ['c1'],
        grounding: null,
        reasoning: null,
        mode: 'evidence-only',
        indexManifestSha: 'abc',
      };
      const records = [
        valid,
        { ...valid, id: 'bad-route', time: '2026-01-01T10:01:00.000Z', route: [] },
        { ...valid, id: 'bad-requirements', time: '2026-01-01T10:02:00.000Z', kind: 'requirements', requirements: [] },
        { ...valid, id: 'bad-confidence', time: '2026-01-01T10:03:00.000Z', route: { path: 'rules', reasoning: 'x', jurisdictions: [] } },
        { ...valid, id: 'bad-calculator', time: '2026-01-01T10:04:00.000Z', calculator: [] },
      ];
      const db = await new Promise<IDBDatabase>((ok, fail) => {
        const r = indexedDB.open('skycite-user');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      await new Promise<void>((ok, fail) => {
        const tx = db.transaction('audit', 'readwrite');
        for (const rec of records) tx.objectStore('audit').put(rec);
        tx.oncomplete = () => ok();
        tx.onerror = () => fail(tx.error);
      });
      db.close();
    });
    await page.reload();
    await verified(page);
    await page
      .getByTestId('audit-count')
      .filter({ hasText: /^\s*1 record\b/ })
      .waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('audit-item').count()).resolves.toBe(1);
    const damaged = page.getByTestId('audit-damaged');
    await expect(damaged.textContent()).resolves.toMatch(/4 damaged records/);
    for (const id of ['bad-route', 'bad-requirements', 'bad-confidence', 'bad-calculator']) await expect(damaged.textContent()).resolves.toContain(id);
    // the record opens (the view reads every field it shows)
    await page.getByTestId('audit-item').locator('summary').click();
    await expect(page.getByTestId('audit-item').textContent()).resolves.toContain('SAIL II');
    // both exports work and hold the one readable record
    for (const button of ['audit-export', 'audit-export-md']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(button).click()]);
      const text = readFileSync((await download.path())!, 'utf8');
      expect(text, button).toContain('SAIL II');
      expect(text, button).not.toContain('bad-route');
    }
    await expect(page.locator('.notice.error').count()).resolves.toBe(0);
  });
});

describe('4. an update and an import in two tabs', () => {
  it('an update accepted in another tab waits for the import running here: the document is kept', async () => {
    app = await openInFreshProfile(server.url, { hash: '#/library', offlineReady: true });
    const a = app.page;
    const b = await app.newTab('');
    // a new deployment: a changed service worker (same files)
    overrides.set('/sw.js', Buffer.concat([readFileSync(join(DIST, 'sw.js')), Buffer.from('\n// next version\n')]));
    await a.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    await a.getByTestId('update-banner').waitFor({ timeout: 120_000 });
    await b.getByTestId('update-banner').waitFor({ timeout: 30_000 });

    // a document long enough that its import runs for a while
    const sections = Array.from(
      { length: 40 },
      (_, i) =>
        `Section ${i + 1}: maintenance step ${i + 1}\n\n` +
        `The maintenance crew inspects propeller set ${i + 1} before every flight, records the blade condition in the log, ` +
        `replaces any blade with a crack or a chip, and checks that the motor mount screws are tightened to the torque the manufacturer gives. `.repeat(4),
    );
    await addDocument(a, { title: 'Long maintenance manual', edition: '2025', text: sections.join('\n\n'), file: 'long.txt' });
    await a
      .getByTestId('userdoc-busy')
      .filter({ hasText: /Embedding/ })
      .waitFor({ timeout: 120_000 });
    await a.evaluate(() => ((window as unknown as { beforeUpdate: boolean }).beforeUpdate = true));
    await b.getByTestId('update-reload').click();

    // this tab reloads into the new version only once its import is stored
    await a.waitForFunction(() => !(window as unknown as { beforeUpdate?: boolean }).beforeUpdate, null, { timeout: 400_000 });
    await verified(a);
    await a.getByTestId('userdoc').filter({ hasText: 'Long maintenance manual' }).waitFor({ timeout: 60_000 });
    await b
      .getByTestId('reload-notice')
      .filter({ hasText: /updated/ })
      .waitFor({ timeout: 60_000 });
  });
});

describe('5. messages say where the problem is', () => {
  it('blames a malformed index manifest served on a first visit on the host’s file, not on this device', async () => {
    overrides.set('/static-index/manifest.json', Buffer.from('{"formatVersion": 1, "sources": [ broken'));
    app = await openInFreshProfile(server.url, { verify: false });
    const status = app.page.getByTestId('index-status');
    await status.filter({ hasText: /Index not available/ }).waitFor({ timeout: 120_000 });
    const visible = await status.evaluate((el) => {
      const c = el.cloneNode(true) as HTMLElement;
      c.querySelectorAll('details').forEach((d) => d.remove());
      return c.textContent ?? '';
    });
    expect(visible).toMatch(/server|host/i);
    expect(visible).not.toMatch(/stored on this device|on this device (?:failed|is damaged)/);
  });

  it('an offline first load says that nothing is stored on this device yet, not “working from stored data”', async () => {
    // no service worker can install: nothing is ever stored for offline use
    overrides.set('/sw.js', null);
    app = await openInFreshProfile(server.url);
    await app.context.setOffline(true);
    const online = app.page.getByTestId('online-status');
    await online.filter({ hasText: /Offline/ }).waitFor({ timeout: 30_000 });
    const text = (await online.textContent()) ?? '';
    expect(text).not.toMatch(/working from stored data/);
    expect(text).toMatch(/nothing .*stored/i);
  });
});
