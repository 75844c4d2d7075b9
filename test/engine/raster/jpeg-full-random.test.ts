import { describe, expect, it } from 'vitest';
import { decodeImage, decodeJpegMozjpeg, encodeJpeg, encodeJpegMozjpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegFull, decodeJpegScaled } from '../../../src/engine/raster/jpeg-decode';
import { encodeJpegRows, jpegFromRows } from '../../../src/engine/raster/jpeg';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { random, type Random } from '../composite/kit';

/**
 * Session 14 (robust4): decodeImage now decodes a baseline JPEG with our full-size decoder
 * (decodeJpegFull) before mozjpeg; it must answer mozjpeg's bytes or leave the file to it. Random
 * valid files made here by mozjpeg (random quality, baseline or extended tables, progressive,
 * grey/RGB/YCbCr, 4:4:4 or 4:2:0, every quant table, trellis, smoothing, Huffman optimised or not)
 * and by our encoder (quality, 4:4:4 / 4:2:0, a restart interval per MCU row or none), sizes
 * 1–1700 px, pictures of noise, gradients, flat colours, saturated primaries and one-pixel checks:
 * decodeImage gives decodeJpegMozjpeg's bytes. Scaled decodes between full ones (the shared
 * kernels' IDCT mode) stay as they were.
 */

type Kind = 'noise' | 'gradient' | 'flat' | 'primaries' | 'checks' | 'mixed';

function picture(r: Random, w: number, h: number, kind: Kind): RGBAImage {
  const data = new Uint8ClampedArray(w * h * 4);
  const flat = [r.int(256), r.int(256), r.int(256)];
  const prim = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255], [0, 0, 0], [255, 255, 255]];
  const fx = 1 + r.int(200);
  const fy = 1 + r.int(200);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i += 4) {
      let c: number[];
      switch (kind) {
        case 'noise': c = [r.int(256), r.int(256), r.int(256)]; break;
        case 'gradient': c = [(x * 255) / Math.max(1, w - 1), (y * 255) / Math.max(1, h - 1), 128 + 127 * Math.sin((x + y) / fx)]; break;
        case 'flat': c = flat; break;
        case 'primaries': c = prim[((x / fx) | 0) % 8 ^ ((y / fy) | 0) % 8 & 7]!; break;
        case 'checks': c = (x + y) & 1 ? [255, r.pick([0, 255]), 0] : [0, r.pick([0, 255]), 255]; break;
        default: c = ((x >> 4) + (y >> 3)) % 3 === 0 ? [r.int(256), r.int(256), r.int(256)] : [(x * 7) & 255, 200 * Math.abs(Math.cos(y / fy)), flat[2]!];
      }
      data[i] = c[0]!; data[i + 1] = c[1]!; data[i + 2] = c[2]!; data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

const size = (r: Random, large: boolean) => (large ? 1000 + r.int(701) : r.pick([1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 1 + r.int(120), 1 + r.int(400)]));

interface Made { bytes: Uint8Array; label: string }

async function makeFile(r: Random, seed: number, large: boolean): Promise<Made | null> {
  const w = size(r, large);
  const h = size(r, large && r.chance(0.5));
  const kind = r.pick(['noise', 'gradient', 'flat', 'primaries', 'checks', 'mixed'] as const);
  const img = picture(r, w, h, kind);
  if (r.chance(0.12)) {
    // A restart interval of one MCU row (the frame JPEG's rows re-coded apart, jpeg.ts encodeJpegRows).
    const q = r.pick([5, 50, 85, 100, 1 + r.int(100)]);
    const sub = r.pick([1, 2] as const);
    return { bytes: jpegFromRows(await encodeJpegRows(img, { quality: q, subsampling: sub })), label: `seed ${seed}: ours restart rows ${w}x${h} ${kind} q${q} sub${sub}` };
  }
  if (r.chance(0.3)) {
    const q = r.pick([1, 5, 50, 75, 90, 95, 100, 1 + r.int(100)]);
    const sub = r.pick([1, 2] as const);
    return { bytes: await encodeJpeg(img, q, { subsampling: sub }), label: `seed ${seed}: ours ${w}x${h} ${kind} q${q} sub${sub}` };
  }
  const options = {
    quality: r.pick([1, 2, 10, 25, 50, 75, 90, 100, 1 + r.int(100)]),
    baseline: r.chance(0.7),
    progressive: r.chance(0.15),
    optimize_coding: r.chance(0.6),
    smoothing: r.chance(0.8) ? 0 : r.int(101),
    color_space: r.pick([1, 2, 3, 3, 3]),
    quant_table: r.int(9),
    trellis_multipass: r.chance(0.5),
    trellis_opt_zero: r.chance(0.5),
    trellis_opt_table: r.chance(0.5),
    trellis_loops: 1 + r.int(2),
    auto_subsample: r.chance(0.2),
    chroma_subsample: r.pick([1, 2]),
    separate_chroma_quality: r.chance(0.3),
    chroma_quality: 1 + r.int(100),
  };
  try {
    return { bytes: await encodeJpegMozjpeg(img, options.quality, options), label: `seed ${seed}: mozjpeg ${w}x${h} ${kind} ${JSON.stringify(options)}` };
  } catch {
    return null;
  }
}

describe('random valid JPEGs: decodeImage gives mozjpeg’s bytes', () => {
  it('small and medium files (1–400 px), both encoders, every option', async () => {
    const differ: string[] = [];
    let compared = 0;
    let ours = 0;
    for (let seed = 1; seed <= 800; seed++) {
      const r = random(0x14a0000 + seed);
      const made = await makeFile(r, seed, false);
      if (!made) continue;
      const ref = await decodeJpegMozjpeg(made.bytes);
      const got = await decodeImage(made.bytes);
      compared++;
      if (got.width !== ref.width || got.height !== ref.height || firstDifference(got.data, ref.data) !== -1) {
        differ.push(`${made.label}: first byte ${firstDifference(got.data, ref.data)}`);
      }
      // A scaled decode after a full one gives what it gives alone (the shared kernels' state).
      // Only for files our full-size decoder reads: mozjpeg writes a few tiny files whose entropy
      // data libjpeg reads with a warning ('premature end of data segment'), which the scaled decode
      // refuses as corrupt, as it did before this session (5249886: decodeBounded's 422 there).
      const full = await decodeJpegFull(made.bytes);
      if (full) ours++;
      if (full && seed % 4 === 0) {
        const a = await decodeJpegScaled(made.bytes, 2);
        if (a) {
          await decodeImage(made.bytes);
          const b = await decodeJpegScaled(made.bytes, 2);
          if (firstDifference(a.data, b!.data) !== -1) differ.push(`${made.label}: scaled 1/4 moved after a full decode`);
        }
      }
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(760);
    expect(ours).toBeGreaterThan(550);
  }, 60_000);

  it('large files (1000–1700 px)', async () => {
    const differ: string[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const r = random(0x14b0000 + seed);
      const made = await makeFile(r, seed, true);
      if (!made) continue;
      const ref = await decodeJpegMozjpeg(made.bytes);
      const got = await decodeImage(made.bytes);
      if (got.width !== ref.width || got.height !== ref.height || firstDifference(got.data, ref.data) !== -1) {
        differ.push(`${made.label}: first byte ${firstDifference(got.data, ref.data)}`);
      }
    }
    expect(differ).toEqual([]);
  }, 60_000);
});
