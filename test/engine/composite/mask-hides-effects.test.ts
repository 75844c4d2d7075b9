import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { rectPath as rect } from './kit';

/**
 * "Layer Mask Hides Effects" / "Vector Mask Hides Effects" (Blending Options): the effects come
 * from the layer without that mask, then the mask hides layer and effects together. Off (the
 * default), the mask shapes the layer and the effects follow the masked shape, spilling past the
 * mask. A hard drop shadow (size 0, 4 px to the right) makes the difference exact: blue over
 * columns 8..15 of a 32×8 document over BG, a mask white over columns 0..13.
 */
type RGB = [number, number, number];
const BG: RGB = [200, 100, 50];
const BLUE: RGB = [0, 0, 255];
const BLACK: RGB = [0, 0, 0];

const solid = (c: RGB, w: number, h: number) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, 255], i * 4);
  return { width: w, height: h, data };
};
const shadow = {
  dropShadow: [
    {
      enabled: true,
      present: true,
      color: { r: 0, g: 0, b: 0 },
      blendMode: 'normal' as const,
      opacity: 1,
      useGlobalLight: false,
      angle: 180,
      distance: { units: 'Pixels' as const, value: 4 },
      choke: { units: 'Pixels' as const, value: 0 },
      size: { units: 'Pixels' as const, value: 0 },
    },
  ],
};

function doc(layer: Partial<Layer>): Uint8Array {
  return writePsdUint8Array({
    width: 32,
    height: 8,
    children: [
      { name: 'bg', left: 0, top: 0, imageData: solid(BG, 32, 8) },
      { name: 'blue', left: 8, top: 0, imageData: solid(BLUE, 8, 8), effects: shadow, ...layer },
    ],
  });
}
const pixelMask = () => ({ left: 0, top: 0, imageData: solid([255, 255, 255], 14, 8), defaultColor: 0 });

/** Renames the first 'lmgm' block to 'vmgm' (ag-psd writes only the former; both hold one byte). */
function toVmgm(bytes: Uint8Array): Uint8Array {
  const at = new TextDecoder('latin1').decode(bytes).indexOf('8BIMlmgm');
  if (at < 0) throw new Error('no lmgm block');
  bytes.set([...'vmgm'].map((c) => c.charCodeAt(0)), at + 4);
  return bytes;
}

async function row(bytes: Uint8Array): Promise<RGB[]> {
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: 32 }, (_, x) => [...img.data.subarray((3 * 32 + x) * 4, (3 * 32 + x) * 4 + 3)] as RGB);
}
const expected = (f: (x: number) => RGB) => Array.from({ length: 32 }, (_, x) => f(x));

describe('mask hides effects', () => {
  it('off: the effects follow the masked shape and spill past the mask', async () => {
    expect(await row(doc({ mask: pixelMask() }))).toEqual(expected((x) => (x >= 8 && x < 14 ? BLUE : x >= 14 && x < 18 ? BLACK : BG)));
  });

  it('"Layer Mask Hides Effects": effects from the unmasked layer, the mask hiding both', async () => {
    expect(await row(doc({ mask: pixelMask(), layerMaskAsGlobalMask: true }))).toEqual(expected((x) => (x >= 8 && x < 14 ? BLUE : BG)));
  });

  it('"Vector Mask Hides Effects" (vmgm, read from the layer record) does the same for the vector mask', async () => {
    const vector = { vectorMask: { paths: [rect(0, 0, 14, 8)] } };
    const bytes = toVmgm(doc({ ...vector, layerMaskAsGlobalMask: true }));
    expect(readLayerRecords(bytes).filter((r) => r?.vectorMaskHidesEffects)).toHaveLength(1);
    expect(await row(bytes)).toEqual(expected((x) => (x >= 8 && x < 14 ? BLUE : BG)));
    // Without it, the vector mask shapes the effects like a pixel mask.
    expect(await row(doc(vector))).toEqual(expected((x) => (x >= 8 && x < 14 ? BLUE : x >= 14 && x < 18 ? BLACK : BG)));
  });

  it('a disabled mask hides nothing and shapes nothing', async () => {
    const bytes = doc({ mask: { ...pixelMask(), disabled: true }, layerMaskAsGlobalMask: true });
    expect(await row(bytes)).toEqual(expected((x) => (x >= 8 && x < 16 ? BLUE : x >= 16 && x < 20 ? BLACK : BG)));
  });
});
