import { describe, expect, it } from 'vitest';
import { parseReplyJson } from '../../src/core/llm/json';

describe('reading JSON out of a model reply (one parser for every caller)', () => {
  it('reads the first object that parses, inside reasoning blocks and code fences', () => {
    expect(parseReplyJson('<think>maybe {"x": 0}?</think>```json\n{"path": "rules", "n": [1, 2]}\n```')).toEqual({
      value: { path: 'rules', n: [1, 2] },
      complete: true,
    });
    expect(parseReplyJson('first {not json} then {"a": {"b": "}"}}')).toEqual({ value: { a: { b: '}' } }, complete: true });
  });

  it('keeps the complete values of a reply cut off mid-object, never a half-written string', () => {
    expect(parseReplyJson('{"rewritten": "UAS operator duties", "hypothetical_answer": "The operator sha')).toEqual({
      value: { rewritten: 'UAS operator duties' },
      complete: false,
    });
    expect(parseReplyJson('{"claims": [{"text": "One.", "sources": [1]}, {"text": "Tw')).toEqual({
      value: { claims: [{ text: 'One.', sources: [1] }, {}] },
      complete: false,
    });
  });

  it('says there is nothing when the reply holds no object', () => {
    expect(parseReplyJson('The passages are about drones.')).toBeNull();
    expect(parseReplyJson('[1, 2, 3]')).toBeNull();
  });
});
