/** Settings lists the models this device can run as cards, and the others once, grouped by why (issue 35, item 9). */
import { describe, expect, it } from 'vitest';
import { CURATED_MODELS } from '../../src/core/model-catalog';
import { groupModels, modelProblem } from '../../src/ui/settings/model-fit';

describe('the models this device can run', () => {
  it('says why a model cannot run: no WebGPU, no 16-bit shaders', () => {
    const m = CURATED_MODELS[0]!;
    expect(modelProblem(m, null)).toMatch(/Needs WebGPU/);
    expect(modelProblem(m, { webgpu: false, adapter: null, deviceMemoryGB: null })).toMatch(/Needs WebGPU/);
    const f16 = CURATED_MODELS.find((x) => x.needsShaderF16);
    if (f16) expect(modelProblem(f16, { webgpu: true, adapter: null, deviceMemoryGB: null })).toMatch(/shader-f16/);
  });

  it('keeps as cards the models that can run and those stored or loaded; groups the others by reason, in catalogue order', () => {
    const [a, b, c, d] = CURATED_MODELS;
    const why = new Map([
      [b!.id, 'Needs WebGPU.'],
      [c!.id, 'Does not fit this device: too large.'],
      [d!.id, 'Needs WebGPU.'],
    ]);
    const g = groupModels(
      [a!, b!, c!, d!],
      (m) => why.get(m.id) ?? null,
      (m) => m.id === c!.id,
    );
    expect(g.cards.map((m) => m.id)).toEqual([a!.id, c!.id]);
    expect(g.unusable).toEqual([{ why: 'Needs WebGPU.', models: [b, d] }]);
  });
});
