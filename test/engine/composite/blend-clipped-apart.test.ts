import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { type RGB, solid } from './kit';

/**
 * "Blend Clipped Layers as Group" off (the base's Blending Options): the base's mode, opacity and
 * fill apply to the base alone; each clipped layer is drawn onto the canvas with its own mode and
 * opacity and kept inside the base's shape (pixel alpha × masks). 16×1 documents over BG; the
 * base covers columns 0..7 (a grey (128, 128, 128)), what is clipped to it covers all 16.
 */
const BG: RGB = [200, 100, 50];
const GREY: RGB = [128, 128, 128];
const RED: RGB = [255, 0, 0];
const T = 128 / 255;

const mix = (a: RGB, b: number[], t: number) => a.map((v, i) => Math.round(v + (b[i] - v) * t));
const multiply = (a: number[], b: number[]) => a.map((v, i) => (v * b[i]) / 255);

async function row(base: Partial<Layer>, clipped: Layer[]): Promise<number[][]> {
  const bytes = writePsdUint8Array({
    width: 16,
    height: 1,
    children: [
      { name: 'bg', left: 0, top: 0, imageData: solid(BG, 16) },
      { name: 'base', left: 0, top: 0, imageData: solid(GREY, 8), blendClippendElements: false, ...base },
      ...clipped.map((c) => ({ ...c, clipping: true })),
    ],
  });
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: 16 }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}
const red = (extra: Partial<Layer> = {}): Layer => ({ name: 'red', left: 0, top: 0, imageData: solid(RED, 16), ...extra });

describe('"Blend Clipped Layers as Group" off', () => {
  it("keeps the base's mode and opacity to the base: a Normal red clipped to a multiply base at 128 is plain red", async () => {
    const out = await row({ blendMode: 'multiply', opacity: T }, [red()]);
    expect(out.slice(0, 8)).toEqual(Array(8).fill(RED));
    expect(out.slice(8)).toEqual(Array(8).fill(BG));
  });

  it('blends each clipped layer with its own mode onto the canvas below (the base included)', async () => {
    const out = await row({ blendMode: 'normal' }, [red({ blendMode: 'multiply', opacity: T })]);
    // On: red multiplies the grey inside the group; off it is the same here, as the base is
    // Normal and opaque: multiply(grey, red) at 128 over grey.
    expect(out[0]).toEqual(mix(GREY, multiply(GREY, RED), T));
    // The base in multiply at 128 changes only itself: red then multiplies the result.
    const base = mix(BG, multiply(BG, GREY), T);
    const apart = await row({ blendMode: 'multiply', opacity: T }, [red({ blendMode: 'multiply' })]);
    expect(apart[0]).toEqual(multiply(base, RED).map(Math.round));
    expect(apart[8]).toEqual(BG);
  });

  it("is shaped by the base's pixels and mask, not its opacity or fill", async () => {
    const mask = { left: 0, top: 0, imageData: solid([255, 255, 255], 4), defaultColor: 0 };
    const out = await row({ opacity: T, fillOpacity: 0, mask }, [red()]);
    expect(out.slice(0, 4)).toEqual(Array(4).fill(RED));
    // Where the mask hides the base: neither the base nor what is clipped to it.
    expect(out.slice(4)).toEqual(Array(12).fill(BG));
  });

  it('applies a clipped adjustment to the canvas inside the base only', async () => {
    const out = await row({ blendMode: 'multiply' }, [{ name: 'invert', adjustment: { type: 'invert' } }]);
    expect(out[0]).toEqual(multiply(BG, GREY).map((v) => 255 - Math.round(v)));
    expect(out[8]).toEqual(BG);
  });
});
