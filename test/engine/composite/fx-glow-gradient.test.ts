import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { gradientRamp, type Gradient } from '../../../src/engine/composite/gradient';
import { againstMergedImage } from './kit';

/**
 * Glows filled with a gradient ('Grad' in place of 'Clr '): the gradient runs along the glow, not
 * across the canvas. Where the glow's strength (after its range and contour) is v, its colour is
 * the gradient at 1 − v, so the first stop hugs the layer's edge, and the glow is opaque from
 * v = range² on (coverage min(1, v ÷ range²)): photocraft's paint_glow (crates/compose/src/
 * effects.rs), measured on Photoshop's composite of its corpus file outer-glow-gradient.psd (1.4/255
 * mean error) and psd-tools' layer_params.psd. Before, a gradient glow was painted in its (absent)
 * colour: black.
 *
 * A precise glow of size 8 around a 10 px opaque square (x 15..24) over white: at x = 25 + k the
 * raw strength is 1 − (k + ½) ÷ 8. The gradient is red → blue (Classic, smoothness 100 %: ag-psd
 * scales the stops' places by it), sampled through gradient.ts's ramp.
 */
const S = 40;
const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];
const px = (value: number) => ({ value, units: 'Pixels' as const });
const gradient = {
  name: 'red to blue',
  type: 'solid' as const,
  smoothness: 1,
  colorStops: [
    { color: { r: RED[0], g: RED[1], b: RED[2] }, location: 0, midpoint: 0.5 },
    { color: { r: BLUE[0], g: BLUE[1], b: BLUE[2] }, location: 1, midpoint: 0.5 },
  ],
  opacityStops: [
    { opacity: 1, location: 0, midpoint: 0.5 },
    { opacity: 1, location: 1, midpoint: 0.5 },
  ],
};
const glow = (range: number, extra: object = {}) => ({ enabled: true, present: true, size: px(8), blendMode: 'normal', opacity: 1, technique: 'precise', choke: px(0), range, gradient, ...extra });

function doc(effects: Layer['effects'], side = 10, at = 15): Uint8Array {
  const bg = { width: S, height: S, data: new Uint8ClampedArray(S * S * 4).fill(255) };
  const sq = { width: side, height: side, data: new Uint8ClampedArray(side * side * 4) };
  for (let i = 0; i < side * side; i++) sq.data.set([0, 160, 0, 255], i * 4);
  return writePsdUint8Array(
    { width: S, height: S, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, { name: 'square', left: at, top: at, imageData: sq, effects }] },
    { noBackground: false },
  );
}
const render = async (bytes: Uint8Array) => renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
const at = (img: { data: Uint8ClampedArray }, x: number, y: number) => [...img.data.slice((y * S + x) * 4, (y * S + x) * 4 + 3)];
const ramp = gradientRamp(gradient as Gradient)!;
/** The gradient's colour at t. */
const colour = (t: number) => [0, 1, 2].map((c) => ramp.rgba[Math.round(t * (ramp.steps - 1)) * 4 + c]);
/** White under the gradient's colour at 1 − v, at coverage k. */
const want = (v: number, k: number) => colour(1 - v).map((g) => 255 + (g - 255) * k);
const near = (got: number[], exp: number[], tol = 3) => got.forEach((g, c) => expect(Math.abs(g - exp[c]), `${got} vs ${exp.map(Math.round)}`).toBeLessThanOrEqual(tol));

describe('glows filled with a gradient', () => {
  it('outer glow, range 100 %: the colour at 1 − v, the coverage v', async () => {
    const img = await render(doc({ outerGlow: glow(1) as never }));
    for (const k of [0, 2, 4, 6]) {
      const v = 1 - (k + 0.5) / 8;
      near(at(img, 25 + k, 20), want(v, v));
    }
    near(at(img, 34, 20), [255, 255, 255]);
  });

  it('outer glow, range 50 %: the contour over the range, opaque from v = range² on', async () => {
    const img = await render(doc({ outerGlow: glow(0.5) as never }));
    for (const k of [0, 3, 5, 6, 7]) {
      const v = Math.min(1, (1 - (k + 0.5) / 8) / 0.5);
      near(at(img, 25 + k, 20), want(v, Math.min(1, v * 4)));
    }
  });

  it('inner glow from the edge: the first stop along the edge, inside the layer only', async () => {
    const img = await render(doc({ innerGlow: glow(1, { source: 'edge' }) as never }, 20, 10));
    // The square spans 10..29; 10 px in from every side is past the size: the layer's own green.
    for (const k of [0, 2, 4]) {
      const v = 1 - (k + 0.5) / 8;
      // The glow over the layer's green at coverage v.
      const c = want(v, 1).map((g, ch) => [0, 160, 0][ch] + (g - [0, 160, 0][ch]) * v);
      near(at(img, 10 + k, 20), c);
    }
    near(at(img, 20, 20), [0, 160, 0]);
    near(at(img, 8, 20), [255, 255, 255]);
  });

  it('a colour glow is drawn as before', async () => {
    const { gradient: _, ...plain } = glow(1);
    const img = await render(doc({ outerGlow: { ...plain, color: { r: 0, g: 0, b: 0 } } as never }));
    const v = 1 - 0.5 / 8;
    near(at(img, 25, 20), [255 * (1 - v), 255 * (1 - v), 255 * (1 - v)]);
  });

  it('made-ai-glow-gradient.psd: its merged image, worked out from the rule (make-ai.mjs), within a level or two', async () => {
    const { psnr, worst } = await againstMergedImage('made-ai-glow-gradient.psd');
    expect(worst).toBeLessThanOrEqual(2);
    expect(psnr).toBeGreaterThan(55);
  });
});
