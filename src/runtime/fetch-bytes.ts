/** Fetching the static index's files, with errors that say what to do. */
import { RuntimeError } from './errors.js';

/** Offline before the first full load, or a missing file: say which and what to do. */
export class IndexFetchError extends RuntimeError {
  override name = 'IndexFetchError';
  override readonly code = 'index-fetch';
  constructor(
    message: string,
    /** The server's HTTP status, or null when no answer came (offline, the network failed). */
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const absoluteUrl = (path: string, base: string): string => new URL(path, base).href;

export async function fetchBytes(url: string, via: typeof fetch): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await via(url);
  } catch (e) {
    throw new IndexFetchError(
      `Could not fetch ${url} (${(e as Error).message}). If you are offline, SkyCite needs one complete load while online before it works offline; reconnect and reload.`,
      null,
      { cause: e },
    );
  }
  if (!res.ok)
    throw new IndexFetchError(
      `Fetching ${url} failed with HTTP ${res.status}. The deployment is incomplete: redeploy static-index/ as built by npm run index.`,
      res.status,
    );
  return new Uint8Array(await res.arrayBuffer());
}
