import { beforeAll, describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing, randomColours, type HueSatSetting } from './huesat-kit';

/**
 * Issue 25 §3 (huesat-bound): the Hue/Saturation kernel's f32 quads take one error bound for the
 * whole call where the settings keep it narrow (wasm/assembly/hue-saturation.ts quadBounds: no
 * range α with lightness, no large α on a large α sum's error), each lane's own otherwise, and
 * redo the pixels they leave to the f64 path a batch at a time; under the master's saturation
 * alone with 1 + α of few bits (±50 %, +20 %, −75 %, +100 %) the lanes under full saturation are
 * exact in f32 as in f64 and need no redo. Held to the TypeScript (the kernels off): settings of
 * each kind on random colours, the master's full desaturation (whose pixels need no redo: the call
 * bound says so only where C's error stays 0), and runs of colours that land on exact halves, so
 * that a colour waiting in the batch is met again before its redo.
 */

let seed = 20261201;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);



/**
 * Settings of each kind: the call's bound (master only, ranges turning the hue, a shrinking master
 * α), the master's full desaturation, the master's α alone with 1 + α of few bits (+50 % doubles
 * the chroma: its halves are exact in f64 and in f32; +100 % caps every lane; −40 % and +10 % are not
 * of few bits, +10 % lands near halves), each lane's bound (α and lightness in ranges).
 */
const SETTINGS: HueSatSetting[] = [
  { master: { hue: 66, saturation: 0, lightness: 28 } },
  { master: { hue: -150, saturation: 60, lightness: -45 } },
  { master: { hue: 30, saturation: 0, lightness: 0 }, reds: { a: 330, b: 350, c: 20, d: 40, hue: -90, saturation: 0, lightness: 0 }, blues: { a: 200, b: 200, c: 250, d: 250, hue: 120, saturation: 0, lightness: 0 } },
  { master: { hue: 0, saturation: -97, lightness: 0 }, reds: { a: 207, b: 239, c: 351, d: 37, hue: 32, saturation: 93, lightness: 0 }, magentas: { a: 82, b: 133, c: 151, d: 171, hue: 0, saturation: 100, lightness: 0 } },
  { master: { hue: 0, saturation: -100, lightness: 0 } },
  { master: { hue: 0, saturation: 50, lightness: 0 } },
  { master: { hue: 0, saturation: 20, lightness: -30 } },
  { master: { hue: 0, saturation: -75, lightness: 45 } },
  { master: { hue: 0, saturation: 100, lightness: 0 } },
  { master: { hue: 0, saturation: -40, lightness: 10 } },
  { master: { hue: 0, saturation: 10, lightness: 0 } },
  { master: { hue: 40, saturation: -100, lightness: -30 }, greens: { a: 75, b: 105, c: 135, d: 165, hue: 20, saturation: 80, lightness: 0 } },
  { master: { hue: -27, saturation: 0, lightness: 10 }, reds: { a: 315, b: 345, c: 15, d: 90, hue: 19, saturation: 14, lightness: 26 }, yellows: { a: 330, b: 359, c: 29, d: 59, hue: -38, saturation: 93, lightness: 27 }, cyans: { a: 135, b: 165, c: 195, d: 225, hue: -17, saturation: 20, lightness: -91 } },
  { master: { hue: 10, saturation: 50, lightness: 0 }, yellows: { a: 15, b: 45, c: 75, d: 105, hue: 16, saturation: -40, lightness: 100 }, cyans: { a: 135, b: 165, c: 195, d: 225, hue: 0, saturation: 100, lightness: -100 } },
];


/**
 * Runs of 1–9 pixels, most of a colour whose chroma is an odd multiple of 5 (a master hue turn of
 * 66° = 1.1 sixths puts its middle channel on an exact half: the f64 path decides it), some random.
 */
function halfRuns(n: number): Uint8ClampedArray {
  const px = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; ) {
    let colour: number[];
    if (rnd() < 0.7) {
      const dd = 5 * (1 + 2 * Math.floor(rnd() * 25));
      const mn = Math.floor(rnd() * (256 - dd)), mid = mn + Math.floor(rnd() * (dd + 1));
      colour = [mn + dd, mid, mn].sort(() => rnd() - 0.5);
    } else {
      colour = [rnd(), rnd(), rnd()].map((v) => Math.floor(v * 256));
    }
    for (let run = 1 + Math.floor(rnd() * 9); run > 0 && i < n; run--, i++) px.set([...colour, 200 + Math.floor(rnd() * 56)], 4 * i);
  }
  return px;
}


describe("Hue/Saturation quads under the call's error bound, redone in batches (issue 25 §3)", () => {
  beforeAll(async () => {
    await kernels();
  });

  const colours = randomColours(300_000, rnd);
  const runs = halfRuns(200_000);

  it.each(SETTINGS.map((s, i) => [i, s] as const))("setting %i: the TypeScript's bytes on random colours", (_, setting) => {
    expect(differing(setting, colours), JSON.stringify(setting)).toBe(0);
  });

  it.each(SETTINGS.map((s, i) => [i, s] as const))("setting %i: the TypeScript's bytes on runs of colours landing on halves", (_, setting) => {
    expect(differing(setting, runs), JSON.stringify(setting)).toBe(0);
  });
});
