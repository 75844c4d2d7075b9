import { describe, expect, it } from 'vitest';
import { BLEND_MODES } from '../../../src/engine';
import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';

const px = (r: number, g: number, b: number, a = 255): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([r, g, b, a]) });

function blend(mode: string, backdrop: Surface, source: Surface, opacity = 1): number[] {
  blendSurface(backdrop, source, null, opacity, mode);
  return [...backdrop.data];
}

describe('blend modes', () => {
  it('covers every Photoshop blend mode', () => {
    const photoshop = [
      'normal', 'dissolve', 'darken', 'multiply', 'color burn', 'linear burn', 'darker color', 'lighten', 'screen',
      'color dodge', 'linear dodge', 'lighter color', 'overlay', 'soft light', 'hard light', 'vivid light', 'linear light',
      'pin light', 'hard mix', 'difference', 'exclusion', 'subtract', 'divide', 'hue', 'saturation', 'color', 'luminosity',
    ];
    expect(BLEND_MODES.slice().sort()).toEqual(photoshop.slice().sort());
  });

  it('computes the separable modes with Photoshop formulas on opaque pixels', () => {
    const b = () => px(200, 100, 50);
    const s = () => px(100, 200, 128);
    expect(blend('multiply', b(), s())).toEqual([78, 78, 25, 255]);
    expect(blend('screen', b(), s())).toEqual([222, 222, 153, 255]);
    expect(blend('darken', b(), s())).toEqual([100, 100, 50, 255]);
    expect(blend('lighten', b(), s())).toEqual([200, 200, 128, 255]);
    expect(blend('difference', b(), s())).toEqual([100, 100, 78, 255]);
    expect(blend('linear dodge', b(), s())).toEqual([255, 255, 178, 255]);
    expect(blend('linear burn', b(), s())).toEqual([45, 45, 0, 255]);
    expect(blend('subtract', b(), s())).toEqual([100, 0, 0, 255]);
    expect(blend('hard mix', b(), s())).toEqual([255, 255, 0, 255]);
  });

  it('keeps the backdrop luminosity in colour mode and its colour in luminosity mode', () => {
    const lum = ([r, g, b]: number[]) => 0.3 * r + 0.59 * g + 0.11 * b;
    const backdrop = [40, 160, 90];
    const color = blend('color', px(40, 160, 90), px(220, 30, 30));
    expect(Math.abs(lum(color) - lum(backdrop))).toBeLessThan(1.5);
    const l = blend('luminosity', px(40, 160, 90), px(220, 30, 30));
    expect(Math.abs(lum(l) - lum([220, 30, 30]))).toBeLessThan(1.5);
  });

  it('applies opacity as source alpha and composites over transparency as normal', () => {
    expect(blend('normal', px(0, 0, 0), px(255, 255, 255), 0.5)).toEqual([128, 128, 128, 255]);
    expect(blend('multiply', px(0, 0, 0, 0), px(10, 20, 30))).toEqual([10, 20, 30, 255]);
    expect(blend('normal', px(0, 0, 0, 0), px(10, 20, 30, 128))).toEqual([10, 20, 30, 128]);
  });

  it("fades a layer out where blend-if ranges exclude this layer's or the underlying grey", () => {
    const full = [0, 0, 255, 255];
    const darkOnly = [{ source: [0, 0, 100, 150], dest: full }];
    const bright = px(0, 0, 0);
    blendSurface(bright, px(255, 255, 255), null, 1, 'normal', { blendIf: darkOnly });
    expect([...bright.data]).toEqual([0, 0, 0, 255]);
    const mid = px(0, 0, 0);
    blendSurface(mid, px(125, 125, 125), null, 1, 'normal', { blendIf: darkOnly });
    expect([...mid.data]).toEqual([62, 62, 62, 255]); // 125 · ½ = 62.5, rounded to even
    const overWhite = px(255, 255, 255);
    blendSurface(overWhite, px(0, 0, 0), null, 1, 'normal', { blendIf: [{ source: full, dest: [0, 0, 100, 100] }] });
    expect([...overWhite.data]).toEqual([255, 255, 255, 255]);
  });
});

