/**
 * A second embedder's vector set (npm run index:vectors): built for an index, verified and
 * bound to it, and switched to in the runtime on the user's request — with progress, the
 * model's own gate, and no loss when anything is missing or corrupt.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../../corpus-build/build/pipeline.js';
import { buildVectorSet } from '../../corpus-build/build/vector-set.js';
import { loadIndexFromDir, loadVectorSetFromDir } from '../../corpus-build/node/index-fs.js';
import type { Embedder, EmbedRole } from '../../src/core/embedding/embedder.js';
import { IndexIntegrityError } from '../../src/core/index/manifest.js';
import { parseVectorSets, VECTOR_SETS_FILE, vectorSetDir } from '../../src/core/index/vector-set.js';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { DEFAULT_AGENT_CONFIG } from '../../src/core/agents/agents.js';
import type { DownloadProgress } from '../../src/runtime/types.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { repoRoot } from '../support/paths.js';
import { qaSampleEntry, qaSampleFile } from '../support/qa-sample.js';

const OTHER = 'test/other-embedder';

/** A second model: another width, and it records which role each text was embedded for. */
function otherEmbedder(roles: EmbedRole[] = []): Embedder {
  const inner = fakeEmbedder(48);
  return {
    ...inner,
    modelId: OTHER,
    dimension: 48,
    async embed(texts, role = 'document') {
      roles.push(...texts.map(() => role));
      return inner.embed(texts);
    },
  };
}

async function builtIndex(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'skycite-vs-'));
  mkdirSync(path.join(dir, 'qa-sample'));
  cpSync(qaSampleFile, path.join(dir, 'qa-sample', 'qa-rules.sample.json'));
  const out = path.join(dir, 'static-index');
  await buildIndex({
    corpusDir: dir,
    cacheDir: path.join(dir, '.cache'),
    allowDownload: false,
    outDir: out,
    registry: [qaSampleEntry()],
    embedder: fakeEmbedder(),
    modelFile: qaSampleFile,
    modelDtype: 'fake',
    repoRoot,
    synthetic: false,
  });
  return out;
}

async function withVectorSet(): Promise<{ out: string; roles: EmbedRole[] }> {
  const out = await builtIndex();
  const roles: EmbedRole[] = [];
  await buildVectorSet({ index: await loadIndexFromDir(out), indexDir: out, embedder: otherEmbedder(roles), modelFile: qaSampleFile, modelDtype: 'fake' });
  return { out, roles };
}

const serve = (out: string) =>
  (async (url: string | URL) => {
    const file = path.join(out, new URL(String(url)).pathname.replace(/^\/static-index\//, ''));
    return existsSync(file) ? new Response(readFileSync(file)) : new Response('missing', { status: 404 });
  }) as typeof fetch;

const GATE = { enabled: true, by: 'dense' as const, minDense: -1, minRerank: -1 };

function runtimeOver(out: string, queryRoles: EmbedRole[] = [], extra: Partial<Parameters<typeof createInProcessRuntime>[0]> = {}) {
  return createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    fetchImpl: serve(out),
    gateFor: (id) => {
      if (id !== OTHER) throw new Error(`no gate for ${id}`);
      return GATE;
    },
    createEmbedder: async (_device, _opts, id, onProgress) => {
      if (id !== OTHER) return fakeEmbedder();
      onProgress?.({ file: 'onnx/model_quantized.onnx', loaded: 10, total: 10 });
      return otherEmbedder(queryRoles);
    },
    ...extra,
  });
}

