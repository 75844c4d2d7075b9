import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * Satin as photocraft draws it (satin_map, crates/compose/src/effects.rs; its two box passes
 * "fitted: 0.2 % mean error on psd-tools layer_effects", whose composite is our
 * psdtools-layer-effects-all.psd): each copy of the shape moves by the distance along the angle in
 * whole pixels, as a shadow does, and Invert turns the copies' difference over before the contour
 * shapes it. Measured on Photoshop's composites here: whole pixels took
 * psdtools-layer-effects-all.psd from 60.95 to 61.00 dB; the inverted satin of agpsd-effects.psd
 * (Photoshop's composite) gained 0.15 dB with Invert before the contour (docs/effects.md,
 * "photocraft's bevel, glow and satin calibrations").
 */
const S = 48;
const px = (value: number) => ({ value, units: 'Pixels' as const });
type Point = { x: number; y: number };
const satin = (angle: number, distance: number, invert: boolean, curve: Point[]) => ({
  enabled: true,
  present: true,
  size: px(6),
  blendMode: 'normal',
  color: { r: 0, g: 0, b: 0 },
  opacity: 1,
  angle,
  distance: px(distance),
  invert,
  contour: { name: 'c', curve },
});

function doc(effects: Layer['effects']): Uint8Array {
  const bg = { width: S, height: S, data: new Uint8ClampedArray(S * S * 4).fill(255) };
  const side = 24;
  const sq = { width: side, height: side, data: new Uint8ClampedArray(side * side * 4) };
  for (let i = 0; i < side * side; i++) sq.data.set([255, 255, 255, 255], i * 4);
  return writePsdUint8Array(
    { width: S, height: S, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, { name: 'square', left: 12, top: 12, imageData: sq, effects }] },
    { noBackground: false },
  );
}
const render = async (bytes: Uint8Array) => (await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 })).data;
const LINEAR = [
  { x: 0, y: 0 },
  { x: 255, y: 255 },
];
const maxDiff = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('satin', () => {
  it('moves its copies by whole pixels: 11 px at 19° is (10, −4), as 10.77 px at 21.8° is', async () => {
    const a = await render(doc({ satin: satin(19, 11, false, LINEAR) as never }));
    const b = await render(doc({ satin: satin((Math.atan2(4, 10) * 180) / Math.PI, Math.hypot(4, 10), false, LINEAR) as never }));
    expect(maxDiff(a, b)).toBe(0);
    // A different whole offset does differ: the comparison means something.
    const c = await render(doc({ satin: satin(19, 9, false, LINEAR) as never }));
    expect(maxDiff(a, c)).toBeGreaterThan(20);
  });

  it('inverts before the contour: Invert with a contour c is no Invert with c mirrored', async () => {
    const peak = [
      { x: 0, y: 0 },
      { x: 64, y: 255 },
      { x: 255, y: 0 },
    ];
    const mirrored = peak.map((p) => ({ x: 255 - p.x, y: p.y })).reverse();
    const inverted = await render(doc({ satin: satin(0, 4, true, peak) as never }));
    const plain = await render(doc({ satin: satin(0, 4, false, mirrored) as never }));
    expect(maxDiff(inverted, plain)).toBeLessThanOrEqual(2);
  });
});
