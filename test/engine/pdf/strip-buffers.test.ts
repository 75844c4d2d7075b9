import { beforeAll, describe, expect, it } from 'vitest';
import { stripLru } from '../../../src/engine/pdf/strip-cache';
import { upload } from '../../dynamic-image/helpers';
import { makePdf } from './helpers';

/**
 * A print page drawn with the buffers kept from strip to strip (issue 25 §1: the canvas, the band
 * a strip reads, pooled layer surfaces) is the page drawn with new arrays for everything. The
 * page is wider than 2,048 px, so a 256-row band of a layer (2,100 × 256 × 4 bytes) is above the
 * band cache's 2 MB entry limit: the path a 10,000 px page takes. A clipping group, a masked layer
 * and a translucent layer give a strip several layer surfaces alive at once.
 */
const W = 2100;
const H = 300;

async function widePsd(): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  const layer = (name: string, pixel: (x: number, y: number) => [number, number, number, number], extra: Record<string, unknown> = {}) => {
    const data = new Uint8ClampedArray(W * H * 4);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set(pixel(x, y), (y * W + x) * 4);
    return { name, left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data }, ...extra };
  };
  const maskData = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) maskData.fill(((i % W) * 7 + Math.floor(i / W) * 3) & 255, i * 4, i * 4 + 4);
  return writePsdUint8Array({
    width: W,
    height: H,
    children: [
      layer('Background', (x, y) => [(x * 255) / W, (y * 255) / H, (x ^ y) & 255, 255]),
      // A band across the middle with soft edges, and a layer clipped to it.
      layer('Base', (x, y) => [200, 40, (x * 3) & 255, Math.max(0, 255 - Math.abs(y - 150) * 3)]),
      layer('Clipped', (x, y) => [(x * 5) & 255, 220, (y * 9) & 255, (x + y) & 255], { clipping: true, blendMode: 'multiply' }),
      layer('Masked', (x, y) => [30, (x + 2 * y) & 255, 160, 200], { mask: { left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: maskData } } }),
      layer('Veil', (x, y) => [255, 255, (x * y) & 255, 90], { opacity: 0.6 }),
    ],
  } as never);
}

let template: string;

beforeAll(async () => {
  const res = await upload('templates', [['wide.psd', await widePsd()]], '?destination=pdf-strip-buffers&overwrite=true');
  expect(res.status).toBe(201);
  template = ((await res.json()) as string[])[0];
});

/** The PDF's bytes without its creation date and file ID (the parts that differ between two runs). */
const undated = (bytes: Uint8Array) =>
  new TextDecoder('latin1')
    .decode(bytes)
    .replace(/\/CreationDate \([^)]*\)/, '')
    .replace(/\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/, '');

describe('print strips drawn with kept buffers', () => {
  it('equal the strips drawn with new arrays, byte for byte (strips inside one band, and across two)', async () => {
    for (const rows of [40, 104]) {
      stripLru.clear();
      // Kept buffers: every strip is drawn (nothing is stored for this strip height yet).
      const kept = await makePdf({ template }, rows);
      expect(kept.summary.strips.reused).toBe(0);
      // `fresh`: every layer drawn anew into new arrays.
      const fresh = await makePdf({ template }, rows, false);
      expect(kept.rendered).toEqual(fresh.rendered);
      expect(kept.bytes.length).toBe(fresh.bytes.length);
      expect(undated(kept.bytes) === undated(fresh.bytes), `${rows}-row strips`).toBe(true);
    }
  });
});
