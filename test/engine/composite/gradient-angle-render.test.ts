import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';
import { againstMergedImage } from './kit';

/**
 * An angle gradient overlay drawn through compile and render (issue 25 §2, docs/fidelity.md
 * "Gradients"): the start colour along the angle, sweeping clockwise on screen (photocraft's
 * gradient_t, fitted on psd-tools' gradient-styles.psd; psd-tools' _make_angle_gradient, held to
 * the same file's stored Photoshop pixels). Unit cases: gradient-angle.test.ts.
 */

/** A black → white angle overlay at `angle` on an opaque 20 × 20 box at (4, 4) in a white 28 × 28 canvas. */
async function render(angle: number) {
  const box = 20;
  const pixels = { width: box, height: box, data: new Uint8ClampedArray(box * box * 4) };
  for (let i = 0; i < box * box; i++) pixels.data.set([255, 0, 0, 255], i * 4);
  const fx = blackToWhiteOverlay(angle);
  Object.assign(fx.gradientOverlay![0], { type: 'angle' });
  const layer: Layer = { name: 'box', left: 4, top: 4, imageData: pixels, effects: fx };
  const W = 28;
  const bg = { width: W, height: W, data: new Uint8ClampedArray(W * W * 4).fill(255) };
  const psd = writePsdUint8Array({ width: W, height: W, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
  return (x: number, y: number) => frame.data[(y * frame.width + x) * 4];
}

// The default ramp (smoothness 100 %) at t, in 8-bit levels.
const eased = (t: number) => Math.round((t / 2 + (3 * t * t) / 2 - t * t * t) * 255);

describe('angle gradient overlay, through compile and render', () => {
  it('at 0° the ramp runs from the right, down (¼), left (½) and up (¾): clockwise on screen', async () => {
    // Centre (14, 14); pixels 8 px out on each side, on the axes' nearer pixel rows and columns.
    const at = await render(0);
    const below = at(14, 22); // centre (14.5, 22.5): a shade past ¼
    const above = at(14, 5);
    expect(Math.abs(below - eased(0.25 - Math.atan2(0.5, 8.5) / (2 * Math.PI)))).toBeLessThanOrEqual(1);
    expect(Math.abs(above - eased(0.75 + Math.atan2(0.5, 8.5) / (2 * Math.PI)))).toBeLessThanOrEqual(1);
    expect(below).toBeLessThan(80); // counterclockwise (before) drew ¾ here: about 200
    expect(above).toBeGreaterThan(170);
  });

  it('at 90° it starts straight up and reaches ¼ at the right', async () => {
    const at = await render(90);
    expect(at(22, 14)).toBeLessThan(80);
    expect(at(5, 14)).toBeGreaterThan(170);
  });

  it('made-aj-gradient-angle.psd (make-aj.mjs: 0°, 90°, 225° reversed, 30° on a wide box) renders to its merged image', async () => {
    // Its merged image is worked out from the clockwise sweep in make-aj.mjs; what is left is the
    // 4096-sample ramp against the exact curve (a level at most).
    const { worst, psnr } = await againstMergedImage('made-aj-gradient-angle.psd');
    expect(worst).toBeLessThanOrEqual(1);
    expect(psnr).toBeGreaterThan(60);
  });
});
