/** Hashing a model file streams it: a file larger than one read may hold still hashes (eval --rewrite <gguf>). */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256File } from '../../corpus-build/node/file-hash.js';

const dir = mkdtempSync(join(tmpdir(), 'skycite-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sha256File', () => {
  it('gives the SHA-256 of the bytes', async () => {
    const path = join(dir, 'small.bin');
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 31) % 256));
    writeFileSync(path, bytes);
    expect(await sha256File(path)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('hashes a file past 2 GiB (a whole-file read refuses it) without holding it in memory', async () => {
    const path = join(dir, 'large.gguf');
    writeFileSync(path, '');
    truncateSync(path, 2 ** 31 + 1); // sparse: 2 GiB + 1 zero bytes, no disk space used
    const rss = process.memoryUsage().rss;
    // SHA-256 of 2^31 + 1 zero bytes (`head -c 2147483649 /dev/zero | sha256sum`)
    expect(await sha256File(path)).toBe('b8030a8ab89280935633d8d991da3d9907c0f12e8b6fc3bfc515f4d440872b6e');
    expect(process.memoryUsage().rss - rss).toBeLessThan(512 * 1024 * 1024);
  }, 60_000);
});
