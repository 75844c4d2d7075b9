import { beforeAll, describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing, randomColours, type HueSatRange, type HueSatSetting } from './huesat-kit';

/**
 * Issue 25 §3 (huesat-f32): the Hue/Saturation kernel works out four pixels at a time in f32
 * (wasm/assembly/hue-saturation.ts quadPixels) and leaves to its f64 path every pixel where f32
 * could round differently: a channel within its error bound of an x.5, a hue exactly at a range's
 * end. Held to the TypeScript (adjust.ts hueSaturation, the kernels off) on a million random
 * colours and on every colour whose hue lies within a degree of a range's ends, under the four
 * settings of psdtools-adjust-hue-saturation.psd and settings with a range's b = a or d = c, ranges
 * passing 0°, the master's lightness ±, saturation −100..+100. Without the x.5 guard a million
 * colours under the fixture's settings differ in thousands of bytes; without the check at the
 * range ends, the colours near the ends differ.
 */

let seed = 20261130;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);


/** psdtools-adjust-hue-saturation.psd's four masked Hue/Saturation layers (as ag-psd reads them). */
const FIXTURE: HueSatSetting[] = [
  { master: { hue: -27, saturation: 0, lightness: 10 }, reds: { a: 315, b: 345, c: 15, d: 90, hue: 19, saturation: 14, lightness: 26 }, yellows: { a: 330, b: 359, c: 29, d: 59, hue: -38, saturation: 93, lightness: 27 }, cyans: { a: 135, b: 165, c: 195, d: 225, hue: -17, saturation: 20, lightness: -91 }, blues: { a: 222, b: 260, c: 353, d: 23, hue: 38, saturation: -78, lightness: 43 }, magentas: { a: 275, b: 311, c: 50, d: 137, hue: 36, saturation: 0, lightness: -26 } },
  { master: { hue: 0, saturation: -97, lightness: 0 }, reds: { a: 207, b: 239, c: 351, d: 37, hue: 32, saturation: 93, lightness: 0 }, greens: { a: 267, b: 315, c: 343, d: 27, hue: -38, saturation: -83, lightness: 0 }, cyans: { a: 279, b: 46, c: 107, d: 147, hue: 0, saturation: -61, lightness: 0 }, magentas: { a: 82, b: 133, c: 151, d: 171, hue: 0, saturation: 100, lightness: 0 } },
  { master: { hue: 122, saturation: 100, lightness: -37 } },
  { master: { hue: 66, saturation: 0, lightness: 28 }, reds: { a: 262, b: 322, c: 40, d: 133, hue: 180, saturation: 0, lightness: -59 }, yellows: { a: 15, b: 45, c: 75, d: 105, hue: 16, saturation: 0, lightness: 100 }, magentas: { a: 255, b: 285, c: 315, d: 67, hue: 26, saturation: 0, lightness: 46 } },
];

/** Settings the fixture lacks: ranges with b = a, d = c, wrapping past 0°, full (de)saturation, master lightness both ways. */
const EDGES: HueSatSetting[] = [
  { master: { hue: 0, saturation: -100, lightness: 52 }, reds: { a: 41, b: 41, c: 63, d: 63, hue: -72, saturation: 43, lightness: 4 }, blues: { a: 172, b: 192, c: 254, d: 258, hue: -22, saturation: 98, lightness: -26 } },
  { master: { hue: -111, saturation: 50, lightness: -20 }, greens: { a: 331, b: 331, c: 8, d: 12, hue: 11, saturation: -100, lightness: 9 }, cyans: { a: 312, b: 348, c: 44, d: 69, hue: 159, saturation: 100, lightness: 100 } },
  { master: { hue: 180, saturation: -50, lightness: -100 + 1 }, magentas: { a: 300, b: 330, c: 330, d: 359, hue: -180, saturation: -25, lightness: -100 } },
];

/** PSD-like random settings: whole-degree ranges (some with b = a or d = c), any hue, saturation and lightness. */
function randomSetting(): HueSatSetting {
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const amount = () => (rnd() < 0.3 ? 0 : rnd() < 0.2 ? (rnd() < 0.5 ? -100 : 100) : int(-100, 100));
  const setting: HueSatSetting = { master: { hue: rnd() < 0.3 ? 0 : int(-180, 180), saturation: amount(), lightness: rnd() < 0.4 ? 0 : int(-99, 99) } };
  for (const name of ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas'] as const) {
    if (rnd() < 0.35) continue;
    const a = int(0, 359);
    const w1 = rnd() < 0.15 ? 0 : int(1, 60), w2 = int(0, 120), w3 = rnd() < 0.15 ? 0 : int(1, 60);
    setting[name] = { a, b: (a + w1) % 360, c: (a + w1 + w2) % 360, d: (a + w1 + w2 + w3) % 360, hue: rnd() < 0.3 ? 0 : int(-180, 180), saturation: amount(), lightness: amount() };
  }
  return setting;
}



/** Colours (opaque) of every hue within a degree of `ends` (degrees), at every chroma and many lightnesses. */
function nearHues(ends: number[]): Uint8ClampedArray {
  const out: number[] = [];
  for (let mn = 0; mn < 255; mn += 17) {
    for (let mx = mn + 1; mx < 256; mx++) {
      const dd = mx - mn;
      for (let mid = mn; mid <= mx; mid++) {
        const f = (mid - mn) / dd;
        // The six places of the middle channel: hues 60 s ± 60 f.
        const colours = [[mx, mid, mn, f], [mid, mx, mn, 2 - f], [mn, mx, mid, 2 + f], [mn, mid, mx, 4 - f], [mid, mn, mx, 4 + f], [mx, mn, mid, 6 - f]] as const;
        for (const [r, g, b, h6] of colours) {
          const h = (h6 * 60) % 360;
          if (ends.some((e) => Math.abs(((h - e + 540) % 360) - 180) <= 1)) out.push(r, g, b, 255);
        }
      }
    }
  }
  return Uint8ClampedArray.from(out);
}


const ends = (s: HueSatSetting) => Object.entries(s).flatMap(([k, r]) => (k === 'master' ? [] : [(r as HueSatRange).a, (r as HueSatRange).b, (r as HueSatRange).c, (r as HueSatRange).d]));

describe('Hue/Saturation in f32 quads with the f64 path near rounding and range ends (issue 25 §3)', () => {
  beforeAll(async () => {
    await kernels();
  });

  const million = randomColours(1_000_000, rnd);
  const settings = [...FIXTURE, ...EDGES, ...Array.from({ length: 6 }, randomSetting)];

  it.each(settings.map((s, i) => [i, s] as const))("setting %i: the TypeScript's bytes on a million random colours", (_, setting) => {
    expect(differing(setting, million), JSON.stringify(setting)).toBe(0);
  });

  it.each(settings.map((s, i) => [i, s] as const).filter(([, s]) => ends(s).length))("setting %i: the TypeScript's bytes on every hue within a degree of a range's end", (_, setting) => {
    const px = nearHues([...ends(setting), 0]);
    expect(px.length).toBeGreaterThan(40_000);
    expect(differing(setting, px), JSON.stringify(setting)).toBe(0);
  });
});
