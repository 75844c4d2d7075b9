import { describe, expect, it } from 'vitest';
import { blendSurface, FILL_INSIDE, SEPARABLE } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { useWasmBlending } from '../../../src/engine/raster/blend';

/**
 * Fill opacity in Photoshop's "special eight" modes (color burn, linear burn, color dodge, linear
 * dodge, vivid light, linear light, hard mix, difference): Fill q goes into the blend, pulling
 * the blend colour toward the mode's neutral colour, instead of fading the result as Opacity (and
 * Fill in every other mode) does. The derivation is in src/engine/composite/blend.ts (FILL_INSIDE).
 */

const px = (r: number, g: number, b: number, a = 255): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([r, g, b, a]) });
const EIGHT = ['color burn', 'linear burn', 'color dodge', 'linear dodge', 'vivid light', 'linear light', 'hard mix', 'difference'];

function blend(mode: string, backdrop: Surface, source: Surface, opacity: number, fill?: number): number[] {
  blendSurface(backdrop, source, null, opacity, mode, fill === undefined ? {} : { fill });
  return [...backdrop.data];
}

describe('fill opacity in the special eight', () => {
  it('is exactly the eight modes', () => {
    expect(Object.keys(FILL_INSIDE).sort()).toEqual([...EIGHT].sort());
  });

  it('leaves an opaque backdrop as it is at fill 0, and is the mode itself at fill 1', () => {
    for (const mode of EIGHT) {
      for (const b of [0, 0.2, 0.5, 0.73, 1]) {
        for (const s of [0, 0.1, 0.5, 0.9, 1]) {
          expect(FILL_INSIDE[mode](b, s, 0), `${mode} b=${b} s=${s}`).toBeCloseTo(b, 12);
          expect(FILL_INSIDE[mode](b, s, 1), `${mode} b=${b} s=${s}`).toBeCloseTo(SEPARABLE[mode](b, s), 12);
        }
      }
    }
  });

  it('pulls the blend colour toward the neutral colour, unlike opacity', () => {
    const b = () => px(200, 100, 50);
    const s = () => px(100, 200, 60);
    // Linear dodge at fill ½: b + s/2 = (250, 200, 80); at opacity ½: b + (min(1, b + s) − b)/2.
    expect(blend('linear dodge', b(), s(), 1, 0.5)).toEqual([250, 200, 80, 255]);
    const faded = blend('linear dodge', b(), s(), 0.5); // (227.5, 177.5, 80)
    [227.5, 177.5, 80].forEach((v, i) => expect(Math.abs(faded[i] - v)).toBeLessThanOrEqual(0.5));
    // Difference at fill ½: |b − s/2| = (150, 0, 20); at opacity ½: b + (|b − s| − b)/2 = (150, 100, 30).
    expect(blend('difference', b(), s(), 1, 0.5)).toEqual([150, 0, 20, 255]);
    expect(blend('difference', b(), s(), 0.5)).toEqual([150, 100, 30, 255]);
    // Linear burn at fill ½: b − (255 − s)/2 = (122.5, 72.5, 0), to the nearest level either way.
    const burn = blend('linear burn', b(), s(), 1, 0.5);
    [122.5, 72.5, 0].forEach((v, i) => expect(Math.abs(burn[i] - v)).toBeLessThanOrEqual(0.5));
  });

  it("softens hard mix into Photoshop's soft hard mix 3b − 2(1 − s) at fill ⅔", () => {
    const b = [200, 100, 50];
    const s = [100, 200, 60];
    const got = blend('hard mix', px(...(b as [number, number, number])), px(...(s as [number, number, number])), 1, 2 / 3);
    const want = b.map((v, i) => Math.round(Math.min(255, Math.max(0, 3 * v - 2 * (255 - s[i])))));
    got.slice(0, 3).forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(1));
  });

  it('fades the layer by fill in every other mode, bit-identical to opacity × fill', () => {
    for (const mode of ['normal', 'multiply', 'screen', 'overlay', 'hue']) {
      expect(blend(mode, px(200, 100, 50), px(100, 200, 60), 0.8, 0.4)).toEqual(blend(mode, px(200, 100, 50), px(100, 200, 60), 0.8 * 0.4));
    }
  });

  it('gives the same result from the TypeScript loop with or without the WASM kernels', () => {
    useWasmBlending(false);
    try {
      expect(blend('multiply', px(200, 100, 50), px(100, 200, 60), 0.8, 0.4)).toEqual(blend('multiply', px(200, 100, 50), px(100, 200, 60), 0.32));
    } finally {
      useWasmBlending(true);
    }
  });

  it('shows the layer at fill × alpha where nothing is beneath, as fill does in any mode', () => {
    expect(blend('color dodge', px(0, 0, 0, 0), px(100, 200, 60), 1, 0.5)).toEqual([100, 200, 60, 128]);
    // Half-covered backdrop: the blend where it is, the source at q where it is not.
    const half = blend('linear dodge', px(200, 100, 50, 128), px(100, 200, 60), 1, 0.5);
    const ab = 128 / 255;
    const sw = 0.5 * (1 - ab) + ab; // the source's share
    const want = [200, 100, 50].map((bv, i) => {
      const s = [100, 200, 60][i] / 255;
      const blended = Math.min(1, bv / 255 + 0.5 * s);
      return Math.round(((0.5 * (1 - ab) * s + ab * blended) / sw) * 255);
    });
    half.slice(0, 3).forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(1));
    expect(Math.abs(half[3] - sw * 255)).toBeLessThanOrEqual(1);
  });

  it('applies inside clipped (source-atop) layers too, keeping the backdrop alpha', () => {
    const b = px(200, 100, 50, 255);
    blendSurface(b, px(100, 200, 60), null, 1, 'linear dodge', { atop: true, fill: 0.5 });
    expect([...b.data]).toEqual([250, 200, 80, 255]);
  });
});
