import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { rectPath as rect } from './kit';

/**
 * A feathered vector mask drawn for a strip of rows must be the same rows of the mask drawn whole
 * (compositor.ts featheredPaths). It blurs the path's raster over `r` and "the part of the box
 * within reach", but the blur is three box passes, each cut at that rectangle's edge: the first
 * pass spreads the raster up to a box radius past the paths' box, and the next passes read it
 * there. Where the rectangle ends inside that spread (a strip whose reach ends at the paths' box),
 * the later passes read zeros and the strip's rows come out lighter: made-vector-mask-feather.psd
 * (this document) previewed at 1601 × 1300 (scale 50, σ = 100 px) differed from its whole render
 * by up to 35 levels in strips of 327 rows. Streamed PNGs draw such strips since 9915951 (half of
 * stripBytes), so its 1601 × 1300 and 2100 × 2100 PNGs changed from 6bd320b's (found by a
 * base/main differential run, review session 26); streamed JPEGs and print strips had it before.
 */
const W = 32;
const H = 24;
function fill(c: number[]) {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) data.set([...c, 255], i * 4);
  return { width: W, height: H, data };
}

/** A pixel mask black over rows 0..11 and columns 0..19, white elsewhere (its default colour). */
function blackCorner() {
  const data = new Uint8ClampedArray(20 * 12 * 4);
  for (let i = 0; i < 20 * 12; i++) data.set([0, 0, 0, 255], i * 4);
  return { top: 0, left: 0, imageData: { width: 20, height: 12, data }, defaultColor: 255, userMaskFeather: 2 };
}

describe('a feathered mask in strips', () => {
  it.each([
    ['vector', 45],
    ['vector', 50],
    ['pixel', 45],
  ])('a %s mask gives the rows of the whole render at scale %d (strips of 64 and 327 rows)', async (kind, scale) => {
    const masked = kind === 'vector' ? { vectorMask: { paths: [rect(4, 4, 28, 20)] }, mask: { vectorMaskFeather: 2 } } : { mask: blackCorner() };
    const bytes = writePsdUint8Array({
      width: W,
      height: H,
      children: [
        { name: 'bg', top: 0, left: 0, imageData: fill([200, 100, 50]) },
        { name: 'blue', top: 0, left: 0, imageData: fill([0, 0, 255]), ...masked },
      ],
    } as never);
    const compiled = await compileTemplate(env.FILES, bytes);
    const bg = compiled.layers.find((n) => n.name === 'bg')!;
    const whole = await renderTemplate(env.FILES, compiled, { scale });
    const w = whole.width;
    for (const rows of [64, 327]) {
      let worst = 0;
      let at = -1;
      for (let top = 0; top < whole.height; top += rows) {
        const bottom = Math.min(whole.height, top + rows);
        // The backdrop overridden (visible as it is): every layer drawn into the strip, none cut from a kept canvas.
        const strip = await renderTemplate(env.FILES, compiled, { scale, region: { top, bottom, left: 0, right: w }, overrides: new Map([[bg.id, { visible: true }]]) });
        for (let i = 0; i < strip.data.length; i++) {
          const d = Math.abs(strip.data[i]! - whole.data[top * w * 4 + i]!);
          if (d > worst) [worst, at] = [d, top + Math.floor(i / (w * 4))];
        }
      }
      expect(worst, `strips of ${rows} rows: worst difference at row ${at}`).toBe(0);
    }
  });
});
