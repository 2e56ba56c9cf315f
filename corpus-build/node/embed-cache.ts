/**
 * An on-disk cache of sentence embeddings for repeated index builds: vectors are
 * keyed by SHA-256 of (model file hash, text), so a rebuild embeds only the texts
 * it has not seen with this exact model. Lives under `.cache/` (never committed;
 * CI builds from scratch). A missing, truncated or foreign cache file is ignored.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder, EmbedRole } from '../../src/core/embedding/embedder.js';

const KEY_BYTES = 32;

export function cachedEmbedder(inner: Embedder, file: string, modelSha: string): Embedder & { save(): void; stats(): { hits: number; misses: number } } {
  const dim = inner.dimension;
  const record = KEY_BYTES + dim * 4;
  const cache = new Map<string, Float32Array>();
  if (existsSync(file)) {
    const buf = readFileSync(file);
    if (buf.byteLength % record === 0) {
      for (let off = 0; off < buf.byteLength; off += record) {
        const key = buf.subarray(off, off + KEY_BYTES).toString('hex');
        const v = new Float32Array(dim);
        new Uint8Array(v.buffer).set(buf.subarray(off + KEY_BYTES, off + record));
        cache.set(key, v);
      }
    }
  }
  let hits = 0;
  let misses = 0;
  let dirty = false;
  // a query is embedded with another prompt than a passage (EmbeddingGemma): its key says so; passage keys are unchanged
  const keyOf = (text: string, role: EmbedRole) => {
    const h = createHash('sha256').update(modelSha).update('\u0000');
    if (role === 'query') h.update('query\u0000');
    return h.update(text).digest('hex');
  };
  return {
    modelId: inner.modelId,
    dimension: dim,
    embedTokens: (t) => inner.embedTokens(t),
    dispose: () => inner.dispose?.() ?? Promise.resolve(),
    async embed(texts, role = 'document') {
      const keys = texts.map((t) => keyOf(t, role));
      const todo = [...new Set(keys.filter((k) => !cache.has(k)))];
      if (todo.length) {
        const firstText = new Map<string, string>();
        keys.forEach((k, i) => firstText.has(k) || firstText.set(k, texts[i]!));
        const vs = await inner.embed(
          todo.map((k) => firstText.get(k)!),
          role,
        );
        todo.forEach((k, i) => cache.set(k, vs[i]!));
        dirty = true;
      }
      misses += todo.length;
      hits += texts.length - todo.length;
      return keys.map((k) => Float32Array.from(cache.get(k)!));
    },
    save() {
      if (!dirty) return;
      const out = Buffer.alloc(cache.size * record);
      let off = 0;
      for (const [k, v] of cache) {
        Buffer.from(k, 'hex').copy(out, off);
        Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(out, off + KEY_BYTES);
        off += record;
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, out);
      renameSync(`${file}.tmp`, file);
      dirty = false;
    },
    stats: () => ({ hits, misses }),
  };
}
