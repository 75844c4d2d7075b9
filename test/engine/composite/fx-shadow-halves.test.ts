import { describe, expect, it } from 'vitest';
import { shadowOffset } from '../../../src/engine/composite/effects';

/**
 * A shadow's offset in whole pixels, halves rounded away from zero: photocraft's models,
 * calibrated on Photoshop's composites, "5 at 120° moves 3 across and 4 down". In floating point
 * 5·cos 120° is −2.4999999999999990 and 5·sin 30° 2.4999999999999996: Math.round moved those 2.
 * docs/effects.md, "Shadow offsets: halves away from zero".
 */
const at = (angle: number, distance: number, scale = 1) => shadowOffset({ useGlobalLight: false, angle, distance: { value: distance } }, 120, scale);

describe('shadow offsets in whole pixels', () => {
  it('5 px at 120° (the default global light): 3 across, 4 down', () => {
    expect(at(120, 5)).toEqual([3, 4]);
  });

  it('every half away from zero, whatever the cosine\'s last bit', () => {
    expect(at(60, 5)).toEqual([-3, 4]);
    expect(at(30, 5)).toEqual([-4, 3]);
    expect(at(150, 5)).toEqual([4, 3]);
    expect(at(240, 5)).toEqual([3, -4]);
    expect(at(330, 5)).toEqual([-4, -3]);
  });

  it('no half: the nearest (132°, agpsd-effects.psd), scaled after rounding', () => {
    expect(at(132, 5)).toEqual([3, 4]);
    expect(at(132, 5, 0.5)).toEqual([1.5, 2]);
    expect(at(90, 7)).toEqual([0, 7]);
  });
});
