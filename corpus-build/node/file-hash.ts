/** SHA-256 of a file on disk. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * The file's SHA-256 (hex), read in 8 MiB parts: model files (GGUF, ONNX) run to gigabytes, which
 * a whole-file read holds in memory at once (and Node's readFileSync refuses past 2 GiB).
 */
export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const part of createReadStream(path, { highWaterMark: 8 * 1024 * 1024 })) h.update(part as Buffer);
  return h.digest('hex');
}
