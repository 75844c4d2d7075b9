import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { againstMergedImage, rectPath } from './kit';

/**
 * Gradient fill layers whose records store no pixels (issue 25 §2, docs/fidelity.md "Gradients"),
 * as Photoshop writes them in 16- and 32-bit documents (photocraft, crates/compose/src/fill_layout.rs:
 * "the psd-tools `colormodes` files, whose 16/32-bit versions store no fill pixels"): drawn from
 * their settings (composite/gradient-fill.ts), laid out over the image as an overlay is over its
 * box. They drew nothing before.
 */

/** A black → white gradient fill layer (no pixels) over a white background, 40 × 20 unless said. */
async function render(style: 'linear' | 'radial' | 'reflected', angle: number, shape?: [number, number, number, number], W = 40, H = 20) {
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(255) };
  const stops = [0, 1].map((location) => ({ color: { r: 255 * location, g: 255 * location, b: 255 * location }, location, midpoint: 0.5 }));
  const opaque = [0, 1].map((location) => ({ opacity: 1, location, midpoint: 0.5 }));
  const fill = { type: 'solid' as const, name: 'ramp', smoothness: 1, colorStops: stops, opacityStops: opaque, style, angle, scale: 1, align: true, reverse: false, dither: false, offset: { x: 0, y: 0 } };
  const psd = writePsdUint8Array({ width: W, height: H, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, { name: 'fill', vectorFill: fill, ...(shape ? { vectorMask: { paths: [rectPath(...shape)] } } : {}) }] }, { noBackground: false });
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
  return (x: number, y: number) => frame.data[(y * frame.width + x) * 4];
}

// The default ramp (smoothness 100 %) at t, in 8-bit levels.
const eased = (t: number) => Math.round((t / 2 + (3 * t * t) / 2 - t * t * t) * 255);

describe('gradient fill layers without pixels', () => {
  it('a linear fill at 0° runs across the whole image, black at the left edge, white at the right', async () => {
    const at = await render('linear', 0);
    // Its ends in the pixels they fall in: pixel 0 and pixel 40, just past the right edge.
    expect(at(0, 10)).toBe(0);
    expect(Math.abs(at(39, 10) - eased(39 / 40))).toBeLessThanOrEqual(1);
    expect(Math.abs(at(20, 3) - 128)).toBeLessThanOrEqual(1); // the middle column, on every row
    expect(Math.abs(at(20, 17) - 128)).toBeLessThanOrEqual(1);
  });

  it('a radial fill at 90° is centred on the image with half its height as radius', async () => {
    const at = await render('radial', 90);
    expect(Math.abs(at(19, 9) - eased(Math.SQRT1_2 / 10))).toBeLessThanOrEqual(1); // centre (20, 10)
    expect(Math.abs(at(19, 0) - eased(Math.hypot(0.5, 9.5) / 10))).toBeLessThanOrEqual(1);
    expect(at(2, 9)).toBe(255); // beyond the radius: the end colour
  });

  it('a gradient-filled shape without pixels spans its path, not the image, and shows only inside it', async () => {
    // Path 10..30 × 4..16 at 0°: black at its left edge (column 10), half-way at column 20.
    const at = await render('linear', 0, [10, 4, 30, 16]);
    expect(at(10, 10)).toBe(0);
    expect(Math.abs(at(20, 10) - 128)).toBeLessThanOrEqual(1);
    expect(at(5, 10)).toBe(255); // outside the path: the white background
    expect(at(20, 2)).toBe(255);
  });

  it("a 30° reflected fill on a 4 × 4 image runs as Photoshop's, t = |x − y| / 4: its end snaps to the corner", async () => {
    // photocraft's test small_gradient_fill_matches_photoshop_at_all_depths, its layout fitted on
    // psd-tools' colormodes files (gradient-geometry.ts reflectedEnds). Unsnapped, (0, 0) sat at t = 0.24.
    const at = await render('reflected', 30, undefined, 4, 4);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) expect(Math.abs(at(x, y) - eased(Math.abs(x - y) / 4))).toBeLessThanOrEqual(1);
  });

  it('made-aj-gradient-fill.psd (make-aj.mjs: a linear 30° fill on the left, a radial one on the right, over a background) renders to its merged image', async () => {
    const { worst, psnr } = await againstMergedImage('made-aj-gradient-fill.psd');
    expect(worst).toBeLessThanOrEqual(1);
    expect(psnr).toBeGreaterThan(60);
  });
});

describe('a document whose only layers are pixel-less fills', () => {
  it('shows its merged image, not the fills drawn again over it', async () => {
    // compile.ts takes the merged image as the bottom layer when no layer holds pixels; the fills'
    // settings are then dropped (the merged image already holds them exactly).
    const W = 8;
    const H = 4;
    const merged = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4) };
    for (let i = 0; i < W * H; i++) merged.data.set([200, 30, 40, 255], i * 4);
    const stops = [0, 1].map((location) => ({ color: { r: 255 * location, g: 255 * location, b: 255 * location }, location, midpoint: 0.5 }));
    const opaque = [0, 1].map((location) => ({ opacity: 1, location, midpoint: 0.5 }));
    const fill = { type: 'solid' as const, name: 'ramp', smoothness: 1, colorStops: stops, opacityStops: opaque, style: 'linear' as const, angle: 0, scale: 1, align: true, reverse: false, dither: false, offset: { x: 0, y: 0 } };
    const psd = writePsdUint8Array({ width: W, height: H, imageData: merged, children: [{ name: 'fill', vectorFill: fill }] }, { noBackground: true });
    const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
    expect([...frame.data.slice(0, 4)]).toEqual([200, 30, 40, 255]);
    expect([...frame.data.slice((W - 1) * 4, W * 4)]).toEqual([200, 30, 40, 255]);
  });
});
