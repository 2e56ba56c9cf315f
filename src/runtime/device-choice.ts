/**
 * Which device the query embedding runs on. WebGPU is only worth it on a real GPU: a software
 * adapter (SwiftShader, llvmpipe — what headless or GPU-less browsers offer) runs MiniLM many times
 * slower than WASM. So, with `device: 'auto'`:
 *  - no adapter → WASM;
 *  - a fallback or software adapter → WASM, without loading the model on WebGPU at all;
 *  - a hardware adapter → both are loaded and timed on the same warm embedding, and the faster
 *    one is kept (the other is disposed).
 * `?device=webgpu|wasm` forces one. The choice carries its reason for the status line and Settings.
 */
import type { Embedder } from '../core/embedding/embedder.js';

export type EmbeddingDevice = 'webgpu' | 'wasm';

export interface AdapterProbe {
  /** An adapter was returned. */
  readonly available: boolean;
  /** The browser flags it as a fallback adapter, or its name says it is a software rasteriser. */
  readonly software: boolean;
  /** Vendor · architecture · description, as the browser discloses them ('' when it does not). */
  readonly name: string;
  /** Why there is no adapter (null when there is one). */
  readonly unavailableReason: string | null;
}

export interface DeviceChoice {
  readonly device: EmbeddingDevice;
  /** True when `?device=` decided. */
  readonly forced: boolean;
  /** One short clause for the status line ("software WebGPU adapter"). */
  readonly reason: string;
  /** The full explanation for Settings. */
  readonly detail: string;
  /** The adapter's name, when there is one. */
  readonly adapter: string | null;
  /** Median time of a warm query embedding on each device, when both were measured. */
  readonly warmupMs?: { readonly webgpu: number; readonly wasm: number };
}

/** Names of software rasterisers behind WebGPU adapters. */
export const SOFTWARE_ADAPTER_NAME = /swift\s*shader|llvmpipe|lavapipe|softpipe|software|microsoft basic render|\bwarp\b/i;

interface GpuAdapterInfoish {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}
interface Gpuish {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<{ info?: GpuAdapterInfoish; isFallbackAdapter?: boolean } | null>;
}

/** Ask the browser for a WebGPU adapter (never a device) and say whether it is a software one. */
export async function probeAdapter(nav: { gpu?: Gpuish } | undefined = globalThis.navigator as { gpu?: Gpuish } | undefined): Promise<AdapterProbe> {
  const none = (why: string): AdapterProbe => ({ available: false, software: false, name: '', unavailableReason: why });
  if (!nav?.gpu || typeof nav.gpu.requestAdapter !== 'function') return none('this browser offers no WebGPU');
  let adapter: Awaited<ReturnType<Gpuish['requestAdapter']>>;
  try {
    adapter = await nav.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return none(`WebGPU refused an adapter (${(e as Error).message})`);
  }
  if (!adapter) return none('WebGPU offers no adapter');
  const info = adapter.info ?? {};
  const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' · ');
  const software = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter) || SOFTWARE_ADAPTER_NAME.test(name);
  return { available: true, software, name, unavailableReason: null };
}

/** A short question of the usual length, embedded to time each device. */
export const WARMUP_TEXT = 'Which SAIL applies to a final GRC of 4 with a residual ARC of c, and which OSOs follow?';

