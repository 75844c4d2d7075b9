import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { effectArrays, TILE_AREA, tilesOf } from '../../../src/engine/composite/effects';

/**
 * Effect arrays bounded by the region they can touch (issue 25 §1): a shadow 3,000 px away is
 * drawn from the rows and columns that land on the target, not from an array padded by its
 * distance on every side, and comes out as the same shadow drawn without any distance.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

/** A disc of `d` px (anti-aliased edge) in one colour. */
function disc(d: number) {
  const data = new Uint8ClampedArray(d * d * 4);
  for (let y = 0; y < d; y++) {
    for (let x = 0; x < d; x++) {
      const r = Math.hypot(x + 0.5 - d / 2, y + 0.5 - d / 2);
      data.set([30, 60, 200, Math.round(255 * Math.max(0, Math.min(1, d / 2 - r + 0.5)))], (y * d + x) * 4);
    }
  }
  return { width: d, height: d, data };
}

/**
 * A 4000² document: a grey Background and a disc at (left, top) at Fill 0 %, with a drop shadow that
 * the layer does not knock out (at Fill 0 the knockout would cut the near shadow under the disc).
 */
function shadowDocument(left: number, top: number, distance: number): Uint8Array {
  const size = 4000;
  const bg = { width: size, height: size, data: new Uint8ClampedArray(size * size * 4).fill(200) };
  const layer: Layer = {
    name: 'disc',
    left,
    top,
    imageData: disc(300),
    fillOpacity: 0,
    effects: { dropShadow: [{ enabled: true, present: true, blendMode: 'multiply', color: { r: 0, g: 0, b: 0 }, opacity: 0.8, size: px(40), choke: px(20), distance: px(distance), angle: 90, useGlobalLight: false, layerConceals: false }] },
  };
  return writePsdUint8Array({ width: size, height: size, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

describe('effect arrays bounded by the target', () => {
  it('tiles cover the rectangle exactly, each array (tile grown by the reach) within TILE_AREA', () => {
    const r = { left: -7, top: 3, right: 4993, bottom: 3203 };
    const tiles = tilesOf(r, 250);
    let area = 0;
    for (const t of tiles) {
      area += (t.right - t.left) * (t.bottom - t.top);
      expect((t.right - t.left + 500) * (t.bottom - t.top + 500)).toBeLessThanOrEqual(TILE_AREA);
      expect(t.left >= r.left && t.top >= r.top && t.right <= r.right && t.bottom <= r.bottom).toBe(true);
    }
    expect(area).toBe((r.right - r.left) * (r.bottom - r.top));
    expect(tilesOf({ left: 0, top: 0, right: 800, bottom: 600 }, 40)).toEqual([{ left: 0, top: 0, right: 800, bottom: 600 }]);
  });

  it('a drop shadow 3,000 px away on a 4,000 px canvas renders as the same shadow drawn without distance, from small arrays', async () => {
    // Angle 90°: the shadow falls 3,000 px straight down from the disc at (200, 200).
    const far = await compileTemplate(env.FILES, shadowDocument(200, 200, 3000));
    const near = await compileTemplate(env.FILES, shadowDocument(200, 3200, 0));
    const region = { top: 3100, bottom: 3600 };
    effectArrays.largest = 0;
    const drawn = await renderTemplate(env.FILES, far, { scale: 1, region });
    const largest = effectArrays.largest;
    const reference = await renderTemplate(env.FILES, near, { scale: 1, region });
    // The shadow is there (darker than the Background under the disc's centre) and the same.
    const centre = ((3350 - region.top) * 4000 + 350) * 4;
    expect(drawn.data[centre]).toBeLessThan(120);
    let worst = 0;
    for (let i = 0; i < drawn.data.length; i++) worst = Math.max(worst, Math.abs(drawn.data[i] - reference.data[i]));
    expect(worst).toBe(0);
    // Padded by its reach the shadow's arrays were (300 + 2 × 3,042)² ≈ 40 M floats (160 MB each);
    // bounded, they cover the disc grown by the shadow's size.
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(500 * 500);
  });

  it('the far shadow renders whole and scaled too, where the distance lands it on the canvas', async () => {
    const far = await compileTemplate(env.FILES, shadowDocument(200, 200, 3000));
    const near = await compileTemplate(env.FILES, shadowDocument(200, 3200, 0));
    const a = await renderTemplate(env.FILES, far, { scale: 0.1 });
    const b = await renderTemplate(env.FILES, near, { scale: 0.1 });
    expect(a.width).toBe(400);
    let worst = 0;
    for (let i = 0; i < a.data.length; i++) worst = Math.max(worst, Math.abs(a.data[i] - b.data[i]));
    // At 0.1 the offset (300 px) and the disc's place differ by sub-pixel resampling alone.
    expect(worst).toBeLessThanOrEqual(2);
  });
});
