import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';

/**
 * Where a linear gradient overlay's ramp sits (issue 25 §2), as read back from Photoshop's own
 * composites (docs/effects.md, "The linear ramp's ends"): the line through the centre of the
 * layer's box along the angle, each end moved to the centre of the pixel it falls in, and
 * each pixel at its projection between the two.
 */

/** A black → white linear overlay at `angle` on a w×h opaque rectangle at (4, 4). */
function overlayDocument(o: { w: number; h: number; angle: number }): Uint8Array {
  const W = o.w;
  const H = o.h;
  const pixels = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4) };
  for (let i = 0; i < W * H; i++) pixels.data.set([255, 0, 0, 255], i * 4);
  const layer: Layer = {
    name: 'box',
    left: 4,
    top: 4,
    imageData: pixels,
    effects: blackToWhiteOverlay(o.angle),
  };
  const size = 8 + Math.max(W, H);
  const bg = { width: size, height: size, data: new Uint8ClampedArray(size * size * 4).fill(255) };
  return writePsdUint8Array({ width: size, height: size, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

async function render(o: Parameters<typeof overlayDocument>[0]) {
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, overlayDocument(o)), { scale: 1 });
  return { at: (x: number, y: number) => frame.data[(y * frame.width + x) * 4] };
}

describe('linear gradient overlay ends', () => {
  it('at 0° the ramp runs from the box\'s first pixel (t = 0) to the pixel past its last (t = 1)', async () => {
    // Box x 4..54 (50 px): t = (x − 4) / 50, so pixel 4 is black and pixel 29 is half-way; the
    // eased ramp (t/2 + 3t²/2 − t³, sampled at 4096 steps) gives pixel 53 at t = 0.98.
    const r = await render({ w: 50, h: 6, angle: 0 });
    const eased = (t: number) => t / 2 + (3 * t * t) / 2 - t * t * t;
    expect(r.at(4, 6)).toBe(0);
    expect(r.at(29, 6)).toBe(128);
    expect(r.at(53, 6)).toBe(Math.round(eased(Math.round(0.98 * 4095) / 4095) * 255));
  });

  it('off the axes the ends snap to pixels: 87° over 600 × 60 runs 3 px across for 60 down', async () => {
    // Ends (x ± 1.57, 30 rows each way from the centre (304, 34)): pixels 302 and 305, a slope of
    // 3 : 60, where the exact line has tan 3° = 0.0524. A pixel 300 columns right is 3 × 300 / 60
    // = 15 rows further along the ramp, exactly as Photoshop's composite shows it.
    const r = await render({ w: 600, h: 60, angle: 87 });
    for (const y of [20, 30, 40]) expect(r.at(304 + 200, y)).toBe(r.at(304, y - 10));
  });
});
