import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ICONS, NAVY, renderIcon, WHITE } from '../../tools/icons/make-icons.js';
import { crc32, encodePng, PNG_SIGNATURE } from '../../tools/icons/png.js';
import { MAX_PRECACHE_FILE_BYTES, precacheGlobPatterns, skyCitePwaOptions, VECTOR_SET_CACHE, WEBLLM_JS_CACHE } from '../../src/pwa/pwa-config.js';
import { ORT_FILES } from '../../src/runtime/ort-files.js';
import { ARTIFACTS } from '../../src/core/index/manifest.js';
import { DEFAULT_EMBEDDER_ID } from '../../src/core/embedding/embedder.js';
import { embedderSpec } from '../../src/core/embedding/models.js';
import { repoRoot } from '../support/paths.js';

/** Minimal glob → RegExp for the patterns used (**, *, {a,b}). */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      re += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map((s) => s.replace(/[.]/g, '\\.'))
        .join('|')})`;
      i = end;
    } else re += /[.+?^$()|[\]\\]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${re}$`);
}
const ignored = (file: string) => (skyCitePwaOptions().workbox?.globIgnores ?? []).some((g) => globToRegExp(g).test(file));
const precachedWith = (patterns: string[]) => (file: string) => !ignored(file) && patterns.some((g) => globToRegExp(g).test(file));
const precached = precachedWith(precacheGlobPatterns());
/** What vite.config.ts precaches when the built index names the default embedder. */
const precachedFirstLoad = precachedWith(precacheGlobPatterns({ modelFolders: [DEFAULT_EMBEDDER_ID] }));
const sizeOf = (file: string) => statSync(file).size;

