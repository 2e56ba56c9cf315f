/**
 * Download progress of model files, counted from the response bodies as transformers.js fetches
 * them. transformers.js's own progress callback is not used: with one, `from_pretrained` (and
 * `pipeline()`) first GET every file in full to learn its size — a same-origin path gets no Range
 * request — so each file was downloaded twice (bench:retrieval-model, `fetchedAgain`).
 */
import type { DownloadProgress } from './types.js';

/** What is wrapped: transformers.js's `env` (its `fetch` is the one every model file goes through). */
export interface FetchHolder {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
}

export type WatchDownloads = (prefix: string, onProgress: (p: DownloadProgress) => void) => () => void;

const urlOf = (input: RequestInfo | URL): string => (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);

/**
 * Wrap `holder.fetch` once; the returned function reports the files fetched under a URL path
 * prefix (e.g. `/models/google/embeddinggemma-300m/`) until its stop function is called. `file`
 * is the path after the prefix; `total` the Content-Length when the body is not encoded (a gzip
 * body's length is not the bytes read), else 0.
 */
export function watchDownloads(holder: FetchHolder): WatchDownloads {
  const watchers = new Map<string, (p: DownloadProgress) => void>();
  const inner = holder.fetch.bind(holder);
  holder.fetch = async (input, init) => {
    const res = await inner(input, init);
    if (!res.ok || !res.body || watchers.size === 0) return res;
    const path = new URL(urlOf(input), 'http://x/').pathname;
    for (const [prefix, onProgress] of watchers) {
      if (!path.startsWith(prefix)) continue;
      const file = path.slice(prefix.length);
      const encoding = res.headers.get('content-encoding');
      const total = encoding && encoding !== 'identity' ? 0 : Number(res.headers.get('content-length') ?? 0);
      let loaded = 0;
      const counted = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            loaded += chunk.byteLength;
            onProgress({ file, loaded, total });
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    return res;
  };
  return (prefix, onProgress) => {
    watchers.set(prefix, onProgress);
    return () => {
      if (watchers.get(prefix) === onProgress) watchers.delete(prefix);
    };
  };
}
