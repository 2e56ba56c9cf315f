/**
 * Settings' words about the device: the memory the browser discloses, and what a model download
 * would mean on a software (fallback) WebGPU adapter.
 */
import { memoryBudgetMB, type AdapterLimitsInfo } from '../../llm/models';

/**
 * navigator.deviceMemory, said once and as the browser means it: a rounded-down power of two
 * (0.25 … 8 in most browsers, more in some), so "at least" that much, never the exact amount.
 */
export function memoryLine(gb: number | null): string {
  if (gb === null || !Number.isFinite(gb) || gb <= 0) return 'not disclosed by the browser';
  const amount = gb < 1 ? `${Math.round(gb * 1024)} MB` : `${gb} GB`;
  return `at least ${amount} (the browser's rounded figure)`;
}

export interface AdapterFacts {
  webgpu: boolean;
  adapter: { isFallbackAdapter?: boolean } | null;
}

/** True when the only WebGPU adapter is a software one (no GPU behind it). */
export const isSoftwareAdapter = (d: AdapterFacts | null | undefined): boolean => !!d?.webgpu && !!d.adapter?.isFallbackAdapter;

/** What a download would mean on a software adapter (null on a real GPU): shown above the model list. */
export function softwareAdapterNote(d: AdapterFacts | null | undefined): string | null {
  if (!isSoftwareAdapter(d)) return null;
  return 'This browser offers WebGPU only through a software adapter (no graphics processor behind it). A language model would run on the processor instead: loading it takes minutes and each answer can take many minutes, after a download of hundreds of megabytes or more. Evidence-only answers work fully without a model; a download here asks you to confirm first.';
}

/** Whether "Download and load" asks to confirm first: a download that is not on the device yet, on a software adapter. */
export const downloadNeedsConfirmation = (d: AdapterFacts | null | undefined, cached: boolean): boolean => isSoftwareAdapter(d) && !cached;

/** What Settings needs of the WebGPU adapter for its one plain line (src/llm/device.ts AdapterReport). */
export interface AdapterLineFacts extends AdapterLimitsInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
}

/**
 * The adapter in one plain line: its name, whether a graphics processor is behind it, and the size of
 * language model it is assumed to fit (src/llm/models.ts memoryBudgetMB; the browser does not disclose
 * GPU memory). The raw limits stay under "Technical details".
 */
export function adapterLine(a: AdapterLineFacts, deviceMemoryGB: number | null): string {
  const name = [a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' · ') || 'adapter not named by the browser';
  if (a.isFallbackAdapter) return `${name} — software (no graphics processor behind it): too slow for a language model`;
  const gb = memoryBudgetMB(a, deviceMemoryGB) / 1024;
  return `${name} — hardware: fits language models up to about ${gb < 10 ? gb.toFixed(1) : Math.round(gb)} GB of GPU memory`;
}

/**
 * Where search runs, in one plain sentence for Settings ("Search runs on this device's processor,
 * using 2 threads."). WebGPU/WASM, the `?device=`/`?threads=` switches and why it is single-threaded
 * stay under "Technical details".
 */
export function searchDeviceLine(device: 'webgpu' | 'wasm', threads: number): string {
  if (device === 'webgpu') return 'Search runs on the graphics processor.';
  return `Search runs on this device's processor, using ${threads > 1 ? `${threads} threads` : 'one thread'}.`;
}
