/**
 * Model download progress counted from the response bodies (src/runtime/download-progress.ts),
 * so transformers.js needs no progress callback (with one it downloads every file twice).
 */
import { describe, expect, it } from 'vitest';
import { watchDownloads, type FetchHolder } from '../../src/runtime/download-progress.js';
import type { DownloadProgress } from '../../src/runtime/types.js';

const body = new Uint8Array(10_000).map((_, i) => i % 251);

function holder(headers: Record<string, string> = { 'content-length': String(body.byteLength) }) {
  const calls: string[] = [];
  const h: FetchHolder = {
    fetch: async (input) => {
      calls.push(String(input));
      return new Response(body, { status: 200, headers });
    },
  };
  return { h, calls };
}

describe('model download progress', () => {
  it('reports each file under a watched folder as its body is read, with the bytes passed through unchanged', async () => {
    const { h, calls } = holder();
    const watch = watchDownloads(h);
    const seen: DownloadProgress[] = [];
    const stop = watch('/models/google/embeddinggemma-300m/', (p) => seen.push(p));
    const res = await h.fetch('http://localhost:4173/models/google/embeddinggemma-300m/onnx/model_quantized.onnx');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(body);
    expect(calls).toHaveLength(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.file === 'onnx/model_quantized.onnx' && p.total === body.byteLength)).toBe(true);
    expect(seen.at(-1)!.loaded).toBe(body.byteLength);
    stop();
    const before = seen.length;
    await (await h.fetch('/models/google/embeddinggemma-300m/tokenizer.json')).arrayBuffer();
    expect(seen.length).toBe(before);
  });

  it('leaves other files alone and gives no total for an encoded body (its length is not the bytes read)', async () => {
    const { h } = holder({ 'content-length': '123', 'content-encoding': 'gzip' });
    const seen: DownloadProgress[] = [];
    watchDownloads(h)('/models/a/', (p) => seen.push(p));
    const other = await h.fetch('/models/b/config.json');
    await other.arrayBuffer();
    expect(seen).toEqual([]);
    await (await h.fetch(new URL('http://localhost/models/a/tokenizer.json'))).arrayBuffer();
    expect(seen.at(-1)).toEqual({ file: 'tokenizer.json', loaded: body.byteLength, total: 0 });
  });
});
