/**
 * Where a broken index file is (issue 36, item 5): the runtime says whether the file that failed came
 * from this device's stored copy (Cache Storage holds exactly those bytes) or from the server (a first
 * visit: nothing stored), as data on its error, so the page never blames the device for the host's file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { IndexSourceError, problemSource } from '../../src/runtime/errors.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

const BROKEN = '{"formatVersion": 1, "sources": [ broken';

/** A fetch serving the fixture index with a malformed manifest. */
async function brokenManifest(): Promise<typeof fetch> {
  const served = await servedIndex();
  return (async (url: string | URL) => (new URL(String(url)).pathname.endsWith('/manifest.json') ? new Response(BROKEN) : served(url))) as typeof fetch;
}

const runtime = async (fetchImpl: typeof fetch) =>
  createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    createEmbedder: async () => fakeEmbedder(),
    fetchImpl,
    userDocStore: null,
  });

const g = globalThis as { caches?: unknown };
afterEach(() => {
  delete g.caches;
});

describe('a malformed index manifest', () => {
  it('is the host’s file when nothing is stored on this device (a first visit)', async () => {
    const rt = await runtime(await brokenManifest());
    const err = await rt.init({ denseBackend: 'exact' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexSourceError);
    expect(problemSource(err)).toBe('host');
    // the developer's detail is kept
    expect((err as Error).message).toMatch(/manifest is not valid JSON/);
  });

  it('is this device’s copy when the offline copy holds exactly those bytes', async () => {
    g.caches = {
      match: async (url: string) => (new URL(url).pathname.endsWith('/manifest.json') ? new Response(BROKEN) : undefined),
    };
    const rt = await runtime(await brokenManifest());
    const err = await rt.init({ denseBackend: 'exact' }).catch((e: unknown) => e);
    expect(problemSource(err)).toBe('device');
  });
});
