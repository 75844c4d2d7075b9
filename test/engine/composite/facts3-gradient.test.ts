import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';

/**
 * Gradient overlay options as Photoshop's layer style dialog defines them (issue 25 §2,
 * docs/fidelity.md "Gradient overlay options and pattern strokes"): Align with Layer, the offset
 * the overlay is dragged by, the diamond style's corner along the angle.
 */

type Overlay = { angle: number; type?: 'linear' | 'diamond'; align?: boolean; offset?: { x: number; y: number } };

/** A black → white overlay on an opaque w × h box at (left, 4) of a W × H white canvas. */
function documentWith(box: { left: number; w: number; h: number }, canvas: { W: number; H: number }, o: Overlay): Uint8Array {
  const pixels = { width: box.w, height: box.h, data: new Uint8ClampedArray(box.w * box.h * 4) };
  for (let i = 0; i < box.w * box.h; i++) pixels.data.set([255, 0, 0, 255], i * 4);
  const fx = blackToWhiteOverlay(o.angle);
  Object.assign(fx.gradientOverlay![0], { type: o.type ?? 'linear', align: o.align ?? true, offset: o.offset ?? { x: 0, y: 0 } });
  const layer: Layer = { name: 'box', left: box.left, top: 4, imageData: pixels, effects: fx };
  const { W, H } = canvas;
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(255) };
  return writePsdUint8Array({ width: W, height: H, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

async function render(psd: Uint8Array) {
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
  return (x: number, y: number) => frame.data[(y * frame.width + x) * 4];
}

// The default ramp (smoothness 100 %, sampled at 4096 steps) at t, in 8-bit levels.
const eased = (t: number) => Math.round(((u) => u / 2 + (3 * u * u) / 2 - u * u * u)(Math.round(t * 4095) / 4095) * 255);

describe('gradient overlay options', () => {
  it('Align with Layer off spans the whole image, not the layer', async () => {
    // Canvas 60 wide, box 20..30: off, t = x / 60 (the ends at the canvas's first pixel and the
    // one past its last); on, the box's own ramp starts black at x = 20.
    const off = await render(documentWith({ left: 20, w: 10, h: 8 }, { W: 60, H: 16 }, { angle: 0, align: false }));
    expect(off(20, 8)).toBe(eased(20 / 60));
    expect(off(29, 8)).toBe(eased(29 / 60));
    const on = await render(documentWith({ left: 20, w: 10, h: 8 }, { W: 60, H: 16 }, { angle: 0, align: true }));
    expect(on(20, 8)).toBe(0);
  });

  it('the offset is a share of the box: 20 % moves a 50 px ramp 10 px', async () => {
    // Box 4..54: centre 29 + 10, so black at 14 and half-way at 39 (ag-psd reads the stored 20 %
    // as 0.2; taken as percent again it moved the ramp 0.1 px).
    const at = await render(documentWith({ left: 4, w: 50, h: 6 }, { W: 60, H: 14 }, { angle: 0, offset: { x: 0.2, y: 0 } }));
    expect(at(10, 6)).toBe(0);
    expect(at(14, 6)).toBe(0);
    expect(at(39, 6)).toBe(eased(0.5));
  });

  it('a diamond points a corner along the angle: at 45° its rings are squares on the axes', async () => {
    // Box 41 × 41 at (4, 4): centre on pixel (24, 24). At 45° (6, 0) and (6, 6) lie on one ring;
    // at 0° (6, 0) and (3, 3) do (|x| + |y| = 6).
    const turned = await render(documentWith({ left: 4, w: 41, h: 41 }, { W: 49, H: 49 }, { angle: 45, type: 'diamond' }));
    expect(turned(30, 24)).toBe(turned(30, 30));
    expect(turned(30, 24)).toBe(turned(24, 18));
    expect(turned(30, 24)).not.toBe(turned(27, 27));
    const square = await render(documentWith({ left: 4, w: 41, h: 41 }, { W: 49, H: 49 }, { angle: 0, type: 'diamond' }));
    expect(square(30, 24)).toBe(square(27, 27));
    expect(square(30, 24)).not.toBe(square(30, 30));
  });
});
