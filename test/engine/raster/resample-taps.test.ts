import { describe, expect, it } from 'vitest';
import { resampleTaps } from '../../../src/engine/raster/resample';

describe('resampleTaps', () => {
  it('keeps the taps of a size per isolate: the same weights, computed once', () => {
    const first = resampleTaps(1229, 800, 'high');
    const again = resampleTaps(1229, 800, 'high');
    expect(again).toBe(first);
    expect(resampleTaps(1229, 800, 'fast')).not.toBe(first);
    expect(resampleTaps(1229, 801, 'high')).not.toBe(first);
  });

  it('answers the same taps whether kept or not', () => {
    const kept = resampleTaps(640, 333, 'high');
    // Crowd it out with other sizes (more than the kept budget), then ask again.
    for (let dst = 2000; dst < 2200; dst++) resampleTaps(3000, dst, 'high');
    const fresh = resampleTaps(640, 333, 'high');
    expect(fresh).not.toBe(kept);
    expect(fresh.stride).toBe(kept.stride);
    expect(fresh.bounds).toEqual(kept.bounds);
    expect(fresh.weights).toEqual(kept.weights);
  });
});
