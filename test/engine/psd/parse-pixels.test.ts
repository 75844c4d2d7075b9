import { describe, expect, it } from 'vitest';
import { toApiError } from '../../../src/dynamic-image/errors';
import { ApiError } from '../../../src/errors';
import { MAX_TOTAL_LAYER_PIXELS, parsePsd } from '../../../src/engine/psd/parse';
import { craftPsd, zlibZeros, type CraftLayer } from './craft';

/**
 * `n` layers of 10,000 × 5,000 (MAX_LAYER_PIXELS each) over a 64² document, each with four small
 * ZIP channels (never inflated here), and with `mask` a 5,000² mask.
 */
function fullLayers(n: number, mask = false): Uint8Array {
  const data = zlibZeros(259);
  const layers: CraftLayer[] = Array.from({ length: n }, (_, i) => ({
    name: `Full ${i}`,
    top: 0,
    left: 0,
    bottom: 5_000,
    right: 10_000,
    ...(mask ? { mask: { top: 0, left: 0, bottom: 5_000, right: 5_000 } } : {}),
    channels: [0, 1, 2, -1, ...(mask ? [-2] : [])].map((id) => ({ id, compression: 2, data })),
  }));
  return craftPsd(64, 64, layers);
}

// Session 28 (compile CPU): the compile's CPU goes with the layers' pixels, and 300 full layers
// of 4,000² took minutes; past MAX_TOTAL_LAYER_PIXELS a template is refused at parse, before any
// channel is decoded.
describe('the layers’ pixels in all', () => {
  it('accepts 80 layers of 50 M px (the limit) and refuses 81, naming the limit', () => {
    expect(MAX_TOTAL_LAYER_PIXELS).toBe(4_000_000_000);
    expect(parsePsd(fullLayers(80)).children).toHaveLength(80);
    let error: unknown;
    try {
      parsePsd(fullLayers(81));
    } catch (e) {
      error = toApiError(e);
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toBe("The template's layers hold 4,050,000,000 px in all; the limit is 4,000,000,000 px.");
  });

  it('counts a mask rectangle besides the pixel one, and the colour channels once', () => {
    // 53 × (50 M + 25 M) = 3.975 G px: accepted; 54 × 75 M = 4.05 G: refused.
    expect(parsePsd(fullLayers(53, true)).children).toHaveLength(53);
    expect(() => parsePsd(fullLayers(54, true))).toThrow(/4,050,000,000 px in all/);
  });
});
