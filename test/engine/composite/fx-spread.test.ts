import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { spreadMatte } from '../../../src/engine/composite/morphology';
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

  it('grows a hard shape as an outside stroke of the radius: in the 5 × 5 chamfer metric (photocraft, ag-psd group-drop-shadows)', () => {
    // One opaque pixel grown by 3 px: at offset (1, 3) the chamfer distance is √5 + 1 = 3.236
    // (Euclidean 3.162), so the rim keeps 3 + ½ − (3.236 − ½) = 0.764; at (2, 3) √5 + √2 leaves
    // 0.350; straight steps are exact, and a straight edge grows by exactly the radius.
    const w = 9;
    const a = new Float32Array(w * w);
    a[4 * w + 4] = 1;
    const d = spreadMatte(a, w, w, 3);
    expect(d[7 * w + 5]).toBeCloseTo(4 - Math.sqrt(5) - 1, 4);
    expect(d[7 * w + 6]).toBeCloseTo(4 - Math.sqrt(5) - Math.SQRT2, 4);
    expect(d[4 * w + 7]).toBe(1);
    expect(d[4 * w + 8]).toBe(0);
    const edge = new Float32Array(w * w);
    for (let y = 0; y < w; y++) for (let x = 6; x < w; x++) edge[y * w + x] = 1;
    const grown = spreadMatte(edge, w, w, 2);
    expect([...grown.slice(4 * w, 4 * w + w)]).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1]);
    // An anti-aliased pixel's own edge is where it grows from: a 25 % column one more pixel out grows 2.25.
    for (let y = 0; y < w; y++) edge[y * w + 5] = 0.25;
    const soft = spreadMatte(edge, w, w, 2);
    expect(soft[4 * w + 3]).toBeCloseTo(0.25, 5);
    expect(soft[4 * w + 4]).toBe(1);
  });
});
