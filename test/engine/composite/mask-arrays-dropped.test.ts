import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { useDrops } from '../../../src/engine/memory/drop';
import { blackShadow, rectPath } from './kit';
import { arraysLeft } from './arrays-left';

/**
 * Issue 25 §1 (maskmem): layerMask copied a pixel mask's stored rows (or its resampled mask) into
 * maskOver's array and left both to the collector, and nothing dropped the mask itself once the
 * layer was drawn: bench-8000's first print PDF left 29.5 MB of them. The rows now go once read,
 * and the mask is its draw's own (ownHere), dropped with the layer's content. Held here: the byte
 * arrays a render of pixel-masked layers leaves to the collector shrink, and the pixels are those
 * drawn with no array dropped, in every path a mask takes: a plain layer, a pixel × vector mask,
 * a layer with effects (its shape's sources), a clipping base, a masked adjustment, a masked
 * group, and the same render again over the caches it filled (kept blends and units).
 */
const W = 400;
const H = 300;

const image = (w: number, h: number, at: (x: number, y: number) => number[]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set(at(x, y), i);
  return { width: w, height: h, data };
};
const grey = (v: number) => [v, v, v, 255];
const mask = (at: (x: number, y: number) => number, more: Partial<NonNullable<Layer['mask']>> = {}): Layer['mask'] => ({
  left: 0,
  top: 0,
  right: W,
  bottom: H,
  defaultColor: 0,
  imageData: image(W, H, (x, y) => grey(at(x, y))),
  ...more,
});

function doc(): Uint8Array {
  const full = (rgb: number[]) => image(W, H, (x, y) => [(rgb[0]! + x) % 256, (rgb[1]! + y) % 256, rgb[2]!, 255]);
  return writePsdUint8Array({
    width: W,
    height: H,
    children: [
      { name: 'Background', left: 0, top: 0, imageData: image(W, H, (x, y) => [(x * 255) / W, (y * 255) / H, 128, 255]) },
      { name: 'masked', left: 0, top: 0, opacity: 0.9, imageData: full([200, 30, 40]), mask: mask((x) => (x * 255) / W) },
      { name: 'both', left: 0, top: 0, imageData: full([20, 200, 40]), mask: mask((x, y) => ((x + y) * 255) / (W + H)), vectorMask: { paths: [rectPath(40, 30, 300, 260)] } },
      {
        name: 'fx',
        left: 0,
        top: 0,
        imageData: full([30, 60, 220]),
        mask: mask((x, y) => (x > 100 && x < 250 && y > 80 && y < 220 ? 255 : 0)),
        effects: { dropShadow: [{ ...blackShadow({ distance: 8, size: 20, choke: 0 }), blendMode: 'multiply', opacity: 0.7 }] },
      },
      { name: 'base', left: 0, top: 0, imageData: full([240, 200, 10]), mask: mask((x, y) => (y * 255) / H) },
      { name: 'clipped', left: 0, top: 0, clipping: true, blendMode: 'multiply', imageData: full([90, 90, 250]) },
      { name: 'invert', adjustment: { type: 'invert' }, mask: mask((x, y) => ((x * y) % 255)) },
      {
        name: 'group',
        opened: true,
        mask: mask((x, y) => (Math.hypot(x - W / 2, y - H / 2) < 120 ? 255 : 40)),
        children: [{ name: 'inside', left: 0, top: 0, blendMode: 'screen', imageData: full([10, 120, 60]), mask: mask((x) => 255 - (x * 255) / W) }],
      },
    ],
  });
}

describe('layer masks drop their arrays once used', () => {
  afterEach(() => useDrops(true));

  it('leaves fewer mask arrays to the collector, with the same pixels, drawn again over the caches too', async () => {
    const compiled = await compileTemplate(env.FILES, doc());
    const render = () => renderTemplate(env.FILES, compiled, { scale: 1 });
    const runs: Record<string, { left: number; first: Uint8ClampedArray<ArrayBufferLike>; again: Uint8ClampedArray<ArrayBufferLike> }> = {};
    for (const on of [false, true]) {
      useDrops(on);
      clearEngineCaches();
      let first: Uint8ClampedArray<ArrayBufferLike> = new Uint8ClampedArray(0);
      const left = (await arraysLeft('Uint8ClampedArray', async () => void (first = (await render()).data.slice()))).left;
      const again = (await render()).data.slice();
      runs[on ? 'on' : 'off'] = { left, first, again };
    }
    const { on, off } = runs;
    expect(on.first.length).toBe(W * H * 4);
    for (const got of [on.first, on.again, off.again]) {
      expect(got.length).toBe(off.first.length);
      expect(got.every((v, i) => v === off.first[i])).toBe(true);
    }
    console.log(`byte arrays left to the collector: ${(off.left / 1048576).toFixed(1)} MB without drops, ${(on.left / 1048576).toFixed(1)} MB with`);
    // Measured at the change: 8.5 MB left without drops; with them 4.3 MB before it, 2.7 MB after
    // (the pixel masks' rows, maskOver's copies and the pixel × vector factors, 120 KB each).
    expect(on.left).toBeLessThan(off.left * 0.42);
  });
});
