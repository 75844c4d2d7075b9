import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { useWasmBlending } from '../../../src/engine/raster/blend';
import { madeFixture } from '../../helpers/fixtures';

/**
 * Photoshop's own composites of the "special eight" at Fill below 100 %, as photocraft measured
 * them on Photoshop 27.11 (storytold/photocraft crates/compose/src/psblend.rs,
 * special_eight_fill_matches_photoshop): an opaque backdrop, one opaque layer at Opacity 100 % and
 * the Fill given, each mode; the 8-bit composite. Linear light is held to the level (a level below
 * b + q(2s − 1) in all nine channels); the other modes to a level, as photocraft holds them, and
 * hard mix at Fill 191/255 to 3 (dividing by 1 − q magnifies Photoshop's 8-bit rounding there).
 */
type Case = { backdrop: number[]; source: number[]; fill: number; photoshop: Record<string, number[]> };
const CASES: Case[] = [
  {
    backdrop: [200, 150, 100],
    source: [100, 180, 220],
    fill: 128 / 255,
    photoshop: {
      'color burn': [176, 132, 88], 'linear burn': [122, 112, 82], 'color dodge': [249, 232, 176], 'linear dodge': [250, 240, 210],
      'vivid light': [193, 188, 157], 'linear light': [171, 202, 192], 'hard mix': [245, 225, 165], difference: [150, 60, 10],
    },
  },
  {
    backdrop: [60, 120, 180],
    source: [210, 90, 30],
    fill: 64 / 255,
    photoshop: {
      'color burn': [51, 94, 159], 'linear burn': [49, 79, 124], 'color dodge': [76, 132, 186], 'linear dodge': [113, 143, 188],
      'vivid light': [71, 109, 162], 'linear light': [100, 100, 130], 'hard mix': [65, 105, 166], difference: [7, 97, 172],
    },
  },
  {
    backdrop: [60, 120, 180],
    source: [210, 90, 30],
    fill: 191 / 255,
    photoshop: {
      'color burn': [30, 0, 33], 'linear burn': [26, 0, 11], 'color dodge': [156, 163, 197], 'linear dodge': [217, 187, 202],
      'vivid light': [117, 81, 80], 'linear light': [183, 63, 33], 'hard mix': [102, 0, 47], difference: [97, 53, 158],
    },
  },
];

const px = (c: number[]): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([...c, 255]) });

/** `run()` through the WASM kernel and through the TypeScript loop, which must agree: the kernel's answer. */
function bothWays<T>(run: () => T): T {
  const kernel = run();
  useWasmBlending(false);
  try {
    expect(run()).toEqual(kernel);
  } finally {
    useWasmBlending(true);
  }
  return kernel;
}

function ours(mode: string, c: Case): number[] {
  const d = px(c.backdrop);
  blendSurface(d, px(c.source), null, 1, mode, { fill: c.fill });
  return [...d.data.subarray(0, 3)];
}

describe("the special eight at Fill below 100 % (Photoshop 27.11, photocraft's measurements)", () => {
  it('linear light: to the level, a level below b + q(2s − 1)', () => {
    for (const c of CASES) expect(ours('linear light', c), `fill ${c.fill}`).toEqual(c.photoshop['linear light']);
  });

  for (const mode of ['color burn', 'linear burn', 'color dodge', 'linear dodge', 'vivid light', 'hard mix', 'difference']) {
    it(`${mode}: within a level${mode === 'hard mix' ? ' (3 at Fill 191/255)' : ''}`, () => {
      for (const c of CASES) {
        const tolerance = mode === 'hard mix' && c.fill > 0.7 ? 3 : 1;
        ours(mode, c).forEach((v, i) => expect(Math.abs(v - c.photoshop[mode][i]), `fill ${c.fill} channel ${i}: ${v}`).toBeLessThanOrEqual(tolerance));
      }
    });
  }

  it('linear light at Fill 100 %: b + 2s − 256 levels, in the TypeScript loop and the WASM kernel alike', () => {
    const at = (b: number, s: number) => {
      const d = px([b, b, b]);
      blendSurface(d, px([s, s, s]), null, 1, 'linear light');
      return d.data[0];
    };
    const both = (b: number, s: number) => bothWays(() => at(b, s));
    expect(both(0, 255)).toBe(254);
    expect(both(128, 128)).toBe(128);
    expect(both(200, 100)).toBe(144);
    expect(both(10, 100)).toBe(0);
    expect(both(255, 128)).toBe(255);
  });
});

