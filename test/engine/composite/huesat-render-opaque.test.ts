import { beforeAll, describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { kernels, kernelsNow } from '../../../src/engine/raster/kernels';

/**
 * The Hue/Saturation kernel ANDs the words of the pixels it is given into the exported global
 * inputAnd and counts them in inputPixels (wasm/assembly/hue-saturation.ts andInput), so that
 * compositor.ts drawBoxedAdjustment knows a box is opaque without looking at its pixels again in
 * JavaScript (opaqueInput). Held to the AND worked out here, on pixels of random alphas (mostly
 * 255, one lower at a random place, or none), counts that leave tails of 1-3 pixels, and boxes
 * streamed in several calls; the adjustment's bytes are the TypeScript's either way (the other tests).
 */

function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

const settings = { type: 'hue/saturation' as const, master: { a: 0, b: 0, c: 0, d: 0, hue: 66, saturation: 0, lightness: 28 }, reds: { a: 262, b: 322, c: 40, d: 133, hue: 180, saturation: 0, lightness: -59 } };

describe('Hue/Saturation kernel: the AND of its input words (drawBoxedAdjustment copies opaque boxes)', () => {
  beforeAll(async () => {
    await kernels();
  });

  it('inputAnd and inputPixels hold the AND and count of every pixel given since they were reset', () => {
    const k = kernelsNow()!;
    const next = random(25);
    for (let round = 0; round < 60; round++) {
      k.inputAnd.value = -1;
      k.inputPixels.value = 0;
      let and = -1, count = 0;
      for (let call = 0, calls = 1 + Math.floor(next() * 3); call < calls; call++) {
        const n = Math.floor(next() * 70);
        const px = new Uint8ClampedArray(n * 4);
        for (let i = 0; i < px.length; i++) px[i] = i % 4 === 3 ? 255 : Math.floor(next() * 256);
        if (n && next() < 0.6) px[Math.floor(next() * n) * 4 + 3] = Math.floor(next() * 255);
        if (n && next() < 0.2) px[Math.floor(next() * n) * 4 + 2] = 0; // colour bits are ANDed too: only alpha matters
        const words = new Int32Array(px.buffer);
        for (const w of words) and &= w;
        count += n;
        expect(applyAdjustment(settings as never, px)).toBe(true);
      }
      expect(k.inputPixels.value, `round ${round}`).toBe(count);
      expect(k.inputAnd.value >>> 24, `round ${round}`).toBe(and >>> 24);
      expect(k.inputAnd.value, `round ${round}`).toBe(and);
    }
  });
});
