import { beforeAll, describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing, randomColours, type HueSatSetting } from './huesat-kit';

/**
 * Issue 25 §3 (fullpic): under the call's error bound the Hue/Saturation kernel's quads use the
 * colour cache in stretches, and go without it for 2,048 quads after 256 in which fewer than 16
 * were found whole in it (wasm/assembly/hue-saturation.ts quadStretches). Held to the TypeScript
 * (the kernels off) on pixels that turn the cache off and on again: stretches of random colours
 * (a photo's: off), of a few colours in runs (a text's, a flat fill's: on), and of colours whose
 * channels land on exact halves under a 66° turn, left to the f64 path (queued for a batch with
 * the cache on or off), in lengths off the stretches' grid and with a tail of fewer than 4 pixels.
 */

let seed = 20261201;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

/** Settings whose quads take the call's bound: a master turn (its halves redone in f64), ranges turning the hue, a shrinking master α; and one with each lane's own bound. */
const SETTINGS: HueSatSetting[] = [
  { master: { hue: 66, saturation: 0, lightness: 28 } },
  { master: { hue: 30, saturation: 0, lightness: 0 }, reds: { a: 330, b: 350, c: 20, d: 40, hue: -90, saturation: 0, lightness: 0 }, blues: { a: 200, b: 200, c: 250, d: 250, hue: 120, saturation: 0, lightness: 0 } },
  { master: { hue: 0, saturation: -97, lightness: 0 }, reds: { a: 207, b: 239, c: 351, d: 37, hue: 32, saturation: 93, lightness: 0 }, magentas: { a: 82, b: 133, c: 151, d: 171, hue: 0, saturation: 100, lightness: 0 } },
  { master: { hue: 122, saturation: 100, lightness: -37 } },
  // Each lane's own bound (five ranges, a range α of 13.3 with lightness): in stretches too since session 21.
  { master: { hue: -27, saturation: 0, lightness: 10 }, reds: { a: 315, b: 345, c: 15, d: 90, hue: 19, saturation: 14, lightness: 26 }, yellows: { a: 330, b: 359, c: 29, d: 59, hue: -38, saturation: 93, lightness: 27 }, cyans: { a: 135, b: 165, c: 195, d: 225, hue: -17, saturation: 20, lightness: -91 }, blues: { a: 222, b: 260, c: 353, d: 23, hue: 38, saturation: -78, lightness: 43 }, magentas: { a: 275, b: 311, c: 50, d: 137, hue: 36, saturation: 0, lightness: -26 } },
];

/** `n` pixels of a few colours in runs of 1–12. */
function fewColours(n: number): Uint8ClampedArray {
  const palette = Array.from({ length: 6 }, () => [0, 0, 0].map(() => Math.floor(rnd() * 256)));
  const px = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; ) {
    const colour = palette[Math.floor(rnd() * palette.length)]!;
    for (let run = 1 + Math.floor(rnd() * 12); run > 0 && i < n; run--, i++) px.set([...colour, 255], 4 * i);
  }
  return px;
}

/** `n` pixels whose chroma is an odd multiple of 5 (under a 66° turn their middle channel lands on an exact half), some repeated. */
function onHalves(n: number): Uint8ClampedArray {
  const px = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; ) {
    const dd = 5 * (1 + 2 * Math.floor(rnd() * 25));
    const mn = Math.floor(rnd() * (256 - dd)), mid = mn + Math.floor(rnd() * (dd + 1));
    const colour = [mn + dd, mid, mn].sort(() => rnd() - 0.5);
    for (let run = 1 + Math.floor(rnd() * 3); run > 0 && i < n; run--, i++) px.set([...colour, 255], 4 * i);
  }
  return px;
}

/** Stretches of each kind one after another, in lengths off the kernel's stretches (1,024 and 8,192 pixels) and ending in a partial quad. */
function mixed(): Uint8ClampedArray {
  const parts: Uint8ClampedArray[] = [];
  const kinds = [(n: number) => randomColours(n, rnd), fewColours, onHalves];
  for (let k = 0; k < 24; k++) parts.push(kinds[k % 3]!(700 + Math.floor(rnd() * 12_000)));
  parts.push(randomColours(3, rnd));
  const px = new Uint8ClampedArray(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) px.set(p, (at += p.length) - p.length);
  return px;
}

describe('Hue/Saturation quads with the colour cache in stretches (issue 25 §3, fullpic)', () => {
  beforeAll(async () => {
    await kernels();
  });

  const px = mixed();

  it.each(SETTINGS.map((s, i) => [i, s] as const))('setting %i: the TypeScript\'s bytes as the cache goes off and on', (_, setting) => {
    expect(differing(setting, px), JSON.stringify(setting)).toBe(0);
  });

  it('a photo-like stretch, then flat colours: the TypeScript\'s bytes on both', () => {
    const photo = randomColours(40_000, rnd);
    const flat = fewColours(40_000);
    const both = new Uint8ClampedArray(photo.length + flat.length);
    both.set(photo);
    both.set(flat, photo.length);
    for (const setting of SETTINGS) expect(differing(setting, both), JSON.stringify(setting)).toBe(0);
  });
});