describe('vector sets of another embedder', () => {
  it('embeds every text of the index as a passage, lists the set, and is read back with its own width', async () => {
    const { out, roles } = await withVectorSet();
    const base = await loadIndexFromDir(out);
    expect(roles.length).toBe(base.chunks.length * 2 + base.windows.count + base.documents.vectors.length / base.manifest.dimension);
    expect(new Set(roles)).toEqual(new Set(['document']));
    const sets = parseVectorSets(readFileSync(path.join(out, VECTOR_SETS_FILE), 'utf8'));
    expect(sets).toEqual([{ id: OTHER, dir: vectorSetDir(OTHER), bytes: expect.any(Number) }]);
    const view = await loadVectorSetFromDir(base, OTHER, out);
    expect(view.manifest.dimension).toBe(48);
    expect(view.manifest.model.id).toBe(OTHER);
    expect(view.vectors.length).toBe(base.chunks.length * 48);
    expect(view.windows.vectors.length).toBe(base.windows.count * 48);
    // the text side is the index's own
    expect(view.chunks).toBe(base.chunks);
    expect(view.bm25).toBe(base.bm25);
  });

  it('survives an index rebuild in the folder, and refuses it once the chunks changed, naming the command', async () => {
    const { out } = await withVectorSet();
    // same build again: kept, still bound
    await buildIndex({
      corpusDir: path.dirname(out),
      cacheDir: path.join(path.dirname(out), '.cache'),
      allowDownload: false,
      outDir: out,
      registry: [qaSampleEntry()],
      embedder: fakeEmbedder(),
      modelFile: qaSampleFile,
      modelDtype: 'fake',
      repoRoot,
      synthetic: false,
    });
    expect(existsSync(path.join(out, VECTOR_SETS_FILE))).toBe(true);
    await expect(loadVectorSetFromDir(await loadIndexFromDir(out), OTHER, out)).resolves.toBeTruthy();
    // a set whose binding does not match the loaded index
    const setManifest = path.join(out, vectorSetDir(OTHER), 'vectorset.json');
    const m = JSON.parse(readFileSync(setManifest, 'utf8'));
    m.boundTo['chunks.json'] = '0'.repeat(64);
    writeFileSync(setManifest, JSON.stringify(m));
    const err = await loadVectorSetFromDir(await loadIndexFromDir(out), OTHER, out).catch((e) => e);
    expect(err).toBeInstanceOf(IndexIntegrityError);
    const loaded = (await loadIndexFromDir(out)).manifest.artifacts['chunks.json']!.sha256;
    // the file, both SHA-256s and the command
    expect(err.message).toMatch(
      new RegExp(
        `built for another index: it names chunks\\.json SHA-256 0{64}, the index loaded has ${loaded}\\. .*npm run index:vectors -- --model test/other-embedder`,
      ),
    );
  });

  it('refuses a corrupted vector file with its name and the command that rebuilds it', async () => {
    const { out } = await withVectorSet();
    const f = path.join(out, vectorSetDir(OTHER), 'vectors.f32');
    const bytes = readFileSync(f);
    bytes[5] = bytes[5]! ^ 0xff;
    writeFileSync(f, bytes);
    const err = await loadVectorSetFromDir(await loadIndexFromDir(out), OTHER, out).catch((e) => e);
    expect(err).toBeInstanceOf(IndexIntegrityError);
    expect(err.message).toMatch(/vectors\.f32 does not match .*vector set of test\/other-embedder.*npm run index:vectors/);
  });
});

