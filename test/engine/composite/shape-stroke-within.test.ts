import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { rectPath as rect } from './kit';

/**
 * A shape layer's own stroke, redrawn over the layers clipped to it, is baked into the layer's
 * pixels: where a pixel mask leaves the edge partly covered it recolours the clipping group within
 * its alpha, not over it as a second coverage. psdtools-fx-stroke-composite.psd (Photoshop's
 * composite): the mask's 30 % pixel on a 3 px inside stroke stays at 30 % (ours was 51 %,
 * 1 − 0.7²); the file went from 51.54 to 61.31 dB. Here: a red 12 × 8 shape (3 px red inside
 * stroke) with a blue layer clipped to it and a mask at 77/255 over its columns 2..4, on white.
 */
type RGB = [number, number, number];
const WHITE: RGB = [255, 255, 255];
const RED: RGB = [255, 0, 0];
const BLUE: RGB = [0, 0, 255];
const W = 16;
const H = 8;

const image = (w: number, h: number, at: (x: number) => [...RGB, number]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set(at(i % w), i * 4);
  return { width: w, height: h, data };
};
const MASK = 77;

function doc(): Uint8Array {
  return writePsdUint8Array({
    width: W,
    height: H,
    children: [
      { name: 'bg', left: 0, top: 0, imageData: image(W, H, () => [...WHITE, 255]) },
      {
        name: 'shape',
        left: 2,
        top: 0,
        imageData: image(12, H, () => [...RED, 255]),
        vectorMask: { paths: [rect(2, 0, 14, H)] },
        vectorFill: { type: 'color', color: { r: 255, g: 0, b: 0 } },
        vectorStroke: {
          strokeEnabled: true,
          fillEnabled: true,
          lineWidth: { units: 'Pixels', value: 3 },
          lineAlignment: 'inside',
          content: { type: 'color', color: { r: 255, g: 0, b: 0 } },
        },
        // Columns 2..4 at 77/255, the rest shown.
        mask: { left: 0, top: 0, defaultColor: 255, imageData: image(W, H, (x) => (x >= 2 && x < 5 ? [MASK, MASK, MASK, 255] : [255, 255, 255, 255])) },
      },
      { name: 'clip', left: 0, top: 0, clipping: true, imageData: image(W, H, () => [...BLUE, 255]) },
    ],
  });
}

describe("a shape's own stroke over what is clipped to it", () => {
  it('recolours the group within its alpha where a mask leaves the edge partly covered', async () => {
    const compiled = await compileTemplate(env.FILES, doc());
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const at = (x: number) => [...img.data.subarray((3 * W + x) * 4, (3 * W + x) * 4 + 3)];
    const over = (c: RGB, a: number) => c.map((v, i) => Math.round(v * a + WHITE[i] * (1 - a)));
    // In the stroke band under the mask: red at the mask's 30 %, not at 1 − 0.7² = 51 %.
    for (const x of [2, 3, 4]) {
      for (const [got, want] of at(x).map((v, i) => [v, over(RED, MASK / 255)[i]])) expect(Math.abs(got - want)).toBeLessThanOrEqual(1);
    }
    // Past the band the clipped blue shows; the right edge's band is red again.
    expect(at(7)).toEqual(BLUE);
    expect(at(12)).toEqual(RED);
  });
});