/** Files under `dir`, relative to it, with '/' separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

describe('the precache holds what the app loads offline', () => {
  const o = skyCitePwaOptions();

  it('the navigation fallback is the page the build emits, and is precached', () => {
    const fallback = o.workbox!.navigateFallback!;
    expect(existsSync(path.join(repoRoot, fallback)), `${fallback} (Vite's entry page)`).toBe(true);
    expect(precached(fallback)).toBe(true);
  });

  it('lists each file once: the plugin adds the manifest, the icons come from the glob only', () => {
    expect(o.includeManifestIcons).toBe(false);
    expect(precached('manifest.webmanifest')).toBe(false);
    for (const f of readdirSync(path.join(repoRoot, 'public/icons'))) expect(precached(`icons/${f}`), f).toBe(true);
  });

  it('every file the index loader reads is precached under static-index/; the vector-set list and the sets are not (network first)', () => {
    for (const name of ['manifest.json', ...Object.values(ARTIFACTS)]) expect(precached(`static-index/${name}`), name).toBe(true);
    // not the index's README, nor an optional model's vector set (downloaded on request), nor their
    // list (it may change after a build; a precached copy would fail the install's integrity check)
    expect(precached('static-index/README.md')).toBe(false);
    expect(precached('static-index/vectors/google--embeddinggemma-300m/vectors.f32')).toBe(false);
    expect(precached('static-index/vector-sets.json')).toBe(false);
  });

  const manifestPath = path.join(repoRoot, 'static-index/manifest.json');
  it.skipIf(!existsSync(manifestPath))(
    'every artifact the built index lists exists and is precached within the size limit (skipped: no static index built; npm run index)',
    () => {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { artifacts: Record<string, unknown>; model?: { id?: string } };
      const names = Object.keys(manifest.artifacts);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        const file = path.join(repoRoot, 'static-index', name);
        expect(existsSync(file), file).toBe(true);
        expect(precached(`static-index/${name}`), name).toBe(true);
        expect(sizeOf(file), name).toBeLessThanOrEqual(MAX_PRECACHE_FILE_BYTES);
      }
    },
  );

  it("the first load's embedding model: every file the embedder fetches is in public/, precached and within the size limit", () => {
    const spec = embedderSpec(DEFAULT_EMBEDDER_ID);
    expect(spec.files.length).toBeGreaterThan(0);
    for (const f of spec.files) {
      const url = `models/${DEFAULT_EMBEDDER_ID}/${f}`;
      const file = path.join(repoRoot, 'public', url);
      expect(existsSync(file), file).toBe(true);
      expect(precachedFirstLoad(url), url).toBe(true);
      expect(precached(url), url).toBe(true);
      expect(sizeOf(file), url).toBeLessThanOrEqual(MAX_PRECACHE_FILE_BYTES);
    }
    // the unused fp32 weights (≈ 90 MB) would be left out
    expect(precached(`models/${DEFAULT_EMBEDDER_ID}/onnx/model.onnx`)).toBe(false);
  });

  it('ONNX Runtime: every file the runtime loads exists where the build copies it from, is precached under ort/ and within the size limit', () => {
    expect(ORT_FILES.length).toBeGreaterThan(0);
    for (const f of ORT_FILES) {
      const file = path.join(repoRoot, 'node_modules/onnxruntime-web/dist', f);
      expect(existsSync(file), file).toBe(true);
      expect(precached(`ort/${f}`), f).toBe(true);
      // Workbox leaves a larger file out of the precache (a build warning), and the offline app without it
      expect(sizeOf(file), f).toBeLessThanOrEqual(MAX_PRECACHE_FILE_BYTES);
    }
  });

  it('no file of public/ that the first load precaches is over the size limit (Workbox would leave it out)', () => {
    const publicDir = path.join(repoRoot, 'public');
    const files = filesUnder(publicDir).filter((f) => !f.startsWith('ort/') && precachedFirstLoad(f));
    expect(files.length).toBeGreaterThanOrEqual(5); // the icons and the embedder at least
    const over = files.filter((f) => sizeOf(path.join(publicDir, f)) > MAX_PRECACHE_FILE_BYTES);
    expect(over).toEqual([]);
  });

  it("the shell's hashed assets (named by the build) match, source maps and the worker script do not", () => {
    for (const f of ['assets/index-AbCd1234.js', 'assets/worker-XyZ98765.js', 'assets/index-AbCd1234.css', 'assets/voy_search_bg-Dk3x9QaZ.wasm']) {
      expect(precached(f), f).toBe(true);
    }
    for (const f of ['assets/index-AbCd1234.js.map', o.filename!]) expect(precached(f), f).toBe(false);
  });

  it("leaves WebLLM's bundles out of the precache and caches them on this origin when a model is loaded", () => {
    expect(precached('assets/webllm-CECpFLTr.js')).toBe(false);
    expect(precached('assets/webllm-worker-CxfN5i-m.js')).toBe(false);
    expect(precached('assets/runtime.worker-jZZA3ZNW.js')).toBe(true);
    const route = (o.workbox!.runtimeCaching ?? []).find((r) => r.options?.cacheName === WEBLLM_JS_CACHE);
    expect(route?.handler).toBe('CacheFirst');
    // Settings' "delete models" treats it as model data
    expect(WEBLLM_JS_CACHE.startsWith('webllm/')).toBe(true);
    const re = route!.urlPattern as RegExp;
    expect(re).toBeInstanceOf(RegExp);
    for (const u of ['https://skycite.example/assets/webllm-CECpFLTr.js', 'https://skycite.example/app/assets/webllm-worker-CxfN5i-m.js'])
      expect(re.test(u), u).toBe(true);
    for (const u of [
      'https://skycite.example/assets/index-ZAe8w4FN.js',
      'https://skycite.example/assets/webllm-CECpFLTr.js.map',
      'https://skycite.example/models/x/webllm-a.wasm',
    ])
      expect(re.test(u), u).toBe(false);
    // Workbox matches a RegExp against another origin only from the URL's start: this pattern never can
    expect(re.exec('https://cdn.example/assets/webllm-a.js')!.index).toBeGreaterThan(0);
  });

  it('caches the vector sets of optional retrieval models network-first when downloaded', () => {
    const route = (o.workbox!.runtimeCaching ?? []).find((r) => r.options?.cacheName === VECTOR_SET_CACHE);
    expect(route?.handler).toBe('NetworkFirst');
    const re = route!.urlPattern as RegExp;
    expect(re.test('https://skycite.example/static-index/vectors/google--embeddinggemma-300m/vectorset.json')).toBe(true);
    expect(re.test('https://skycite.example/static-index/vector-sets.json')).toBe(true);
    expect(re.test('https://skycite.example/static-index/vectors.f32')).toBe(false);
    // Settings' "delete models" treats it as model data
    expect(VECTOR_SET_CACHE.startsWith('models/')).toBe(true);
  });

  it('is installable: names, a standalone display, and any and maskable icons of 192 and 512 px that exist in public/', () => {
    const m = o.manifest;
    expect(m).toBeTruthy();
    if (!m) return;
    expect(m.name).toBeTruthy();
    expect(m.short_name).toBeTruthy();
    expect(['standalone', 'fullscreen', 'minimal-ui']).toContain(m.display);
    expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    const icons = m.icons ?? [];
    for (const size of ['192x192', '512x512']) {
      expect(icons.some((i) => i.sizes === size && i.purpose === 'any')).toBe(true);
      expect(icons.some((i) => i.sizes === size && i.purpose === 'maskable')).toBe(true);
    }
    for (const i of icons) {
      const file = path.join(repoRoot, 'public', i.src);
      expect(existsSync(file), `${file} (run: npx tsx tools/icons/make-icons.ts)`).toBe(true);
      const png = readFileSync(file);
      expect(png.readUInt32BE(16)).toBe(Number(i.sizes!.split('x')[0]));
      expect(precached(i.src), i.src).toBe(true);
    }
  });
});

/** WCAG relative luminance contrast ratio. */
function contrast(a: readonly number[], b: readonly number[]): number {
  const lum = (c: readonly number[]) => {
    const [r, g, b2] = c.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('PNG encoder and icons', () => {
  it('writes a valid PNG (signature, IHDR, CRCs, inflatable IDAT)', () => {
    const w = 3;
    const h = 2;
    const rgba = new Uint8Array(w * h * 4).map((_, i) => (i * 37) % 256);
    const png = encodePng(w, h, rgba);
    expect([...png.subarray(0, 8)]).toEqual([...PNG_SIGNATURE]);
    const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
    let o = 8;
    const chunks: string[] = [];
    let idat: Uint8Array = new Uint8Array(0);
    while (o < png.length) {
      const len = view.getUint32(o);
      const type = String.fromCharCode(...png.subarray(o + 4, o + 8));
      chunks.push(type);
      expect(view.getUint32(o + 8 + len), `CRC of ${type}`).toBe(crc32(png, o + 4, o + 8 + len));
      if (type === 'IHDR') {
        expect(view.getUint32(o + 8)).toBe(w);
        expect(view.getUint32(o + 12)).toBe(h);
        expect(png[o + 16]).toBe(8);
        expect(png[o + 17]).toBe(6);
      }
      if (type === 'IDAT') idat = png.subarray(o + 8, o + 8 + len);
      o += 12 + len;
    }
    expect(chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    const raw = inflateSync(idat);
    expect(raw.length).toBe(h * (1 + w * 4));
    expect([...raw.subarray(1, 1 + w * 4)]).toEqual([...rgba.subarray(0, w * 4)]);
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(/RGBA bytes/);
  });

  it('renders a high-contrast glyph; maskable is full-bleed, "any" has transparent corners', () => {
    expect(contrast(WHITE, NAVY)).toBeGreaterThan(7);
    const size = 48;
    const px = (img: Uint8Array, x: number, y: number) => [...img.subarray((y * size + x) * 4, (y * size + x) * 4 + 4)];
    const mask = renderIcon(size, { maskable: true, supersample: 2 });
    expect(px(mask, 0, 0)).toEqual([...NAVY, 255]);
    expect(px(mask, size / 2, size / 2)).toEqual([...WHITE, 255]);
    const any = renderIcon(size, { maskable: false, supersample: 2 });
    expect(px(any, 0, 0)[3]).toBe(0);
    expect(px(any, size / 2, size / 2)).toEqual([...WHITE, 255]);
    expect(ICONS.filter((i) => i.maskable).length).toBeGreaterThan(0);
  });
});

describe('model folders in the first load', () => {
  it('precaches only the named model folders when they are given', () => {
    const only = precacheGlobPatterns({ modelFolders: ['skycite/minilm-skycite', 'skycite/reranker-minilm'] }).map(globToRegExp);
    const hit = (f: string) => only.some((r) => r.test(f));
    expect(hit('models/skycite/minilm-skycite/onnx/model_quantized.onnx')).toBe(true);
    expect(hit('models/skycite/minilm-skycite/tokenizer.json')).toBe(true);
    expect(hit('models/skycite/reranker-minilm/onnx/model_quantized.onnx')).toBe(true);
    expect(hit('models/sentence-transformers/all-MiniLM-L6-v2/onnx/model_quantized.onnx')).toBe(false);
    expect(hit('models/sentence-transformers/all-MiniLM-L6-v2/tokenizer.json')).toBe(false);
  });
});
