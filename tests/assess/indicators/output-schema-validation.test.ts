/** The single-indicator JSON contract: schema validation and robust parsing of model output. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractFirstJsonObject, INDICATOR_NAMES, INDICATOR_OUTPUT_SCHEMAS, parseIndicatorOutput } from '../../../src/core/indicators/index.js';
import { createAjv, GENERATED_VALIDATORS_PATH, generateValidatorsSource } from '../../../tools/generate-validators.js';

const good = { name: 'initial_ground_risk_orientation', value: 'low', explanation: 'Sparsely populated [a/b].' };

describe('parseIndicatorOutput', () => {
  it('accepts a valid object', () => {
    const r = parseIndicatorOutput(JSON.stringify(good), 'initial_ground_risk_orientation');
    expect(r).toEqual({ ok: true, output: good, normalized: false });
  });

  it('rejects another indicator than the one requested', () => {
    const r = parseIndicatorOutput(JSON.stringify({ ...good, name: 'initial_air_risk_orientation' }), 'initial_ground_risk_orientation');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('schema');
    expect(r.message).toMatch(/name must be "initial_ground_risk_orientation".*got "initial_air_risk_orientation"/);
  });

  it('rejects a value outside the allowed set and lists the allowed values', () => {
    const r = parseIndicatorOutput(JSON.stringify({ ...good, value: 'moderate' }), 'initial_ground_risk_orientation');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/very_low, low, medium, high, undetermined.*"moderate"/);
  });

  it('rejects extra keys (e.g. a second indicator)', () => {
    const r = parseIndicatorOutput(JSON.stringify({ ...good, sail: 'II' }), 'initial_ground_risk_orientation');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/unexpected key "sail"/);
  });

  it('rejects a missing or empty explanation', () => {
    expect(parseIndicatorOutput(JSON.stringify({ name: good.name, value: 'low' }), 'initial_ground_risk_orientation').ok).toBe(false);
    expect(parseIndicatorOutput(JSON.stringify({ ...good, explanation: '  ' }), 'initial_ground_risk_orientation').ok).toBe(false);
  });

  it('takes the first JSON object out of prose, code fences and reasoning blocks', () => {
    const raw = `<think>maybe {"name": "x"}</think>Here is the result:\n\`\`\`json\n${JSON.stringify({ ...good, explanation: 'Braces } and "quotes" in text.' })}\n\`\`\`\nHope this helps {not json}.`;
    const r = parseIndicatorOutput(raw, 'initial_ground_risk_orientation');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.output.explanation).toBe('Braces } and "quotes" in text.');
  });

  it('reports output without JSON and malformed JSON', () => {
    expect(parseIndicatorOutput('I cannot provide an answer for this question', 'sail')).toMatchObject({ ok: false, reason: 'no-json' });
    expect(parseIndicatorOutput('{"name": "sail", "value": ', 'sail')).toMatchObject({ ok: false, reason: 'malformed-json' });
  });

  it('maps label spellings onto allowed values, and flags it', () => {
    const r = parseIndicatorOutput(
      JSON.stringify({ name: 'likely_regulatory_pathway', value: 'Specific SORA', explanation: 'x' }),
      'likely_regulatory_pathway',
    );
    expect(r).toMatchObject({ ok: true, normalized: true, output: { value: 'specific_sora' } });
  });

  it('requires the computed value when the model only explains a calculated indicator', () => {
    const raw = JSON.stringify({ name: 'igrc', value: 4, explanation: 'Table 1.' });
    expect(parseIndicatorOutput(raw, 'igrc', { expectedValue: 4 }).ok).toBe(true);
    expect(parseIndicatorOutput(raw, 'igrc', { expectedValue: 5 })).toMatchObject({ ok: false, reason: 'value-mismatch' });
    expect(parseIndicatorOutput(JSON.stringify({ name: 'igrc', value: '4', explanation: 'x' }), 'igrc').ok).toBe(false);
  });

  it('extracts nothing from text without braces', () => {
    expect(extractFirstJsonObject('plain text')).toEqual({ found: false });
  });
});

describe('precompiled validators (CSP-safe)', () => {
  it('are up to date with the schemas (regenerate with generate-validators.ts)', () => {
    expect(readFileSync(GENERATED_VALIDATORS_PATH, 'utf8')).toBe(generateValidatorsSource());
  });

  it('agree with ajv compiling the schemas at run time', () => {
    const ajv = createAjv(false);
    const samples: unknown[] = [
      good,
      { ...good, value: 'medium' },
      { ...good, value: 'moderate' },
      { ...good, extra: 1 },
      { name: 'sail', value: 'IV', explanation: 'x' },
      { name: 'igrc', value: 3, explanation: 'x' },
      { name: 'igrc', value: 11, explanation: 'x' },
      [],
      null,
      'text',
    ];
    for (const name of INDICATOR_NAMES) {
      const runtime = ajv.compile(INDICATOR_OUTPUT_SCHEMAS[name]);
      for (const s of samples) {
        const parsed = parseIndicatorOutput(JSON.stringify(s), name);
        expect(parsed.ok, `${name} ${JSON.stringify(s)}`).toBe(runtime(s));
      }
    }
  });
});
