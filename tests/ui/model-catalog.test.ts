import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/llm/catalog.js';

const HERE = 'http://localhost:4173/';
const answer = (body: string, status: number, type: string): typeof fetch =>
  (async () => new Response(body, { status, headers: { 'Content-Type': type } })) as typeof fetch;

describe('the self-hosted model catalog on a server without one', () => {
  it('reads the app page a server answers for a missing /llm/manifest.json as "no self-hosted model", not a JSON parse error', async () => {
    const page = '<!doctype html><html><head><title>SkyCite</title></head></html>';
    const c = await loadCatalog(null, { locationHref: HERE, fetchImpl: answer(page, 200, 'text/html') });
    expect(c).toMatchObject({ models: [], origin: 'none', note: null });
    // the same page served with a wrong type is recognised too
    const c2 = await loadCatalog(null, { locationHref: HERE, fetchImpl: answer(page, 200, 'application/octet-stream') });
    expect(c2.note).toBeNull();
  });

  it('treats 404 as no catalog, and still reports a server error or a broken JSON manifest', async () => {
    expect((await loadCatalog(null, { locationHref: HERE, fetchImpl: answer('', 404, 'text/plain') })).note).toBeNull();
    expect((await loadCatalog(null, { locationHref: HERE, fetchImpl: answer('', 500, 'text/plain') })).note).toMatch(/HTTP 500/);
    expect((await loadCatalog(null, { locationHref: HERE, fetchImpl: answer('{"models": [', 200, 'application/json') })).note).toMatch(/not valid JSON/);
  });
});
