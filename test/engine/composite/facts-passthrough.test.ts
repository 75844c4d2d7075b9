import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { type RGB, solid } from './kit';

/**
 * Pass-through groups that Photoshop composites apart though over their backdrop: at Fill below
 * 100 %, or with layers clipped to them. psd-tools (psd_tools/composite/composite.py `_get_group`:
 * "adjustments don't pass-through layers if the group layer has clip layers or its fill attribute
 * is not 100") holds this model to Photoshop's composites of its passthrough_fill_adjustment,
 * passthrough_fill_blendmode, passthrough_clipping_mask_adjustment and
 * passthrough_clipping_mask_blendmode documents (tests/psd_tools/composite/test_blend.py,
 * test_passthrough_properties, MSE ≤ 0.001). In it the group's layers blend onto the backdrop
 * as in any pass-through group (a multiply inside multiplies what is below the group), but an
 * adjustment inside changes only what the group's own layers cover so far; the group's result,
 * with the backdrop taken back out, is what clipped layers go onto, and what its Fill and
 * opacity fade in. The expected pixels below are that model's arithmetic.
 */
const W = 8;
const GREY: RGB = [100, 150, 200];
const BLUE: RGB = [0, 0, 255];
const RED: RGB = [255, 0, 0];
const TAN: RGB = [200, 100, 50];
const T = 128 / 255;

const layer = (name: string, c: RGB, left: number, w: number, extra: Partial<Layer> = {}): Layer => ({ name, left, top: 0, imageData: solid(c, w), ...extra });
const mix = (a: RGB, b: RGB, t: number): RGB => a.map((v, i) => Math.round(v + (b[i] - v) * t)) as RGB;
const invert = (c: RGB): RGB => c.map((v) => 255 - v) as RGB;
const multiply = (a: RGB, b: RGB): RGB => a.map((v, i) => Math.round((v * b[i]) / 255)) as RGB;

async function row(layers: Layer[]): Promise<number[][]> {
  const bytes = writePsdUint8Array({ width: W, height: 1, children: [layer('Background', GREY, 0, W), ...layers] });
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: W }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}
const close = (got: number[][], want: RGB[]) => got.every((p, x) => p.every((v, c) => Math.abs(v - want[x][c]) <= 1));
const where = (f: (x: number) => RGB) => Array.from({ length: W }, (_, x) => f(x));

describe('pass-through groups composited apart over their backdrop (psd-tools passthrough_*)', () => {
  it('at Fill 100 % an adjustment inside reaches everything below the group', async () => {
    const group = { name: 'g', blendMode: 'pass through', children: [layer('blue', BLUE, 0, 4), { name: 'inv', adjustment: { type: 'invert' } }] } as Layer;
    const want = where((x) => (x < 4 ? invert(BLUE) : invert(GREY)));
    const got = await row([group]);
    expect(close(got, want), `ours ${JSON.stringify(got)}`).toBe(true);
  });

  it('below Fill 100 % an adjustment inside changes only what the group covers; Fill fades the result (passthrough_fill_adjustment)', async () => {
    const group = { name: 'g', blendMode: 'pass through', fillOpacity: T, children: [layer('blue', BLUE, 0, 4), { name: 'inv', adjustment: { type: 'invert' } }] } as Layer;
    const want = where((x) => (x < 4 ? mix(GREY, invert(BLUE), T) : GREY));
    const got = await row([group]);
    expect(close(got, want), `ours ${JSON.stringify(got)}`).toBe(true);
  });

  it('below Fill 100 % a blend mode inside still blends with what is below the group (passthrough_fill_blendmode)', async () => {
    const group = { name: 'g', blendMode: 'pass through', fillOpacity: T, children: [layer('tan', TAN, 0, 4, { blendMode: 'multiply' })] } as Layer;
    const want = where((x) => (x < 4 ? mix(GREY, multiply(GREY, TAN), T) : GREY));
    const got = await row([group]);
    expect(close(got, want), `ours ${JSON.stringify(got)}`).toBe(true);
  });

  it('as a clipping base, a blend mode inside blends with what is below the group (passthrough_clipping_mask_blendmode)', async () => {
    const group = { name: 'g', blendMode: 'pass through', children: [layer('tan', TAN, 0, 6, { blendMode: 'multiply' })] } as Layer;
    const want = where((x) => (x < 2 ? multiply(GREY, TAN) : x < 6 ? RED : GREY));
    const got = await row([group, layer('red', RED, 2, 6, { clipping: true })]);
    expect(close(got, want), `ours ${JSON.stringify(got)}`).toBe(true);
  });

  it('as a clipping base, an adjustment inside changes only what the group covers (passthrough_clipping_mask_adjustment)', async () => {
    const group = { name: 'g', blendMode: 'pass through', children: [layer('blue', BLUE, 0, 4), { name: 'inv', adjustment: { type: 'invert' } }] } as Layer;
    const want = where((x) => (x < 2 ? invert(BLUE) : x < 6 ? (x < 4 ? RED : GREY) : GREY));
    const got = await row([group, layer('red', RED, 2, 6, { clipping: true })]);
    expect(close(got, want), `ours ${JSON.stringify(got)}`).toBe(true);
  });

  it('with Blend If, a group of Normal layers is drawn isolated, as the same group in Normal is', async () => {
    // Blend If "this layer" from 100: the group's dark half (blue, grey 28) drops out, its white stays.
    const ranges = {
      compositeGrayBlendSource: [100, 100, 255, 255],
      compositeGraphBlendDestinationRange: [0, 0, 255, 255],
      ranges: [0, 1, 2].map(() => ({ sourceRange: [0, 0, 255, 255], destRange: [0, 0, 255, 255] })),
    };
    const doc = (name: string) => {
      const group = { name, blendMode: 'normal', blendingRanges: ranges, children: [layer('white', [255, 255, 255], 0, 8), layer('blue', BLUE, 0, 4)] } as Layer;
      return writePsdUint8Array({ width: W, height: 1, children: [layer('Background', GREY, 0, W), group] });
    };
    const normal = await renderTemplate(env.FILES, await compileTemplate(env.FILES, doc('g')), { scale: 1 });
    // The compiler refuses Blend If on a pass-through group until the lead applies
    // composite-facts-unsupported.patch: the tree is made pass-through after compiling.
    const compiled = await compileTemplate(env.FILES, doc('pt'));
    compiled.layers.find((n) => n.name === 'pt')!.blendMode = 'pass through';
    const passThrough = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect([...passThrough.data]).toEqual([...normal.data]);
    expect([...normal.data.subarray(0, 3)]).toEqual(GREY); // blue dropped out
    expect([...normal.data.subarray(16, 19)]).toEqual([255, 255, 255]);
  });
});
