/**
 * What the device offers for running a language model: WebGPU or not, the adapter's
 * identity, limits and features. Safe without WebGPU (returns webgpu: false with a reason)
 * and it never requests a device, only an adapter.
 */
import type { AdapterLimitsInfo } from './models.js';

/** The subset of WebGPU's GPUAdapter read here (TypeScript's DOM lib has no WebGPU types). */
export interface GpuAdapterLike {
  readonly features: { has(name: string): boolean; forEach?(cb: (value: string) => void): void } & Iterable<string>;
  readonly limits: Record<string, number | undefined> | object;
  readonly info?: GpuAdapterInfoLike;
  /** Deprecated location of the flag (older Chrome). */
  readonly isFallbackAdapter?: boolean;
  /** Deprecated (older Chrome): replaced by `info`. */
  requestAdapterInfo?(): Promise<GpuAdapterInfoLike>;
}

export interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

export interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

export interface NavigatorLike {
  gpu?: GpuLike;
  deviceMemory?: number;
  hardwareConcurrency?: number;
  userAgent?: string;
}

/** The limits WebLLM checks, plus two useful for diagnosis. */
export const REPORTED_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
] as const;
export type ReportedLimit = (typeof REPORTED_LIMITS)[number];

export interface AdapterReport extends AdapterLimitsInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
  hasShaderF16: boolean;
  limits: Partial<Record<ReportedLimit, number>>;
  maxComputeWorkgroupStorageSize: number;
}

export interface DeviceReport {
  webgpu: boolean;
  /** Why WebGPU cannot be used (null when it can). */
  reason: string | null;
  adapter: AdapterReport | null;
  /** navigator.deviceMemory (GB, rounded and capped at 8 by browsers), when exposed. */
  deviceMemoryGB: number | null;
  hardwareConcurrency: number | null;
  userAgent: string | null;
}

function readLimit(limits: object, name: string): number | undefined {
  // GPUSupportedLimits exposes its values as prototype getters: read them by name.
  const v = (limits as Record<string, unknown>)[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function featureList(features: GpuAdapterLike['features']): string[] {
  const out: string[] = [];
  try {
    for (const f of features) out.push(String(f));
  } catch {
    features.forEach?.((f) => out.push(String(f)));
  }
  return out.sort();
}

/**
 * Probe the device. `nav` defaults to the global navigator (absent in Node: reported as
 * no WebGPU). Requests an adapter with powerPreference 'high-performance', like WebLLM.
 */
export async function getDeviceReport(nav?: NavigatorLike | null): Promise<DeviceReport> {
  const n: NavigatorLike | undefined = nav ?? (globalThis as { navigator?: NavigatorLike }).navigator;
  const base = {
    deviceMemoryGB: typeof n?.deviceMemory === 'number' ? n.deviceMemory : null,
    hardwareConcurrency: typeof n?.hardwareConcurrency === 'number' ? n.hardwareConcurrency : null,
    userAgent: typeof n?.userAgent === 'string' ? n.userAgent : null,
  };
  const noGpu = (reason: string): DeviceReport => ({ webgpu: false, reason, adapter: null, ...base });

  if (!n || !n.gpu || typeof n.gpu.requestAdapter !== 'function') {
    return noGpu('This browser does not offer WebGPU (navigator.gpu is missing). Answers are given in evidence-only mode.');
  }
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await n.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return noGpu(`WebGPU refused to provide an adapter (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (!adapter) {
    return noGpu('WebGPU is present but no GPU adapter is available (blocklisted GPU, or disabled in the browser settings).');
  }

  let info: GpuAdapterInfoLike = adapter.info ?? {};
  if (!adapter.info && typeof adapter.requestAdapterInfo === 'function') {
    try {
      info = await adapter.requestAdapterInfo();
    } catch {
      info = {};
    }
  }
  const limits: Partial<Record<ReportedLimit, number>> = {};
  for (const name of REPORTED_LIMITS) {
    const v = readLimit(adapter.limits, name);
    if (v !== undefined) limits[name] = v;
  }
  const features = featureList(adapter.features);
  const report: AdapterReport = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    hasShaderF16: features.includes('shader-f16'),
    features,
    limits,
    maxBufferSize: limits.maxBufferSize ?? 0,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize ?? 0,
    maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize ?? 0,
  };
  if (limits.maxStorageBuffersPerShaderStage !== undefined) {
    report.maxStorageBuffersPerShaderStage = limits.maxStorageBuffersPerShaderStage;
  }
  return { webgpu: true, reason: null, adapter: report, ...base };
}
