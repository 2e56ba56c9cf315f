/**
 * Numbers typed with their unit are understood and converted to the unit the documents use
 * (m, m/s, kg); an unknown unit or a unit of another quantity gives a precise field error.
 */
import { describe, expect, it } from 'vitest';
import { mtomCategoryOfMass, numberConversions, validateOperationInput } from '../../../src/core/indicators/inputs.js';
import { readQuantity } from '../../../src/core/sora/quantity.js';
import { BASE_INPUT } from './helpers.js';

const withNumbers = (dimension: unknown, speed: unknown) =>
  validateOperationInput({ ...BASE_INPUT, characteristic_dimension_m: dimension, max_speed_ms: speed });

describe('numbers with units', () => {
  it('accepts "3 m" and "30 m/s", and "3,5 m" with a decimal comma', () => {
    const v = withNumbers('3 m', '30 m/s');
    expect(v.ok && [v.value.characteristic_dimension_m, v.value.max_speed_ms]).toEqual([3, 30]);
    const c = withNumbers('3,5 m', '30m/s');
    expect(c.ok && c.value.characteristic_dimension_m).toBe(3.5);
  });

  it('converts km/h, kt and mph to m/s, and cm, mm and ft to m', () => {
    const v = withNumbers('120 cm', '108 km/h');
    expect(v.ok && [v.value.characteristic_dimension_m, v.value.max_speed_ms]).toEqual([1.2, 30]);
    expect(readQuantity('1500 mm', 'length')).toMatchObject({ ok: true, value: 1.5 });
    expect(readQuantity('10 ft', 'length')).toMatchObject({ ok: true, value: 3.048 });
    expect(readQuantity('36 kt', 'speed')).toMatchObject({ ok: true, value: 18.52 });
    expect(readQuantity('10 mph', 'speed')).toMatchObject({ ok: true, value: 4.4704 });
  });

  it('says what a conversion made of the number', () => {
    expect(numberConversions({ characteristic_dimension_m: '120 cm', max_speed_ms: '30 m/s' })).toEqual({ characteristic_dimension_m: '120 cm = 1.2 m' });
    expect(numberConversions({ max_speed_ms: '108 km/h' })).toEqual({ max_speed_ms: '108 km/h = 30 m/s' });
  });

  it('refuses a unit of another quantity, naming both', () => {
    const v = withNumbers('30 m/s', '3 m');
    expect(v.ok).toBe(false);
    const byField = Object.fromEntries(!v.ok ? v.errors.map((e) => [e.field, e.message]) : []);
    expect(byField.characteristic_dimension_m).toBe('Maximum characteristic dimension: "30 m/s" is a speed, not a length; give a length in m, cm, mm, ft.');
    expect(byField.max_speed_ms).toBe('Maximum speed: "3 m" is a length, not a speed; give a speed in m/s, km/h, kt, mph.');
  });

  it('refuses an unknown unit, naming the units it knows', () => {
    const v = withNumbers('3 furlongs', undefined);
    expect(!v.ok && v.errors.map((e) => e.message)).toEqual([
      'Maximum characteristic dimension: "furlongs" is not a unit SkyCite knows for a length; use m, cm, mm, ft.',
    ]);
  });

  it('still refuses zero and words, with the unit and an example', () => {
    const v = withNumbers('0', '0 m/s');
    const msgs = !v.ok ? v.errors.map((e) => e.message) : [];
    expect(msgs[0]).toMatch(/^Maximum characteristic dimension must be a number greater than 0, in metres .*"0" is not\.$/);
    expect(msgs[1]).toMatch(/^Maximum speed must be a number greater than 0, in metres per second .*"0 m\/s" is not\.$/);
  });

  it('reads a mass with its unit as the mass category ("25 kg" is 25 kg or more)', () => {
    expect(mtomCategoryOfMass('25 kg')).toBe('25kg_or_more');
    expect(mtomCategoryOfMass('24,9 kg')).toBe('below_25kg');
    expect(mtomCategoryOfMass('850 g')).toBe('below_900g');
    expect(mtomCategoryOfMass('249 g')).toBe('below_250g');
    expect(mtomCategoryOfMass('25')).toBeNull(); // a mass needs its unit
    const v = validateOperationInput({ ...BASE_INPUT, mtom_category: '3,5 kg' });
    expect(v.ok && v.value.mtom_category).toBe('below_4kg');
  });
});
