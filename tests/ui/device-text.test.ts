import { describe, expect, it } from 'vitest';
import { adapterLine, downloadNeedsConfirmation, memoryLine, searchDeviceLine, softwareAdapterNote } from '../../src/ui/settings/device-text.js';

describe("Settings' device words", () => {
  it('says the memory once, as the rounded lower bound the browser reports (no contradictory "16 GB, capped at 8")', () => {
    expect(memoryLine(16)).toBe("at least 16 GB (the browser's rounded figure)");
    expect(memoryLine(8)).not.toMatch(/capped/);
    expect(memoryLine(0.5)).toBe("at least 512 MB (the browser's rounded figure)");
    expect(memoryLine(null)).toBe('not disclosed by the browser');
  });

  it('explains a model download on a software WebGPU adapter and asks to confirm one not yet on the device', () => {
    const software = { webgpu: true, adapter: { isFallbackAdapter: true } };
    const gpu = { webgpu: true, adapter: { isFallbackAdapter: false } };
    expect(softwareAdapterNote(software)).toMatch(/software adapter.*minutes.*confirm/s);
    expect(softwareAdapterNote(gpu)).toBeNull();
    expect(softwareAdapterNote({ webgpu: false, adapter: null })).toBeNull();
    expect(downloadNeedsConfirmation(software, false)).toBe(true);
    expect(downloadNeedsConfirmation(software, true)).toBe(false); // already downloaded: loading it costs no download
    expect(downloadNeedsConfirmation(gpu, false)).toBe(false);
  });

  it('says the adapter in one plain line: name, software or hardware, and the model size it fits (no raw limits)', () => {
    const GB = 1024 * 1024 * 1024;
    const base = {
      vendor: 'nvidia',
      architecture: 'ampere',
      device: '',
      description: '',
      features: [],
      maxBufferSize: 2 * GB,
      maxStorageBufferBindingSize: 2 * GB,
    };
    expect(adapterLine({ ...base, isFallbackAdapter: false }, 8)).toBe('nvidia · ampere — hardware: fits language models up to about 4.0 GB of GPU memory');
    expect(adapterLine({ ...base, isFallbackAdapter: false }, null)).toMatch(/about 4\.0 GB/); // full limits, memory unknown: 4 GB assumed
    expect(adapterLine({ ...base, maxBufferSize: GB / 2, isFallbackAdapter: false }, null)).toMatch(/about 2\.0 GB/);
    const sw = adapterLine({ ...base, vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true }, 8);
    expect(sw).toBe('google · swiftshader — software (no graphics processor behind it): too slow for a language model');
    expect(adapterLine({ ...base, vendor: '', architecture: '', isFallbackAdapter: false }, 4)).toMatch(/^adapter not named by the browser — hardware/);
    expect(sw).not.toMatch(/maxBufferSize|\d{6,}/);
  });

  it('says where search runs in one plain sentence, without WASM, WebGPU or address switches', () => {
    expect(searchDeviceLine('wasm', 2)).toBe("Search runs on this device's processor, using 2 threads.");
    expect(searchDeviceLine('wasm', 1)).toBe("Search runs on this device's processor, using one thread.");
    expect(searchDeviceLine('webgpu', 4)).toBe('Search runs on the graphics processor.');
    for (const line of [searchDeviceLine('wasm', 1), searchDeviceLine('webgpu', 1)]) expect(line).not.toMatch(/WASM|WebGPU|\?device|\?threads/);
  });
});
