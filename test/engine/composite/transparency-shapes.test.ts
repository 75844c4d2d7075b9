import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';

/**
 * "Transparency Shapes Layer" off: layer effects and knockouts apply "throughout the layer"
 * (Adobe), i.e. to the whole layer plane × its masks, not to its opaque pixels. 16×1 documents
 * over a Background BG; the styled layer is blue over columns 4..7.
 */
type RGB = [number, number, number];
const BG: RGB = [200, 100, 50];
const BLUE: RGB = [0, 0, 255];
const GREEN: RGB = [0, 255, 0];
const RED: RGB = [255, 0, 0];

const solid = (c: RGB, w: number) => {
  const data = new Uint8ClampedArray(w * 4);
  for (let i = 0; i < w; i++) data.set([...c, 255], i * 4);
  return { width: w, height: 1, data };
};
const overlay = { solidFill: [{ enabled: true, present: true, blendMode: 'normal' as const, color: { r: 0, g: 255, b: 0 }, opacity: 1 }] };
const maskOver = (left: number, w: number) => ({ left, top: 0, imageData: solid([255, 255, 255], w), defaultColor: 0 });

async function row(layers: Layer[]): Promise<number[][]> {
  const bytes = writePsdUint8Array({ width: 16, height: 1, children: [{ name: 'Background', left: 0, top: 0, imageData: solid(BG, 16) }, ...layers] });
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: 16 }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}
const blue = (extra: Partial<Layer>): Layer => ({ name: 'blue', left: 4, top: 0, imageData: solid(BLUE, 4), ...extra });
const where = (f: (x: number) => RGB) => Array.from({ length: 16 }, (_, x) => f(x));

describe('"Transparency Shapes Layer" off', () => {
  it('lets an overlay cover the whole layer, not only its pixels', async () => {
    expect(await row([blue({ effects: overlay })])).toEqual(where((x) => (x >= 4 && x < 8 ? GREEN : BG)));
    expect(await row([blue({ effects: overlay, transparencyShapesLayer: false })])).toEqual(where(() => GREEN));
  });

  it("keeps the masks' shape", async () => {
    expect(await row([blue({ effects: overlay, transparencyShapesLayer: false, mask: maskOver(2, 10) })])).toEqual(
      where((x) => (x >= 2 && x < 12 ? GREEN : BG)),
    );
  });

  it('knocks out through the whole (masked) layer, even at Fill 100 % Normal', async () => {
    const red: Layer = { name: 'red', left: 0, top: 0, imageData: solid(RED, 16) };
    const knock = { knockout: true, mask: maskOver(0, 12) };
    // On, a knockout at Fill 100 % Normal changes nothing.
    expect(await row([red, blue(knock)])).toEqual(where((x) => (x >= 4 && x < 8 ? BLUE : RED)));
    // Off, the masked layer is the hole: the Background shows where it has no pixels.
    expect(await row([red, blue({ ...knock, transparencyShapesLayer: false })])).toEqual(
      where((x) => (x >= 4 && x < 8 ? BLUE : x < 12 ? BG : RED)),
    );
  });

  it('makes a change to such a layer reach the whole canvas (personalised previews redraw it all)', async () => {
    const bytes = writePsdUint8Array({
      width: 16,
      height: 1,
      children: [{ name: 'Background', left: 0, top: 0, imageData: solid(BG, 16) }, blue({ effects: overlay, transparencyShapesLayer: false })],
    });
    const compiled = await compileTemplate(env.FILES, bytes);
    const id = compiled.layers.find((n) => n.name === 'blue')!.id;
    expect(dirtyBounds(compiled, new Map([[id, { visible: false }]]), 1)).toEqual({ left: 0, top: 0, right: 16, bottom: 1 });
  });
});