describe('blend modes at their edges (issue 25: what Photoshop 2026 renders, measured by psd-tools PR #784)', () => {
  it('vivid light: a black source burns to 0 and a white one dodges to 1 whatever the backdrop', () => {
    expect(blend('vivid light', px(255, 0, 128), px(0, 255, 0))).toEqual([0, 255, 0, 255]);
    // In between, the burn and dodge keep a white or black backdrop as colour burn/dodge do.
    expect(blend('vivid light', px(255, 0, 128), px(1, 254, 0))).toEqual([255, 0, 0, 255]);
  });

  it('hard mix: on b + s = 255 exactly, 1 only where the backdrop is above ½', () => {
    expect(blend('hard mix', px(127, 128, 0), px(128, 127, 255))).toEqual([0, 255, 0, 255]);
    expect(blend('hard mix', px(127, 128, 1), px(129, 126, 255))).toEqual([255, 0, 255, 255]);
  });

  it('soft light: a light source over the darkest quarter lightens by ((16b − 12)b + 4)b, not √b', () => {
    const b = 16 / 255;
    const want = Math.round((b + ((16 * b - 12) * b + 4) * b - b) * 255); // s = 1
    expect(blend('soft light', px(16, 16, 16), px(255, 255, 255))[0]).toBe(want);
    expect(want).toBeLessThan(Math.round(Math.sqrt(b) * 255));
  });

  it('soft light: its result goes in whole 8-bit steps before the source alpha mixes it in', () => {
    // Black over 85 gives b² = 28.33 levels, taken as 28; at alpha 128 the mix is 56.39, not 56.55 → 57.
    expect(blend('soft light', px(85, 85, 85), px(0, 0, 0, 128))[0]).toBe(56);
  });
});

describe('text gamma ("Blend Text Colors Using Gamma 1.45")', () => {
  it('blends through the sRGB curve: black text edges over white as Photoshop draws them', () => {
    // webtoon-mobile-ui-example.psd: black glyph pixels at alpha 187, 153, 136, 119, 68 over white.
    const photoshop: Array<[number, number]> = [[187, 107], [153, 141], [136, 156], [119, 170], [68, 209]];
    for (const [alpha, want] of photoshop) {
      const white = px(255, 255, 255);
      blendSurface(white, px(0, 0, 0, alpha), null, 1, 'normal', { textGamma: 1.45 });
      expect(white.data[0], `alpha ${alpha}`).toBe(want);
    }
  });
});

describe('blending in the text space', () => {
  it("gives what the formula sRGB((ks·lin(s)^(1/γ) + kb·lin(b)^(1/γ))^γ) gives, in Normal and in another mode, at every alpha", () => {
    const gamma = 1.45;
    const lin = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    const enc = (l: number) => (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);
    const of = (v: number) => lin(v) ** (1 / gamma);
    let seed = 7;
    const rand = () => ((seed = Math.imul(seed ^ (seed >>> 15), 2246822519) + 12345) >>> 0) % 256;
    const surface = (n: number): Surface => ({ x: 0, y: 0, w: n, h: 1, data: new Uint8ClampedArray(Array.from({ length: n * 4 }, rand)) });
    for (const mode of ['normal', 'multiply']) {
      const dst = surface(512);
      const src = surface(512);
      const expected = new Float64Array(dst.data);
      for (let i = 0; i < expected.length; i += 4) {
        const as = (src.data[i + 3] / 255) * 0.8;
        const ab = expected[i + 3] / 255;
        if (as <= 0) continue;
        const ao = as + ab * (1 - as);
        const kb = (ab * (1 - as)) / ao;
        const ks = as / ao;
        for (let c = 0; c < 3; c++) {
          const s = src.data[i + c] / 255;
          const b = expected[i + c] / 255;
          const bl = mode === 'normal' || ab <= 0 ? s : (1 - ab) * s + ab * (s * b);
          expected[i + c] = enc(Math.min(1, (ks * of(bl) + kb * of(b)) ** gamma)) * 255;
        }
        expected[i + 3] = ao * 255;
      }
      blendSurface(dst, src, null, 0.8, mode, { textGamma: gamma });
      // Within a few ulps of the formula: the same byte, bar a value that falls on a half.
      for (let i = 0; i < expected.length; i++) expect(Math.abs(dst.data[i] - expected[i]), `${mode} ${i}`).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });
});
