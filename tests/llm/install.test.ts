/**
 * The verified installer (src/llm/install.ts) and WebLLM's cache layout (src/llm/cache.ts):
 * download from the base URL and "Import model files", over an in-memory Cache Storage and
 * invented model files whose SHA-256 is computed here. Checks that only verified files
 * reach the caches, under the URLs WebLLM asks for, and that a wrong or incomplete set is
 * refused with a typed error that names the file and leaves what is cached untouched.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ModelFilesCorruptError, ModelImportError, ModelStorageQuotaError } from '../../src/core/llm/errors.js';
import { cacheTargets, deleteModelFromCache, isModelCached, WEBLLM_CACHE, type CacheLike, type CacheStorageLike } from '../../src/llm/cache.js';
import { downloadModel, importModel, pickImport, type ChosenFile } from '../../src/llm/install.js';
import { parseModelsManifest, type CuratedModel } from '../../src/llm/models.js';

const BASE = 'https://skycite.example/app/llm';
const DIR = 'Tiny-0.5B-Instruct-q4f32_1-SkyCite/resolve/main/';

/** Invented model files: path → bytes. */
const FILES: Record<string, Uint8Array> = {
  [`${DIR}mlc-chat-config.json`]: new TextEncoder().encode('{"model_type":"qwen2"}'),
  [`${DIR}ndarray-cache.json`]: new TextEncoder().encode('{"records":[{"dataPath":"params_shard_0.bin"}]}'),
  [`${DIR}params_shard_0.bin`]: new Uint8Array(Array.from({ length: 64 }, (_, i) => (i * 37) % 251)),
  [`${DIR}tokenizer.json`]: new TextEncoder().encode('{"model":{}}'),
  [`${DIR}LICENSE`]: new TextEncoder().encode('Apache-2.0'),
  'libs/Tiny-q4f32_1-webgpu.wasm': new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]),
};

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function manifest(files = FILES) {
  return {
    format: 'skycite-mlc-models/1',
    models: [
      {
        model_id: 'Tiny-0.5B-Instruct-q4f32_1-SkyCite',
        source_model: 'Tiny-0.5B-Instruct',
        quantization: 'q4f32_1',
        model_url: DIR,
        model_lib: 'libs/Tiny-q4f32_1-webgpu.wasm',
        required_features: [],
        vram_required_MB: 900,
        context_window_size: 4096,
        files: Object.entries(files).map(([path, b]) => ({ path, size: b.byteLength, sha256: sha(b) })),
      },
    ],
  };
}

const MODEL: CuratedModel = parseModelsManifest(manifest())[0]!;

/** Cache Storage in memory (bodies kept as bytes); counts puts. */
function memoryCaches(): CacheStorageLike & { dump(): Record<string, string[]>; puts: number } {
  const stores = new Map<string, Map<string, Uint8Array>>();
  const api = {
    puts: 0,
    async open(name: string): Promise<CacheLike> {
      let m = stores.get(name);
      if (!m) stores.set(name, (m = new Map()));
      const store = m;
      return {
        async match(url) {
          const b = store.get(url);
          return b ? new Response(b.slice()) : undefined;
        },
        async put(url, res) {
          api.puts++;
          store.set(url, new Uint8Array(await res.arrayBuffer()));
        },
        async delete(url) {
          return store.delete(url);
        },
        async keys() {
          return [...store.keys()].map((url) => ({ url }));
        },
      };
    },
    dump() {
      return Object.fromEntries([...stores].map(([k, v]) => [k, [...v.keys()].sort()] as const).filter(([, keys]) => keys.length > 0));
    },
  };
  return api;
}

function chosen(path: string, bytes: Uint8Array, folder = 'models-copy/'): ChosenFile {
  return {
    name: path.slice(path.lastIndexOf('/') + 1),
    size: bytes.byteLength,
    webkitRelativePath: folder + path,
    arrayBuffer: async () => bytes.slice().buffer,
  };
}
const folder = (files = FILES): ChosenFile[] => Object.entries(files).map(([p, b]) => chosen(p, b));

/** A fetch over FILES under BASE (optionally with one file altered), counting requests. */
function server(alter: Record<string, Uint8Array> = {}) {
  const requests: string[] = [];
  const fetchImpl = (async (url: string) => {
    requests.push(url);
    const path = url.slice(BASE.length + 1);
    const body = alter[path] ?? FILES[path];
    return body ? new Response(body.slice()) : new Response('not found', { status: 404 });
  }) as unknown as typeof fetch;
  return { fetchImpl, requests };
}

describe('WebLLM cache layout', () => {
  it('maps the files WebLLM reads to its caches under the URLs it requests, and leaves the others out', () => {
    const t = cacheTargets(MODEL, BASE);
    expect(t.map((x) => [x.cache, x.url])).toEqual([
      [WEBLLM_CACHE.config, `${BASE}/${DIR}mlc-chat-config.json`],
      [WEBLLM_CACHE.model, `${BASE}/${DIR}ndarray-cache.json`],
      [WEBLLM_CACHE.model, `${BASE}/${DIR}params_shard_0.bin`],
      [WEBLLM_CACHE.model, `${BASE}/${DIR}tokenizer.json`],
      [WEBLLM_CACHE.wasm, `${BASE}/libs/Tiny-q4f32_1-webgpu.wasm`],
    ]);
  });
});

