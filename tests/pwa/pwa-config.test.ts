import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ICONS, NAVY, renderIcon, WHITE } from '../../tools/icons/make-icons.js';
import { crc32, encodePng, PNG_SIGNATURE } from '../../tools/icons/png.js';
import { MAX_PRECACHE_FILE_BYTES, precacheGlobPatterns, skyCitePwaOptions, VECTOR_SET_CACHE, WEBLLM_JS_CACHE } from '../../src/pwa/pwa-config.js';
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
      re += `(?:${glob.slice(i + 1, end).split(',').map((s) => s.replace(/[.]/g, '\\.')).join('|')})`;
      i = end;
    } else re += /[.+?^$()|[\]\\]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${re}$`);
}
const ignored = (file: string) => (skyCitePwaOptions().workbox?.globIgnores ?? []).some((g) => globToRegExp(g).test(file));
const precached = (file: string) => !ignored(file) && precacheGlobPatterns().some((g) => globToRegExp(g).test(file));

describe('vite-plugin-pwa options', () => {
  const o = skyCitePwaOptions();

  it('generateSW, prompt, registration left to workbox-window', () => {
    expect(o.strategies).toBe('generateSW');
    expect(o.registerType).toBe('prompt');
    expect(o.injectRegister).toBe(false);
    expect(o.filename).toBe('sw.js');
    expect(o.workbox?.skipWaiting).toBe(false);
    expect(o.workbox?.clientsClaim).toBe(false);
    expect(o.workbox?.navigateFallback).toBe('index.html');
  });

  it('lists each file once: the plugin adds the manifest, the icons come from the glob only', () => {
    expect(o.includeManifestIcons).toBe(false);
    expect(precached('manifest.webmanifest')).toBe(false);
    expect(precached('icons/icon-512.png')).toBe(true);
  });

  it('precaches the shell, the static index, the embedding model, ORT and voy', () => {
    const g = o.workbox!.globPatterns!;
    expect(g).toEqual(precacheGlobPatterns());
    expect(g.some((p) => p.startsWith('static-index/') && p.endsWith('.json'))).toBe(true);
    expect(g.some((p) => p.startsWith('static-index/') && p.endsWith('.f32'))).toBe(true);
    expect(g.some((p) => p.startsWith('models/'))).toBe(true);
    expect(g.some((p) => p.startsWith('ort/'))).toBe(true);
    for (const f of [
      'index.html',
      'assets/index-AbCd1234.js',
      'assets/worker-XyZ98765.js',
      'assets/index-AbCd1234.css',
      'icons/icon-192.png',
      'icons/maskable-512.png',
      'static-index/manifest.json',
      'static-index/chunks.json',
      'static-index/bm25.json',
      'static-index/vectors.f32',
      'static-index/summary-vectors.f32',
      'models/sentence-transformers/all-MiniLM-L6-v2/config.json',
      'models/sentence-transformers/all-MiniLM-L6-v2/tokenizer.json',
      'models/sentence-transformers/all-MiniLM-L6-v2/tokenizer_config.json',
      'models/sentence-transformers/all-MiniLM-L6-v2/special_tokens_map.json',
      'models/sentence-transformers/all-MiniLM-L6-v2/onnx/model_quantized.onnx',
      'ort/ort-wasm-simd-threaded.jsep.mjs',
      'ort/ort-wasm-simd-threaded.jsep.wasm',
      'ort/ort-wasm-simd-threaded.mjs',
      'ort/ort-wasm-simd-threaded.wasm',
      'assets/voy_search_bg-Dk3x9QaZ.wasm',
    ]) {
      expect(precached(f), f).toBe(true);
    }
    // Not: the unused 90 MB fp32 model, the README of the index, source maps.
    expect(precached('models/sentence-transformers/all-MiniLM-L6-v2/onnx/model.onnx')).toBe(false);
    expect(precached('static-index/README.md')).toBe(false);
    expect(o.workbox!.globIgnores).toContain('**/*.map');
  });

  it('allows files of at least 30 MB (the ORT jsep wasm is ~28 MB)', () => {
    expect(o.workbox!.maximumFileSizeToCacheInBytes).toBe(MAX_PRECACHE_FILE_BYTES);
    expect(MAX_PRECACHE_FILE_BYTES).toBeGreaterThanOrEqual(30 * 1024 * 1024);
    const ortWasm = path.join(repoRoot, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm');
    if (existsSync(ortWasm)) expect(readFileSync(ortWasm).length).toBeLessThan(MAX_PRECACHE_FILE_BYTES);
  });

  it("leaves WebLLM's bundles out of the precache and caches them on this origin when a model is loaded", () => {
    expect(precached('assets/webllm-CECpFLTr.js')).toBe(false);
    expect(precached('assets/webllm-worker-CxfN5i-m.js')).toBe(false);
    expect(precached('assets/runtime.worker-jZZA3ZNW.js')).toBe(true);
    const rc = o.workbox!.runtimeCaching ?? [];
    expect(rc).toHaveLength(2);
    const route = rc.find((r) => r.options?.cacheName === WEBLLM_JS_CACHE)!;
    expect(route.handler).toBe('CacheFirst');
    expect(route.options?.cacheName).toBe(WEBLLM_JS_CACHE);
    // Settings' "delete models" treats it as model data
    expect(WEBLLM_JS_CACHE.startsWith('webllm/')).toBe(true);
    const re = route.urlPattern as RegExp;
    expect(re).toBeInstanceOf(RegExp);
    for (const u of ['https://skycite.example/assets/webllm-CECpFLTr.js', 'https://skycite.example/app/assets/webllm-worker-CxfN5i-m.js']) expect(re.test(u), u).toBe(true);
    for (const u of ['https://skycite.example/assets/index-ZAe8w4FN.js', 'https://skycite.example/assets/webllm-CECpFLTr.js.map', 'https://skycite.example/models/x/webllm-a.wasm']) expect(re.test(u), u).toBe(false);
    // Workbox matches a RegExp against another origin only from the URL's start: this pattern never can
    expect(re.exec('https://cdn.example/assets/webllm-a.js')!.index).toBeGreaterThan(0);
  });

  it('leaves the vector sets of optional retrieval models out of the precache and caches them network-first when downloaded', () => {
    expect(precached('static-index/vectors/google--embeddinggemma-300m/vectors.f32')).toBe(false);
    expect(precached('static-index/vector-sets.json')).toBe(true);
    const route = (o.workbox!.runtimeCaching ?? []).find((r) => r.options?.cacheName === VECTOR_SET_CACHE)!;
    expect(route.handler).toBe('NetworkFirst');
    const re = route.urlPattern as RegExp;
    expect(re.test('https://skycite.example/static-index/vectors/google--embeddinggemma-300m/vectorset.json')).toBe(true);
    expect(re.test('https://skycite.example/static-index/vector-sets.json')).toBe(true);
    expect(re.test('https://skycite.example/static-index/vectors.f32')).toBe(false);
    // Settings' "delete models" treats it as model data
    expect(VECTOR_SET_CACHE.startsWith('models/')).toBe(true);
  });

  it('has a complete manifest with any and maskable icons that exist in public/icons', () => {
    const m = o.manifest;
    expect(m).toBeTruthy();
    if (!m) return;
    expect(m.name).toBe('SkyCite');
    expect(m.short_name).toBeTruthy();
    expect(m.description).toBeTruthy();
    expect(m.display).toBe('standalone');
    expect(m.start_url).toBe('.');
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
