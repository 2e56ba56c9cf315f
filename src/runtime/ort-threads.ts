/**
 * How many threads onnxruntime-web runs the retrieval models with: the built-in embedder, the
 * grounding check (the same embedder), the cross-encoder reranker and a downloaded retrieval model
 * (EmbeddingGemma) all load through transformers.js in the runtime worker, into one ONNX Runtime
 * instance whose thread count is fixed when its first session is created. So it is set once, here,
 * before the first model loads.
 *
 * Threads need SharedArrayBuffer, which browsers grant only to a cross-origin isolated page (the
 * server, or the service worker on a static host, sends COOP `same-origin` and COEP `require-corp`;
 * docs/deployment.md). Isolated: min(4, hardwareConcurrency) threads — onnxruntime-web's own default
 * would be half the cores (1 on a 2-core tablet). Not isolated: 1 thread, and Settings says why.
 */

/** More threads than this gain little for models of this size and take cores from the page. */
export const MAX_ORT_THREADS = 4;

export interface ThreadEnvironment {
  /** `crossOriginIsolated` of the global (the worker's: it inherits the page's isolation). */
  readonly crossOriginIsolated: boolean;
  /** `typeof SharedArrayBuffer !== 'undefined'`. */
  readonly sharedArrayBuffer: boolean;
  /** navigator.hardwareConcurrency (undefined where the browser does not say). */
  readonly hardwareConcurrency: number | undefined;
  /** `isSecureContext` (https or localhost): browsers isolate only secure pages. Absent: assumed secure. */
  readonly secureContext?: boolean;
}

export interface OrtThreading {
  /** Threads onnxruntime-web runs the models with (1: single-threaded). */
  readonly threads: number;
  /** Whether the page (and so the worker) is cross-origin isolated. */
  readonly isolated: boolean;
  /** True when `?threads=N` decided. */
  readonly forced: boolean;
  /** One line for Settings. */
  readonly line: string;
}

/** What this global offers (the runtime worker's, in the app). */
export function threadEnvironment(g: typeof globalThis = globalThis): ThreadEnvironment {
  const hc = (g as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return {
    crossOriginIsolated: (g as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    sharedArrayBuffer: typeof (g as { SharedArrayBuffer?: unknown }).SharedArrayBuffer === 'function',
    hardwareConcurrency: typeof hc === 'number' && Number.isFinite(hc) && hc > 0 ? Math.floor(hc) : undefined,
    secureContext: (g as { isSecureContext?: boolean }).isSecureContext !== false,
  };
}

const SINGLE_WHY_NOT_ISOLATED = 'single-threaded — this server does not send the cross-origin isolation headers (COOP/COEP; docs/deployment.md)';

/**
 * The thread count for `env` (`requested`: 'auto', or a count from `?threads=N` for measurements —
 * still 1 without isolation, which threads cannot work without).
 */
export function chooseOrtThreads(env: ThreadEnvironment, requested: 'auto' | number = 'auto'): OrtThreading {
  const isolated = env.crossOriginIsolated && env.sharedArrayBuffer;
  if (!isolated) {
    return {
      threads: 1,
      isolated: false,
      forced: false,
      line: env.crossOriginIsolated
        ? 'single-threaded — this browser offers no SharedArrayBuffer, which threads need'
        : env.secureContext === false
          ? 'single-threaded — the page is not served over https (or from localhost), and browsers isolate only such pages (docs/deployment.md)'
          : SINGLE_WHY_NOT_ISOLATED,
    };
  }
  if (requested !== 'auto' && Number.isInteger(requested) && requested >= 1) {
    const n = Math.min(requested, 16);
    return {
      threads: n,
      isolated: true,
      forced: true,
      line: `${n === 1 ? 'single-threaded' : `${n} threads`} (cross-origin isolated; ?threads=${requested} in the address)`,
    };
  }
  const cores = env.hardwareConcurrency;
  const n = Math.max(1, Math.min(MAX_ORT_THREADS, cores ?? 1));
  return {
    threads: n,
    isolated: true,
    forced: false,
    line:
      n === 1
        ? `single-threaded (cross-origin isolated, but the browser reports ${cores === undefined ? 'no core count' : 'one core'})`
        : `${n} threads (cross-origin isolated${cores !== undefined && cores > n ? `; ${cores} cores, at most ${MAX_ORT_THREADS} used` : ''})`,
  };
}

/** onnxruntime-web's environment as transformers.js exposes it (`env.backends.onnx`). */
export interface OnnxEnvLike {
  wasm?: { numThreads?: number };
}

/**
 * Set the thread count on onnxruntime-web's environment. Takes effect when the first session is
 * created (later changes are ignored by ONNX Runtime); no-op where there is no WASM backend (Node
 * runs onnxruntime-node, which picks its own threads).
 */
export function applyOrtThreads(onnx: OnnxEnvLike | undefined, threads: number): boolean {
  if (!onnx?.wasm) return false;
  onnx.wasm.numThreads = threads;
  return true;
}
