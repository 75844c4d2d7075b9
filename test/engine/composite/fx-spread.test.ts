import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { dilate, spreadMatte } from '../../../src/engine/composite/morphology';
import { blackShadow } from './kit';

/**
 * A shadow's spread "expands the boundaries of the matte prior to blurring" (Adobe): a grey
 * dilation, so a matte grows at its own level (psd-tools' test_drop_shadow.py: a 128/255 matte
 * grows at 128/255, one at 127/255 grows too, a 5 % feather still grows). Ours thresholded the
 * matte at half coverage: a 60 % layer's spread shadow came out full, a 40 % one's not at all.
 */
function doc(alpha: number): Uint8Array {
  const bg = { width: 40, height: 40, data: new Uint8ClampedArray(40 * 40 * 4).fill(255) };
  const px = { width: 10, height: 10, data: new Uint8ClampedArray(400) };
  for (let i = 0; i < 100; i++) px.data.set([0, 0, 255, alpha], i * 4);
  return writePsdUint8Array(
    {
      width: 40,
      height: 40,
      children: [
        { name: 'Background', left: 0, top: 0, imageData: bg },
        {
          name: 'square',
          left: 15,
          top: 15,
          imageData: px,
          effects: {
            dropShadow: [blackShadow({ distance: 0, size: 4, choke: 100 })],
          },
        },
      ],
    },
    { noBackground: false },
  );
}

describe('spread as a grey dilation', () => {
  it('a uniformly partial layer casts its spread shadow at its own level', async () => {
    for (const alpha of [255, 153, 102, 13]) {
      const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, doc(alpha)), { scale: 1 });
      // 2 px left of the square, inside the 4 px spread: black at the layer's alpha over white.
      const v = img.data[(20 * 40 + 13) * 4];
      expect(Math.abs(v - 255 * (1 - alpha / 255)), `alpha ${alpha}`).toBeLessThanOrEqual(1);
      // and nothing past the spread
      expect(img.data[(20 * 40 + 9) * 4]).toBe(255);
    }
  });

  it('is the binary dilation to the bit on a hard shape with anti-aliased edges', () => {
    const w = 30;
    const a = new Float32Array(w * w);
    for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) a[y * w + x] = Math.max(0, Math.min(1, 8 - Math.hypot(x + 0.5 - 15, y + 0.5 - 15) + 0.5));
    for (const r of [1, 2.5, 4]) expect([...spreadMatte(a, w, w, r)]).toEqual([...dilate(a, w, w, r)]);
  });
});