/**
 * made-ah-special-eight-measured.psd (test/fixtures/psd-made/make-ah.mjs): the same measurements
 * as a document, each case a 4 × 2 layer at its Fill over its backdrop, the merged image
 * Photoshop's measured values. Through compile and render, as the fidelity test reads it.
 */
describe('made-ah-special-eight-measured.psd through compile and render', () => {
  it("is Photoshop's value to the level in linear light, within a level elsewhere (3 in hard mix at Fill 191/255)", async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-ah-special-eight-measured.psd'));
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const modes = Object.keys(CASES[0].photoshop);
    const misses: string[] = [];
    for (let y = 0; y < 16; y++) {
      for (let x = 0; x < 12; x++) {
        const mode = modes[y >> 1];
        const c = CASES[(x / 4) | 0];
        const tolerance = mode === 'linear light' ? 0 : mode === 'hard mix' && c.fill > 0.7 ? 3 : 1;
        const got = [...image.data.subarray((y * 12 + x) * 4, (y * 12 + x) * 4 + 3)];
        if (got.some((v, i) => Math.abs(v - c.photoshop[mode][i]) > tolerance)) misses.push(`${mode} fill ${c.fill}: ${got} vs ${c.photoshop[mode]}`);
      }
    }
    expect(misses).toEqual([]);
  });
});

/**
 * A clipped layer blends with its base's colour whole, as over an opaque base, and the base keeps
 * its alpha (photocraft's clipping, "fitted to Photoshop": crates/compose/src/lib.rs
 * composite_atop, "blend as if the base were opaque, then keep the base's alpha"). The W3C
 * source-atop weighed in the source's own colour by 1 − ab, which tinted the soft edges and
 * semi-transparent parts of a base with the clipped layer's colour in every mode but Normal.
 */
describe('clipped (atop) blending over a base that is not opaque', () => {
  const clip = (mode: string, opacity = 1) => {
    const d: Surface = { x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([200, 100, 50, 128]) };
    blendSurface(d, px([100, 200, 60]), null, opacity, mode, { atop: true });
    return [...d.data];
  };
  const both = (mode: string, opacity = 1) => bothWays(() => clip(mode, opacity));

  it('multiply: the base multiplied whole, alpha kept', () => {
    expect(both('multiply')).toEqual([78, 78, 12, 128]);
    // At opacity ½ half-way from the base to that.
    expect(both('multiply', 0.5)).toEqual([139, 89, 31, 128]);
  });

  it('screen, difference and hue alike (the TS loop and the kernel agree)', () => {
    expect(both('screen')).toEqual([222, 222, 98, 128]);
    expect(both('difference')).toEqual([100, 100, 10, 128]);
    const hue = clip('hue');
    expect(hue[3]).toBe(128);
  });
});

describe('made-ah-clip-soft-base.psd through compile and render', () => {
  it('matches its merged image (clipped multiply, screen, difference and hue over a base of alpha 0..255) within a level', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-ah-clip-soft-base.psd'));
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const stored = (await loadStoredComposite(env.FILES, compiled))!;
    let worst = 0;
    for (let i = 0; i < image.data.length; i++) if (i % 4 !== 3) worst = Math.max(worst, Math.abs(image.data[i] - stored[i]));
    expect(worst).toBeLessThanOrEqual(1);
  });
});

/**
 * The text gamma's space against photocraft's two Photoshop readings of psd-tools'
 * layer_effects.psd (psblend.rs text_gamma_lightens_dark_edges): a blue (0, 51, 153) glyph edge
 * over grey 129 at 69 % coverage is (57, 80, 146), at 94 % (13, 57, 152).
 */
describe('text gamma 1.45 at a glyph edge over grey (Photoshop, as photocraft read it)', () => {
  it('gives Photoshop\'s pixels to the level', () => {
    for (const [a, want] of [[0.686, [57, 80, 146]], [0.937, [13, 57, 152]]] as Array<[number, number[]]>) {
      const d = px([129, 129, 129]);
      blendSurface(d, { x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([0, 51, 153, Math.round(a * 255)]) }, null, 1, 'normal', { textGamma: 1.45 });
      expect([...d.data.subarray(0, 3)], `coverage ${a}`).toEqual(want);
    }
  });
});