describe('downloadModel (self-hosted, verified)', () => {
  it('stores every verified file where WebLLM reads it; a second run fetches nothing', async () => {
    const caches = memoryCaches();
    const { fetchImpl, requests } = server();
    const progress: number[] = [];
    const r = await downloadModel(MODEL, { baseUrl: BASE, caches, fetchImpl, onProgress: (p) => progress.push(p.progress) });
    expect(r.skippedBytes).toBe(0);
    expect(requests).toHaveLength(5); // LICENSE is not fetched: WebLLM never reads it
    expect(progress.at(-1)).toBe(1);
    expect(await isModelCached(MODEL, BASE, caches)).toBe(true);
    const again = await downloadModel(MODEL, { baseUrl: BASE, caches, fetchImpl });
    expect(requests).toHaveLength(5);
    expect(again.installedBytes).toBe(0);
  });

  it('a file that differs from the manifest: ModelFilesCorruptError naming it, that file not stored, others kept', async () => {
    const caches = memoryCaches();
    const { fetchImpl } = server({ [`${DIR}params_shard_0.bin`]: new Uint8Array(64) });
    const err = await downloadModel(MODEL, { baseUrl: BASE, caches, fetchImpl }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFilesCorruptError);
    expect((err as ModelFilesCorruptError).detail).toMatch(/params_shard_0\.bin: SHA-256 .* does not match/);
    expect(caches.dump()[WEBLLM_CACHE.model]).toEqual([`${BASE}/${DIR}ndarray-cache.json`]);
    expect(await isModelCached(MODEL, BASE, caches)).toBe(false);
  });

  it('refuses before downloading when the storage quota cannot hold the model', async () => {
    const caches = memoryCaches();
    const { fetchImpl, requests } = server();
    const err = await downloadModel(MODEL, { baseUrl: BASE, caches, fetchImpl, estimate: async () => ({ usage: 990, quota: 1000 }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelStorageQuotaError);
    expect((err as ModelStorageQuotaError).detail).toMatch(/allows 0\.0 MB more/);
    expect(requests).toHaveLength(0);
  });
});

describe('Import model files', () => {
  it('a complete folder (manifest layout) is verified and stored; the model is then cached, and deletable', async () => {
    const caches = memoryCaches();
    const match = pickImport([MODEL], folder(), BASE);
    const r = await importModel(match, { baseUrl: BASE, caches });
    expect(r.installedBytes).toBe(cacheTargets(MODEL, BASE).reduce((n, t) => n + t.file.size, 0));
    expect(await isModelCached(MODEL, BASE, caches)).toBe(true);
    expect(await deleteModelFromCache(MODEL, BASE, caches)).toBe(5);
    expect(await isModelCached(MODEL, BASE, caches)).toBe(false);
  });

  it('loose files chosen by name match too', async () => {
    const files = Object.entries(FILES).map(([p, b]) => ({ ...chosen(p, b), webkitRelativePath: '' }));
    const match = pickImport([MODEL], files, BASE);
    expect(match.missing).toEqual([]);
    await importModel(match, { baseUrl: BASE, caches: memoryCaches() });
  });

  it('an incomplete set is refused before anything is stored, listing what is missing', async () => {
    const { [`${DIR}params_shard_0.bin`]: _shard, 'libs/Tiny-q4f32_1-webgpu.wasm': _lib, ...rest } = FILES;
    const err = (() => {
      try {
        pickImport([MODEL], folder(rest), BASE);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(ModelImportError);
    expect((err as Error).message).toMatch(
      /incomplete or wrong set for Tiny-0\.5B-Instruct-q4f32_1-SkyCite \(missing: params_shard_0\.bin, Tiny-q4f32_1-webgpu\.wasm\)/,
    );
    expect((err as Error).message).toMatch(/Nothing was stored/);
  });

  it('a file of the wrong size is named; unrelated files are "not the files of any model"', () => {
    const files = folder();
    files[2] = { ...files[2]!, size: 3 };
    expect(() => pickImport([MODEL], files, BASE)).toThrow(/wrong size: params_shard_0\.bin/);
    expect(() => pickImport([MODEL], [chosen('holiday.jpg', new Uint8Array(5))], BASE)).toThrow(/not the files of any model/);
    expect(() => pickImport([MODEL], [], BASE)).toThrow(ModelImportError);
    expect(() => pickImport([], folder(), BASE)).toThrow(/Include manifest\.json/);
  });

  it('a damaged file (same size, other bytes): ModelImportError naming it; verified files stay, nothing else changes', async () => {
    const caches = memoryCaches();
    const damaged = { ...FILES, [`${DIR}tokenizer.json`]: new TextEncoder().encode('{"model":[]}') };
    const match = pickImport([MODEL], folder(damaged), BASE);
    const err = await importModel(match, { baseUrl: BASE, caches }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelImportError);
    expect((err as Error).message).toMatch(/tokenizer\.json: SHA-256/);
    expect(caches.dump()[WEBLLM_CACHE.model]).not.toContain(`${BASE}/${DIR}tokenizer.json`);
    // the retry with the right file stores only what is missing
    const puts = caches.puts;
    const r = await importModel(pickImport([MODEL], folder(), BASE), { baseUrl: BASE, caches });
    expect(caches.puts - puts).toBe(2); // tokenizer.json and the library (after it in order)
    expect(r.skippedBytes).toBeGreaterThan(0);
    expect(await isModelCached(MODEL, BASE, caches)).toBe(true);
  });
});
