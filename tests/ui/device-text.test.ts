import { describe, expect, it } from 'vitest';
import { downloadNeedsConfirmation, memoryLine, softwareAdapterNote } from '../../src/ui/settings/device-text.js';

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
});
