import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';

/**
 * Blend If (Blending Options > Blend If: Gray, Red, Green, Blue; "This Layer" and "Underlying
 * Layer"). Each slider pair [black low, black high, white low, white high] lets values through
 * fully between the inner pair, not at all outside the outer pair, and on a linear ramp across a
 * split slider (Alt-drag). The layer's alpha is multiplied by every channel's weight for its own
 * value and the underlying value. Grey values (R = G = B) are used where the grey weighting
 * would otherwise matter.
 */

type RGB = [number, number, number];
const FULL = [0, 0, 255, 255];
const px = (c: RGB, a = 255): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([...c, a]) });
const grey = (v: number): RGB => [v, v, v];

function blendIf(backdrop: RGB, source: RGB, ranges: Array<{ source: number[]; dest: number[] }>): number[] {
  const d = px(backdrop);
  blendSurface(d, px(source), null, 1, 'normal', { blendIf: ranges });
  return [...d.data.subarray(0, 3)];
}

const fillImage = (c: RGB, w: number, h: number) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, 255], i * 4);
  return { width: w, height: h, data };
};
const ranges = (gray: { source?: number[]; dest?: number[] }, channel?: { index: number; source?: number[]; dest?: number[] }) => ({
  compositeGrayBlendSource: gray.source ?? FULL,
  compositeGraphBlendDestinationRange: gray.dest ?? FULL,
  ranges: [0, 1, 2].map((i) => ({ sourceRange: (i === channel?.index && channel.source) || FULL, destRange: (i === channel?.index && channel.dest) || FULL })),
});

async function render(children: Layer[], w = 4, h = 2) {
  const psd: Psd = { width: w, height: h, children };
  const compiled = await compileTemplate(env.FILES, writePsdUint8Array(psd));
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return (x: number, y: number) => [...img.data.subarray((y * w + x) * 4, (y * w + x) * 4 + 3)];
}

describe('Blend If', () => {
  it('lets this layer through between the inner sliders and ramps across split ones', () => {
    const split = [{ source: [0, 0, 100, 160], dest: FULL }];
    expect(blendIf(grey(0), grey(100), split)).toEqual(grey(100)); // at the inner slider: fully
    expect(blendIf(grey(0), grey(130), split)).toEqual(grey(65)); // half way down the ramp
    expect(blendIf(grey(0), grey(160), split)).toEqual(grey(0)); // at the outer slider: not at all
    expect(blendIf(grey(0), grey(200), split)).toEqual(grey(0));
    const unsplit = [{ source: [0, 0, 200, 200], dest: FULL }];
    expect(blendIf(grey(0), grey(200), unsplit)).toEqual(grey(200));
    expect(blendIf(grey(0), grey(201), unsplit)).toEqual(grey(0));
  });

  it("reads Gray as Photoshop's RGB luminosity, 0.3R + 0.59G + 0.11B", () => {
    // Pure blue is 28.05 (Rec. 601 weights would make it 29.07): through at 29, not at 28.
    expect(blendIf(grey(0), [0, 0, 255], [{ source: [0, 0, 29, 29], dest: FULL }])).toEqual([0, 0, 255]);
    expect(blendIf(grey(0), [0, 0, 255], [{ source: [0, 0, 28, 28], dest: FULL }])).toEqual(grey(0));
  });

  it('weighs the underlying value with its own sliders, and every channel together', () => {
    const under = [{ source: FULL, dest: [50, 100, 255, 255] }];
    expect(blendIf(grey(70), [0, 0, 255], under)).toEqual([42, 42, 144]); // weight 0.4
    expect(blendIf(grey(40), [0, 0, 255], under)).toEqual(grey(40));
    // Red of this layer limited to 0..100: a red of 200 does not blend, a red of 50 does.
    const red = [{ source: FULL, dest: FULL }, { source: [0, 0, 100, 100], dest: FULL }, { source: FULL, dest: FULL }, { source: FULL, dest: FULL }];
    expect(blendIf(grey(0), [200, 10, 10], red)).toEqual(grey(0));
    expect(blendIf(grey(0), [50, 10, 10], red)).toEqual([50, 10, 10]);
  });

  it('holds for groups, adjustment layers and the base of a clipping group', async () => {
    const bg: Layer = { name: 'bg', top: 0, left: 0, imageData: { width: 4, height: 2, data: new Uint8ClampedArray([...[0, 80, 160, 240].flatMap((v) => [v, v, v, 255]), ...[0, 80, 160, 240].flatMap((v) => [v, v, v, 255])]) } };
    const darkOnly = ranges({ dest: [0, 0, 100, 100] }); // only over underlying grey ≤ 100
    // An isolated group of blue: blue over 0 and 80, not over 160 and 240.
    const group = await render([bg, { name: 'g', blendMode: 'normal', blendingRanges: darkOnly, children: [{ name: 'blue', top: 0, left: 0, imageData: fillImage([0, 0, 255], 4, 2) }] }]);
    expect([0, 1, 2, 3].map((x) => group(x, 0))).toEqual([[0, 0, 255], [0, 0, 255], grey(160), grey(240)]);
    // An invert adjustment: inverts 0 and 80 only.
    const adj = await render([bg, { name: 'inv', adjustment: { type: 'invert' }, blendingRanges: darkOnly }]);
    expect([0, 1, 2, 3].map((x) => adj(x, 0))).toEqual([grey(255), grey(175), grey(160), grey(240)]);
    // A clipping group: red base with green clipped to it, over 0 and 80 only.
    const clip = await render([
      bg,
      { name: 'base', top: 0, left: 0, imageData: fillImage([255, 0, 0], 4, 2), blendingRanges: darkOnly },
      { name: 'clipped', top: 0, left: 2, clipping: true, imageData: fillImage([0, 255, 0], 2, 2) },
      { name: 'clipped2', top: 0, left: 0, clipping: true, imageData: fillImage([0, 0, 255], 1, 2) },
    ]);
    expect([0, 1, 2, 3].map((x) => clip(x, 0))).toEqual([[0, 0, 255], [255, 0, 0], grey(160), grey(240)]);
  });
});
