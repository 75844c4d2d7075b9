import { expect, it } from 'vitest';
import { colourTransformSync, defaultProfile } from '../../../src/engine/colour';

/**
 * What a 4000 × 4000 page costs to convert sRGB → CMYK (the shipped FOGRA39 profile) in strips,
 * beside the RGB → RGB identity through LittleCMS (the same copy in and out of the WASM heap)
 * — printed for docs/performance.md; the assertion is a loose floor for a shared test machine.
 */
it('converts a 4000 × 4000 page to CMYK in strips at a measured rate', () => {
  const width = 4000;
  const height = 4000;
  const strip = 64;
  const rgba = new Uint8Array(width * strip * 4);
  for (let i = 0; i < rgba.length; i += 4) {
    rgba[i] = i % 251;
    rgba[i + 1] = (i >> 3) % 253;
    rgba[i + 2] = (i >> 6) % 255;
    rgba[i + 3] = 255;
  }
  const time = (toLayout: 'CMYK' | 'RGBA', to: Uint8Array) => {
    const t = colourTransformSync({ from: defaultProfile('Rgb'), to, fromLayout: 'RGBA', toLayout });
    const out = new Uint8Array(width * strip * 4);
    t.apply(rgba, out, width); // warm
    const start = performance.now();
    for (let y = 0; y < height; y += strip) t.apply(rgba, out, width * Math.min(strip, height - y));
    return performance.now() - start;
  };
  const cmyk = time('CMYK', defaultProfile('Cmyk'));
  const rgb = time('RGBA', defaultProfile('Rgb'));
  console.log(`COLOUR-THROUGHPUT ${JSON.stringify({ page: '4000x4000', cmykMs: Math.round(cmyk), rgbIdentityMs: Math.round(rgb), mpxPerS: Math.round(16 / (cmyk / 1000)) })}`);
  expect(cmyk).toBeLessThan(20_000);
});
