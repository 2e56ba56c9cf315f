/**
 * Which generation models this device can run, and why not: Settings shows the ones it can run
 * as cards, and the others once, in one collapsed list grouped by reason (not a card each with a
 * disabled button).
 */
import { whyNotFits, type CuratedModel } from '../../llm/models';
import type { DeviceReport } from '../../llm/device';

/** Why `m` cannot run here, in words; null when it can. */
export function modelProblem(m: CuratedModel, device: Pick<DeviceReport, 'webgpu' | 'adapter' | 'deviceMemoryGB'> | null): string | null {
  if (!device?.webgpu) return 'Needs WebGPU, which this browser or device does not offer.';
  if (m.needsShaderF16 && !(device.adapter?.hasShaderF16 ?? false))
    return 'Needs 16-bit float shaders (shader-f16), which this GPU lacks: choose the q4f32_1 variant.';
  const why = whyNotFits(m, device.adapter ?? null, device.deviceMemoryGB ?? null);
  return why ? `Does not fit this device: ${why}.` : null;
}

export interface ModelGroups {
  /** Shown as cards: the models that can run here, and any already stored or loaded (so they can be used or deleted). */
  readonly cards: readonly CuratedModel[];
  /** The others, grouped by the reason they cannot run here, in the catalogue's order. */
  readonly unusable: readonly { readonly why: string; readonly models: readonly CuratedModel[] }[];
}

export function groupModels(models: readonly CuratedModel[], problem: (m: CuratedModel) => string | null, kept: (m: CuratedModel) => boolean): ModelGroups {
  const cards: CuratedModel[] = [];
  const byWhy = new Map<string, CuratedModel[]>();
  for (const m of models) {
    const why = problem(m);
    if (!why || kept(m)) cards.push(m);
    else byWhy.set(why, [...(byWhy.get(why) ?? []), m]);
  }
  return { cards, unusable: [...byWhy].map(([why, list]) => ({ why, models: list })) };
}
