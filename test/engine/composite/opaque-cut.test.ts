import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { markOpaque } from '../../../src/engine/composite/surface';
import type { Bounds, LayerOverrides } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { compileOrRefused, image, random } from './kit';

/**
 * Issue 25 §3 (picture-redraw): a picture placed past the region drawn (a fill placement larger
 * than the canvas, as psdtools-adjust-hue-saturation's "orion" at 848×816 of an 800 px preview)
 * is cut to the region by layerContent; the cut keeps the placement's opaque rectangle
 * (markOpaque), so the compositor copies those rows instead of blending them. The bytes are those
 * of the same pixels not marked, over a backdrop with every alpha and under a masked adjustment,
 * whole, in strips and in a window of columns.
 */

const W = 30;
const H = 24;

describe('an opaque placement cut to the region drawn (issue 25 §3)', () => {
  it.each([1, 2, 3, 4, 5, 6])('seed %i: the bytes of the unmarked pixels', async (seed) => {
    const r = random(seed);
    const bytes = writePsdUint8Array(
      {
        width: W,
        height: H,
        children: [
          { name: 'under', left: 0, top: 0, imageData: image(W, H, () => [r.int(256), r.int(256), r.int(256), r.pick([0, 255, 255, 77])]) },
          { name: 'picture', left: 2, top: 1, imageData: image(W - 4, H - 2, () => [9, 9, 9, 255]) },
          { name: 'tone', adjustment: { type: 'invert' }, mask: { left: 10, top: 0, imageData: image(8, H, () => [255, 255, 255, 255]), defaultColor: 0 } },
        ],
      },
      { generateThumbnail: false },
    );
    const compiled = (await compileOrRefused(bytes, `seed ${seed}`))!;
    const picture = compiled.layers.find((n) => n.name === 'picture')!;
    const scale = r.pick([1, 2, 3]);
    // A placement reaching past the canvas on some sides, opaque inside a faded border.
    const bounds: Bounds = { left: -r.int(9), top: -r.int(9), right: W * scale + r.int(9), bottom: H * scale + r.int(9) };
    const pw = bounds.right - bounds.left, ph = bounds.bottom - bounds.top;
    const border = r.int(3);
    const data = image(pw, ph, (x, y) => [r.int(256), r.int(256), r.int(256), x < border || y < border || x >= pw - border || y >= ph - border ? r.int(256) : 255]).data;
    const opaque = { left: border, top: border, right: pw - border, bottom: ph - border };
    const marked = data.slice();
    markOpaque(marked, opaque);
    const overrides = (px: Uint8ClampedArray): LayerOverrides => new Map([[picture.id, { pixels: { width: pw, height: ph, data: px }, bounds }]]);
    const h = H * scale, w = W * scale;
    for (const region of [undefined, { top: 0, bottom: Math.ceil(h / 2) }, { top: Math.ceil(h / 2), bottom: h }, { top: 3, bottom: h - 2, left: 5, right: w - 4 }]) {
      clearEngineCaches();
      const fast = await renderTemplate(env.FILES, compiled, { scale, overrides: overrides(marked), ...(region && { region }) });
      clearEngineCaches();
      const plain = await renderTemplate(env.FILES, compiled, { scale, overrides: overrides(data.slice()), ...(region && { region }) });
      expect(firstDifference(fast.data, plain.data), `seed ${seed} scale ${scale} ${JSON.stringify(region)}`).toBe(-1);
    }
  });
});
