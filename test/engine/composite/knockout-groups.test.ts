import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { type RGB, solid } from './kit';

/**
 * Knockout on an isolated group and on a clipping base, a clipping base's Fill and a group's
 * Fill. 16×1 documents over a Background BG with red over all of it; blue covers columns 4..7.
 * Knockout: where the layer (here the group's composite, or the clipping group) is, it shows the
 * backdrop its group started from (at the root: the Background), itself blended onto it at its
 * Fill: canvas ← lerp(canvas, target ⊕ layer at its Fill, opacity · shape).
 */
const BG: RGB = [200, 100, 50];
const BLUE: RGB = [0, 0, 255];
const GREEN: RGB = [0, 255, 0];
const RED: RGB = [255, 0, 0];
const T = 128 / 255;

const mix = (a: RGB, b: RGB, t: number) => a.map((v, i) => Math.round(v + (b[i] - v) * t));
const layer = (name: string, c: RGB, left: number, w: number, extra: Partial<Layer> = {}): Layer => ({ name, left, top: 0, imageData: solid(c, w), ...extra });

async function row(layers: Layer[], red = true): Promise<number[][]> {
  const bytes = writePsdUint8Array({
    width: 16,
    height: 1,
    children: [layer('Background', BG, 0, 16), ...(red ? [layer('red', RED, 0, 16)] : []), ...layers],
  });
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: 16 }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}
const where = (f: (x: number) => number[]) => Array.from({ length: 16 }, (_, x) => f(x));
const inBlue = (x: number) => x >= 4 && x < 8;

describe('knockout on groups and clipping bases, Fill on bases and groups', () => {
  it('an isolated group at Fill 0 % knocking out punches its composite through to the Background', async () => {
    const group = (extra: Partial<Layer>): Layer => ({ name: 'g', blendMode: 'normal', children: [layer('blue', BLUE, 4, 4)], ...extra } as Layer);
    expect(await row([group({ fillOpacity: 0, knockout: true })])).toEqual(where((x) => (inBlue(x) ? BG : RED)));
    // At Fill 128 the group's blue goes onto the Background at 128, in the hole.
    expect(await row([group({ fillOpacity: T, knockout: true })])).toEqual(where((x) => (inBlue(x) ? mix(BG, BLUE, T) : RED)));
  });

  it("a group's Fill fades its composite (without knockout: over the red)", async () => {
    const group: Layer = { name: 'g', blendMode: 'normal', fillOpacity: T, children: [layer('blue', BLUE, 4, 4)] } as Layer;
    expect(await row([group])).toEqual(where((x) => (inBlue(x) ? mix(RED, BLUE, T) : RED)));
  });

  it('a clipping base knocking out takes its clipping group through, shaped by the base', async () => {
    const base = layer('base', GREEN, 2, 8, { fillOpacity: 0, knockout: true });
    const clipped = layer('blue', BLUE, 4, 12, { clipping: true });
    // Hole over the base (2..9); in it the group: nothing of the base, blue on 4..9.
    expect(await row([base, clipped])).toEqual(where((x) => (x >= 4 && x < 10 ? BLUE : x >= 2 && x < 10 ? BG : RED)));
  });

  it('a clipping base at Fill 0 % still shows what is clipped to it, within its pixels', async () => {
    const base = layer('base', GREEN, 2, 8, { fillOpacity: 0 });
    const clipped = layer('blue', BLUE, 4, 12, { clipping: true });
    expect(await row([base, clipped], false)).toEqual(where((x) => (x >= 4 && x < 10 ? BLUE : BG)));
    // At Fill 128: the base's green at 128, the blue over it in full.
    const half = layer('base', GREEN, 2, 8, { fillOpacity: T });
    expect(await row([half, clipped], false)).toEqual(where((x) => (x >= 4 && x < 10 ? BLUE : x >= 2 && x < 10 ? mix(BG, GREEN, T) : BG)));
  });
});