/** Median time of `runs` embeddings of the warm-up text after one untimed run (shader compilation, first allocation). */
export async function timeWarmEmbedding(embedder: Pick<Embedder, 'embed'>, runs = 3, now: () => number = () => performance.now()): Promise<number> {
  await embedder.embed([WARMUP_TEXT]);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = now();
    await embedder.embed([WARMUP_TEXT]);
    times.push(now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export interface ChooseDeviceInput {
  readonly requested: 'auto' | EmbeddingDevice;
  readonly probe: () => Promise<AdapterProbe>;
  readonly make: (device: EmbeddingDevice) => Promise<Embedder>;
  /** Time a warm embedding (default {@link timeWarmEmbedding}). */
  readonly time?: (embedder: Embedder) => Promise<number>;
}

const ms = (v: number): string => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

/** Choose the device, load the embedder on it, and say why. */
export async function chooseDevice(input: ChooseDeviceInput): Promise<{ embedder: Embedder; choice: DeviceChoice }> {
  const { requested, make } = input;
  if (requested === 'wasm') {
    return {
      embedder: await make('wasm'),
      choice: { device: 'wasm', forced: true, reason: 'forced by ?device=wasm', detail: 'The page address asks for WASM (?device=wasm).', adapter: null },
    };
  }
  const probe = await input.probe();
  const adapter = probe.available ? probe.name || 'adapter not named by the browser' : null;
  if (requested === 'webgpu') {
    // forced: fail loudly rather than fall back
    return {
      embedder: await make('webgpu'),
      choice: {
        device: 'webgpu',
        forced: true,
        reason: 'forced by ?device=webgpu',
        detail: `The page address asks for WebGPU (?device=webgpu)${probe.software ? '; this adapter is a software fallback, so expect slow searches' : ''}.`,
        adapter,
      },
    };
  }
  if (!probe.available) {
    return {
      embedder: await make('wasm'),
      choice: { device: 'wasm', forced: false, reason: 'no WebGPU adapter', detail: `WASM: ${probe.unavailableReason ?? 'no WebGPU adapter'}.`, adapter: null },
    };
  }
  if (probe.software) {
    return {
      embedder: await make('wasm'),
      choice: {
        device: 'wasm',
        forced: false,
        reason: 'the WebGPU adapter is software',
        detail: `WASM: the WebGPU adapter (${adapter}) is a software fallback, which runs the embedding model far slower than WASM. ?device=webgpu forces it.`,
        adapter,
      },
    };
  }
  const time = input.time ?? ((e: Embedder) => timeWarmEmbedding(e));
  let gpu: Embedder;
  try {
    gpu = await make('webgpu');
  } catch (e) {
    return {
      embedder: await make('wasm'),
      choice: {
        device: 'wasm',
        forced: false,
        reason: 'WebGPU failed to load',
        detail: `WASM: the model could not be loaded on WebGPU (${(e as Error).message}).`,
        adapter,
      },
    };
  }
  const gpuMs = await time(gpu);
  const cpu = await make('wasm');
  const cpuMs = await time(cpu);
  const warmupMs = { webgpu: gpuMs, wasm: cpuMs };
  if (gpuMs <= cpuMs) {
    void cpu.dispose?.();
    return {
      embedder: gpu,
      choice: {
        device: 'webgpu',
        forced: false,
        reason: `faster: ${ms(gpuMs)} vs ${ms(cpuMs)} on WASM`,
        detail: `WebGPU (${adapter}): a warm query embedding took ${ms(gpuMs)} on WebGPU and ${ms(cpuMs)} on WASM.`,
        adapter,
        warmupMs,
      },
    };
  }
  void gpu.dispose?.();
  return {
    embedder: cpu,
    choice: {
      device: 'wasm',
      forced: false,
      reason: `faster: ${ms(cpuMs)} vs ${ms(gpuMs)} on WebGPU`,
      detail: `WASM: a warm query embedding took ${ms(cpuMs)} on WASM and ${ms(gpuMs)} on WebGPU (${adapter}).`,
      adapter,
      warmupMs,
    },
  };
}

export interface RetrievalModelDeviceInput {
  /** The page's `?device=` (RuntimeOptions.device). */
  readonly requested: 'auto' | EmbeddingDevice;
  /** The WebGPU adapter as probed at start (null: not probed, e.g. when WASM was forced). */
  readonly probe: AdapterProbe | null;
  /**
   * The onnxruntime-web build the worker loaded with its first session (ort-files.ts): only the
   * `webgpu` (asyncify) build has the WebGPU execution provider, and the build cannot change later.
   */
  readonly ortBuild: EmbeddingDevice | null;
}

/**
 * The device for a downloaded retrieval model (EmbeddingGemma): WebGPU only on a real, non-fallback
 * adapter (adapter.info.isFallbackAdapter, the older adapter.isFallbackAdapter, or a software
 * rasteriser's name: SwiftShader runs it far slower than WASM), and only when the worker's ONNX
 * Runtime build has WebGPU; WASM otherwise. `?device=` forces either.
 */
export function retrievalModelDevice(input: RetrievalModelDeviceInput): { device: EmbeddingDevice; reason: string } {
  const { requested, probe, ortBuild } = input;
  if (requested === 'wasm') return { device: 'wasm', reason: 'forced by ?device=wasm' };
  if (requested === 'webgpu') return { device: 'webgpu', reason: 'forced by ?device=webgpu' };
  if (!probe?.available) return { device: 'wasm', reason: probe?.unavailableReason ?? 'no WebGPU adapter' };
  if (probe.software) return { device: 'wasm', reason: 'the WebGPU adapter is a software fallback' };
  if (ortBuild !== 'webgpu') return { device: 'wasm', reason: "this worker's ONNX Runtime was started without WebGPU" };
  return { device: 'webgpu', reason: `hardware WebGPU adapter${probe.name ? ` (${probe.name})` : ''}` };
}
