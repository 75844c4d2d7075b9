import { beforeAll, describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing, randomColours, type HueSatSetting } from './huesat-kit';

/**
 * Issue 25 §3 (orion, session 21): the Hue/Saturation kernel's quads take the master lightness's
 * step as floor(x × scale + add) in f32 wherever quadsTake finds that it gives the f64 step for
 * every byte (wasm/assembly/hue-saturation.ts quadLightFloor), instead of rounding halves up.
 * Held to the TypeScript (the kernels off) at every master lightness Photoshop stores, alone and
 * with a hue turn and a saturation, on every byte in each channel and on random colours.
 */

let seed = 20261221;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

/** Every byte in each channel (greys, ramps the other way, a scrambled third) and random colours, opaque. */
function everyByte(): Uint8ClampedArray {
  const ramps = new Uint8ClampedArray(256 * 3 * 4);
  for (let v = 0; v < 256; v++) {
    ramps.set([v, v, v, 255], v * 4);
    ramps.set([v, 255 - v, (v * 7) % 256, 255], (256 + v) * 4);
    ramps.set([(v * 13) % 256, v, 255 - v, 255], (512 + v) * 4);
  }
  const random = randomColours(1500, rnd);
  for (let i = 3; i < random.length; i += 4) random[i] = 255;
  const px = new Uint8ClampedArray(ramps.length + random.length);
  px.set(ramps);
  px.set(random, ramps.length);
  return px;
}

describe('Hue/Saturation: the master lightness by floor in the quads', () => {
  beforeAll(async () => {
    await kernels();
  });

  it('gives the TypeScript bytes at every master lightness, alone and with a turn and a saturation', () => {
    const px = everyByte();
    const bad: string[] = [];
    for (let lightness = -100; lightness <= 100; lightness++) {
      if (!lightness) continue;
      for (const master of [{ hue: 0, saturation: 0, lightness }, { hue: 66, saturation: 30, lightness }, { hue: -122, saturation: -40, lightness }]) {
        const setting: HueSatSetting = { master };
        const n = differing(setting, px);
        if (n) bad.push(`${JSON.stringify(master)}: ${n}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