describe('switching the retrieval model in the runtime', () => {
  it('offers the set, downloads it with progress, retrieves with the other model (queries as queries), and switches back', async () => {
    const { out } = await withVectorSet();
    const queryRoles: EmbedRole[] = [];
    const rt = runtimeOver(out, queryRoles);
    const status = await rt.init({ denseBackend: 'exact' });
    expect(status.retrievalModel).toMatchObject({ id: 'fake/bag-of-words', state: 'default' });
    const offered = await rt.retrievalModels();
    expect(offered.map((m) => [m.id, m.builtIn, m.active])).toEqual([
      ['fake/bag-of-words', true, true],
      [OTHER, false, false],
    ]);
    expect(offered[1]!.downloadBytes).toBeGreaterThan(0);
    const progress: DownloadProgress[] = [];
    const switched = await rt.useRetrievalModel(OTHER, (p) => progress.push(p));
    expect(switched).toMatchObject({ id: OTHER, state: 'on', device: 'wasm' });
    expect(progress.some((p) => p.file.includes(vectorSetDir(OTHER)))).toBe(true);
    expect(progress.some((p) => p.file === 'onnx/model_quantized.onnx')).toBe(true);
    const r = await rt.retrieve('flying at night');
    expect(queryRoles).toEqual(['query']);
    expect(r.config.gate).toEqual(GATE);
    expect((await rt.retrievalModels()).find((m) => m.id === OTHER)!.active).toBe(true);
    const back = await rt.useRetrievalModel(null);
    expect(back).toMatchObject({ id: 'fake/bag-of-words', state: 'default' });
    await rt.retrieve('flying at night');
    expect(queryRoles).toEqual(['query']);
  });

  it('loads the downloaded model on WebGPU on a real adapter (falling back to WASM when that fails), on WASM on a software one; threads set once before any model', async () => {
    const { out } = await withVectorSet();
    const HARDWARE = { available: true, software: false, name: 'nvidia · ampere', unavailableReason: null };
    const SOFTWARE = { ...HARDWARE, software: true, name: 'google · swiftshader' };
    const run = async (probe: typeof HARDWARE, failWebGpu = false) => {
      const devices: string[] = [];
      const applied: number[] = [];
      const rt = runtimeOver(out, [], {
        probeAdapter: async () => probe,
        timeEmbedding: async () => 1,
        threadEnvironment: { crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency: 8 },
        applyThreads: (n) => applied.push(n),
        createEmbedder: async (device, _opts, id) => {
          devices.push(`${id === OTHER ? 'other' : 'built-in'}:${device}`);
          if (id !== OTHER) return fakeEmbedder();
          if (device === 'webgpu' && failWebGpu) throw new Error('device lost');
          return otherEmbedder();
        },
      });
      const status = await rt.init({ denseBackend: 'exact' });
      expect(applied).toEqual([4]);
      expect(status.threads).toMatchObject({ threads: 4, isolated: true });
      return { switched: await rt.useRetrievalModel(OTHER), devices };
    };
    const gpu = await run(HARDWARE);
    expect(gpu.switched).toMatchObject({ device: 'webgpu', deviceReason: expect.stringMatching(/hardware WebGPU adapter/) });
    expect(gpu.devices.at(-1)).toBe('other:webgpu');
    const failed = await run(HARDWARE, true);
    expect(failed.switched).toMatchObject({ device: 'wasm', deviceReason: expect.stringMatching(/device lost/) });
    expect(failed.devices.slice(-2)).toEqual(['other:webgpu', 'other:wasm']);
    const soft = await run(SOFTWARE);
    expect(soft.switched).toMatchObject({ device: 'wasm', deviceReason: expect.stringMatching(/software/) });
    expect(soft.devices).toEqual(['built-in:wasm', 'other:wasm']);
  });

  it("runs the document agents with the active embedder's own choices, and the built-in ones after switching back", async () => {
    const { out } = await withVectorSet();
    const asked: (string | null)[] = [];
    const rt = runtimeOver(out, [], {
      agentConfigFor: (id) => {
        asked.push(id);
        return { ...DEFAULT_AGENT_CONFIG, hitPool: id === OTHER ? 7 : 20 };
      },
    });
    await rt.init({ denseBackend: 'exact' });
    const pool = async () => (await rt.retrieve('flying at night')).documents!.consulted[0]!.reason.match(/of the top (\d+) passages/)![1];
    expect(await pool()).toBe('20');
    await rt.useRetrievalModel(OTHER);
    expect(await pool()).toBe('7');
    await rt.useRetrievalModel(null);
    expect(await pool()).toBe('20');
    expect(asked).toContain(OTHER);
    expect(asked).toContain(null);
  });

  it('keeps the model it had, and says why, when the set is missing or the deployment has none', async () => {
    const { out } = await withVectorSet();
    const rt = runtimeOver(out);
    await rt.init({ denseBackend: 'exact' });
    const err = await rt.useRetrievalModel('test/not-built').catch((e) => e);
    expect(err.name).toBe('RetrievalModelError');
    expect(err.message).toMatch(/no vector set for test\/not-built.*Retrieval keeps using/);
    expect((await rt.retrieve('flying at night')).retrieval.evidence.length).toBeGreaterThan(0);

    const bare = runtimeOver(await builtIndex());
    await bare.init({ denseBackend: 'exact' });
    expect((await bare.retrievalModels()).map((m) => m.id)).toEqual(['fake/bag-of-words']);
  });

  /** A model folder manifest (tools/models/prepare_embedder.py) for OTHER, served at models/<id>/manifest.json. */
  function serveFolderManifest(out: string, onnxSha: string) {
    const dir = path.join(out, 'models', OTHER);
    mkdirSync(dir, { recursive: true });
    const files = {
      'config.json': { bytes: 1_000, sha256: 'a'.repeat(64) },
      'tokenizer.json': { bytes: 6_000_000, sha256: 'b'.repeat(64) },
      'tokenizer_config.json': { bytes: 8_000, sha256: 'c'.repeat(64) },
      'onnx/model_quantized.onnx': { bytes: 141_000_000, sha256: onnxSha },
    };
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ model: OTHER, files }));
    return 1_000 + 6_000_000 + 8_000 + 141_000_000;
  }
  const setManifestOf = (out: string) => JSON.parse(readFileSync(path.join(out, vectorSetDir(OTHER), 'vectorset.json'), 'utf8'));

  it("shows the download size of the build this site serves, from its model folder's manifest", async () => {
    const { out } = await withVectorSet();
    const modelBytes = serveFolderManifest(out, setManifestOf(out).model.sha256);
    const rt = runtimeOver(out, [], {
      // a gzip-encoded download: no length from the response (src/runtime/download-progress.ts)
      createEmbedder: async (_device, _opts, id, onProgress) => {
        if (id !== OTHER) return fakeEmbedder();
        onProgress?.({ file: 'onnx/model_quantized.onnx', loaded: 5, total: 0 });
        return otherEmbedder();
      },
    });
    await rt.init({ denseBackend: 'exact' });
    const setBytes = parseVectorSets(readFileSync(path.join(out, VECTOR_SETS_FILE), 'utf8'))[0]!.bytes;
    expect((await rt.retrievalModels()).find((m) => m.id === OTHER)!.downloadBytes).toBe(modelBytes + setBytes);
    const progress: DownloadProgress[] = [];
    await expect(rt.useRetrievalModel(OTHER, (p) => progress.push(p))).resolves.toMatchObject({ id: OTHER, state: 'on' });
    // the file's size from the folder's manifest
    expect(progress.find((p) => p.file === 'onnx/model_quantized.onnx')).toEqual({ file: 'onnx/model_quantized.onnx', loaded: 5, total: 141_000_000 });
  });

  it('refuses a vector set made with another build of the model before downloading it, naming the file, its SHA-256 and the command', async () => {
    const { out } = await withVectorSet();
    serveFolderManifest(out, 'f'.repeat(64));
    const loaded: string[] = [];
    const rt = runtimeOver(out, [], {
      createEmbedder: async (_device, _opts, id) => {
        loaded.push(id);
        return id === OTHER ? otherEmbedder() : fakeEmbedder();
      },
    });
    await rt.init({ denseBackend: 'exact' });
    const err = await rt.useRetrievalModel(OTHER).catch((e) => e);
    expect(err.name).toBe('RetrievalModelError');
    expect(err.message).toMatch(
      new RegExp(
        `onnx/model_quantized\\.onnx SHA-256 ${setManifestOf(out).model.sha256.slice(0, 16)}.*ffffffffffffffff.*npm run index:vectors -- --model test/other-embedder.*Retrieval keeps using`,
      ),
    );
    expect(loaded).not.toContain(OTHER);
    expect((await rt.retrievalModels()).find((m) => m.builtIn)!.active).toBe(true);
    expect((await rt.retrieve('flying at night')).retrieval.evidence.length).toBeGreaterThan(0);
  });

  it('keeps the built-in model when a set file is corrupt (a failed download)', async () => {
    const { out } = await withVectorSet();
    writeFileSync(path.join(out, vectorSetDir(OTHER), 'window-vectors.i8'), 'truncated');
    const rt = runtimeOver(out);
    await rt.init({ denseBackend: 'exact' });
    const err = await rt.useRetrievalModel(OTHER).catch((e) => e);
    expect(err.name).toBe('RetrievalModelError');
    expect(err.message).toMatch(/window-vectors\.i8 .*Retrieval keeps using/);
    expect((await rt.retrievalModels()).find((m) => m.builtIn)!.active).toBe(true);
  });
});
