import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { type RGB, solid } from './kit';

/**
 * "Blend Interior Effects as Group" (Blending Options, ag-psd's blendInteriorElements, the 'infx'
 * block). Adobe's description: it "applies the blending mode of the layer to layer effects that
 * modify opaque pixels, such as Inner Glow, Satin, Color Overlay, and Gradient Overlay", and with
 * it Fill Opacity fades those effects with the layer's pixels (off, the default, Fill leaves
 * every effect alone). psd-tools' advanced-blending.psd sets it on a layer. The expected pixels
 * below are that description's arithmetic: a red layer under a blue Color Overlay.
 */
const W = 2;
const BLUE_OVERLAY = { solidFill: [{ enabled: true, present: true, blendMode: 'normal' as const, color: { r: 0, g: 0, b: 255 }, opacity: 1 }] };

async function pixel(backdrop: RGB, layer: Partial<Layer>): Promise<number[]> {
  const bytes = writePsdUint8Array({
    width: W,
    height: 1,
    children: [
      { name: 'Background', left: 0, top: 0, imageData: solid(backdrop, W) },
      { name: 'red', left: 0, top: 0, imageData: solid([255, 0, 0], W), effects: BLUE_OVERLAY, ...layer } as Layer,
    ],
  });
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return [...img.data.subarray(0, 3)];
}
const near = (got: number[], want: number[]) => got.forEach((v, i) => expect(Math.abs(v - want[i]), `${got} vs ${want}`).toBeLessThanOrEqual(1));

describe('"Blend Interior Effects as Group"', () => {
  it('on, at Fill 50 %: the overlay fades with the layer (blue at 50 % over white)', async () => {
    near(await pixel([255, 255, 255], { fillOpacity: 0.5, blendInteriorElements: true }), [127.5, 127.5, 255]);
  });

  it('off, at Fill 50 %: the overlay keeps its opacity (blue), as before', async () => {
    near(await pixel([255, 255, 255], { fillOpacity: 0.5 }), [0, 0, 255]);
  });

  it('on, in Multiply: the overlay takes the layer\'s mode (blue multiplied onto grey 128)', async () => {
    near(await pixel([128, 128, 128], { blendMode: 'multiply', blendInteriorElements: true }), [0, 0, 128]);
  });

  it('off, in Multiply: the overlay blends Normal over the backdrop (blue), as before', async () => {
    near(await pixel([128, 128, 128], { blendMode: 'multiply' }), [0, 0, 255]);
  });

  it('on, without interior effects: Fill fades the layer as always (red at 50 % over white)', async () => {
    near(await pixel([255, 255, 255], { fillOpacity: 0.5, blendInteriorElements: true, effects: undefined }), [255, 127.5, 127.5]);
  });
});
