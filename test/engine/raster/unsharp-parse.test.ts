import { describe, expect, it } from 'vitest';
import { parseUnsharpMask } from '../../../src/engine/raster/unsharp';
import { ApiError } from '../../../src/errors';
import { toApiError } from '../../../src/dynamic-image/errors';

describe('parseUnsharpMask (rendering contract, Output)', () => {
  it('absent or true means (1.2, 0.5, 0.05); false turns it off', () => {
    const def = { amount: 1.2, radius: 0.5, threshold: 0.05 };
    expect(parseUnsharpMask(undefined)).toEqual(def);
    expect(parseUnsharpMask(true)).toEqual(def);
    expect(parseUnsharpMask('TRUE')).toEqual(def);
    expect(parseUnsharpMask(false)).toBeNull();
    expect(parseUnsharpMask('False')).toBeNull();
  });

  it('accepts "amount, radius, threshold" with or without parentheses', () => {
    expect(parseUnsharpMask('0.8, 1, 0.02')).toEqual({ amount: 0.8, radius: 1, threshold: 0.02 });
    expect(parseUnsharpMask('(2,0.7,0)')).toEqual({ amount: 2, radius: 0.7, threshold: 0 });
    expect(parseUnsharpMask(' ( 1 , 2 , 1 ) ')).toEqual({ amount: 1, radius: 2, threshold: 1 });
  });

  it('anything else is a 400 naming unsharpMask', () => {
    for (const bad of ['1, 2', '1,2,3,4', 'a, b, c', '-1, 1, 0', '1, 1, 1.5', '1, 1000, 0', '', '()', 5, {}, [1, 2, 3]]) {
      let err: unknown;
      try {
        parseUnsharpMask(bad);
      } catch (e) {
        err = toApiError(e);
      }
      expect(err, JSON.stringify(bad)).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      expect((err as ApiError).details?.[0]?.path).toBe('unsharpMask');
    }
  });
});
