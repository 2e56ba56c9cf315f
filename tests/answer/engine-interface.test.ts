import type { MLCEngineInterface } from '@mlc-ai/web-llm';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ChatEngine } from '../../src/core/answer/generation.js';
import { engineDouble } from './helpers.js';

describe('ChatEngine is the subset of WebLLM MLCEngineInterface the answer stage uses', () => {
  it('a real WebLLM engine and the test double both satisfy ChatEngine (checked by tsc)', () => {
    expectTypeOf<MLCEngineInterface>().toExtend<ChatEngine>();
    const assign = (real: MLCEngineInterface): ChatEngine => real; // compiles only if compatible
    expect(typeof assign).toBe('function');
    const double: ChatEngine = engineDouble();
    expect(typeof double.interruptGenerate).toBe('function');
  });
});
