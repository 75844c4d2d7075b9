import { beforeAll, describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing, randomColours, type HueSatRange, type HueSatSetting } from './huesat-kit';

/**
 * Session 21 review: the Hue/Saturation kernel's quads (vectors loaded, the master lightness by
 * floor, turned quads from the turned hue alone, lane bounds in stretches) held to the TypeScript
 * (the kernels off) on random settings: a master turn, saturation and lightness each there or not,
 * up to six ranges with random (wrapping, degenerate) ends and settings up to the extremes, over
 * pixels of every kind (random, a few colours in runs, greys and nearly greys, channels at 0 and
 * 255) in lengths off the quads' and stretches' grids.
 */

let seed = Number(process.env.HUESAT_SEED ?? 20261222);
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const extreme = (lo: number, hi: number) => (rnd() < 0.15 ? (rnd() < 0.5 ? lo : hi) : int(lo, hi));
const NAMES = ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas'] as const;

function randomRange(centre: number): HueSatRange {
  // Photoshop's ends a ≤ b ≤ c ≤ d around the range's colour, wrapping past 0/360; sometimes a = b or c = d.
  const b = (centre - int(0, 60) + 360) % 360;
  const a = rnd() < 0.2 ? b : (b - int(0, 90) + 360) % 360;
  const c = (centre + int(0, 60)) % 360;
  const d = rnd() < 0.2 ? c : (c + int(0, 90)) % 360;
  const pick = () => (rnd() < 0.3 ? 0 : 1);
  return { a, b, c, d, hue: pick() * extreme(-180, 180), saturation: pick() * extreme(-100, 100), lightness: pick() * extreme(-100, 100) };
}

/** Ends in any order (a file may hold anything): unwrapRange sorts them out the same for both. */
function anyRange(): HueSatRange {
  return { a: int(0, 359), b: int(0, 359), c: int(0, 359), d: int(0, 359), hue: extreme(-180, 180), saturation: extreme(-100, 100), lightness: extreme(-100, 100) };
}

function randomSetting(anyEnds = false): HueSatSetting {
  const on = () => rnd() < 0.6;
  const setting: HueSatSetting = { master: { hue: on() ? extreme(-180, 180) : 0, saturation: on() ? extreme(-100, 100) : 0, lightness: on() ? extreme(-100, 100) : 0 } };
  const ranges = rnd() < 0.35 ? 0 : int(1, 6);
  for (let k = 0; k < ranges; k++) setting[NAMES[int(0, 5)]] = anyEnds ? anyRange() : randomRange(int(0, 359));
  return setting;
}

function pixels(): Uint8ClampedArray {
  const n = int(1, 20_000);
  const kind = int(0, 4);
  if (kind === 0) return randomColours(n, rnd);
  const px = new Uint8ClampedArray(n * 4);
  const palette = Array.from({ length: int(1, 8) }, () => [int(0, 255), int(0, 255), int(0, 255), int(0, 255)]);
  for (let i = 0; i < n; ) {
    let colour: number[];
    if (kind === 1) colour = palette[int(0, palette.length - 1)]!;
    else if (kind === 2) { const v = int(0, 255); colour = [v, Math.min(255, v + int(0, 1)), Math.max(0, v - int(0, 1)), int(0, 255)]; }
    else if (kind === 3) colour = [0, 0, 0].map(() => [0, 255, int(0, 255)][int(0, 2)]!).concat(255);
    else colour = rnd() < 0.5 ? palette[int(0, palette.length - 1)]! : [int(0, 255), int(0, 255), int(0, 255), 255];
    for (let run = int(1, 40); run > 0 && i < n; run--, i++) px.set(colour, 4 * i);
  }
  return px;
}

describe('Hue/Saturation kernel against the TypeScript on random settings (session 21 review)', () => {
  beforeAll(async () => {
    await kernels();
  });

  it.each([false, true])('gives the TypeScript bytes (range ends in any order: %s)', (anyEnds) => {
    const bad: string[] = [];
    const cases = Number(process.env.HUESAT_CASES ?? 300);
    for (let c = 0; c < cases; c++) {
      const setting = randomSetting(anyEnds);
      const px = pixels();
      const n = differing(setting, px);
      if (n) bad.push(`${JSON.stringify(setting)} on ${px.length / 4} px: ${n} bytes`);
    }
    expect(bad).toEqual([]);
  }, 600_000);
});
