import { describe, expect, it } from 'vitest';
import { encodeBaselineJpeg, encodeInkJpeg, encodeJpegRows, encodeJpegRowsOf, jpegFromRows, type JpegRowSource } from '../../../src/engine/raster/jpeg';
import { decodeJpegScaled } from '../../../src/engine/raster/jpeg-decode';
import type { RGBAImage } from '../../../src/engine/types';
import { testAsset } from '../../helpers/fixtures';

// The bytes our JPEG encoder writes and the pixels our scaled decoder gives, pinned by hash: the
// WASM kernels are rewritten for speed (SIMD colour conversion, quantisation, zero-run coding,
// the decoder's colour pass; issue 25 §3) and must not change either. The hashes were taken
// from the kernels before that work (wasm/assembly/jpeg.ts, jpeg-decode.ts at 20d860e).

/** Deterministic images: noise, gradients, a checkerboard of 8×8 squares, sizes on and off the MCU grid. */
function images(): RGBAImage[] {
  let seed = 12345;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const make = (width: number, height: number, f: (x: number, y: number) => number[]) => {
    const data = new Uint8ClampedArray(width * height * 4);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(f(x, y), (y * width + x) * 4);
    return { width, height, data };
  };
  const out: RGBAImage[] = [];
  for (const [w, h] of [[1, 1], [7, 5], [16, 16], [17, 33], [63, 20], [200, 48], [123, 77]] as const) {
    out.push(make(w, h, () => [random() * 256, random() * 256, random() * 256, 255]));
    out.push(make(w, h, (x, y) => [(x * 3) & 255, (y * 5) & 255, (x + y) & 255, 255]));
    out.push(make(w, h, (x, y) => (((x >> 3) + (y >> 3)) % 2 ? [250, 10, 30, 255] : [0, 0, 0, 255])));
  }
  return out;
}

async function digest(parts: Uint8Array[]): Promise<string> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.byteLength) - p.byteLength);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

describe('codec bytes stay as they were (issue 25 §3)', () => {
  it('the encoder: baseline, standard tables, no coefficient record, restart rows, a strip of rows, ink and grey', async () => {
    const parts: Uint8Array[] = [];
    const photo = await decodeJpegScaled(await testAsset('jpeg/photo-444.jpg'), 4);
    for (const img of [...images(), photo!]) {
      for (const quality of [50, 85, 95])
        for (const subsampling of [1, 2] as const) {
          parts.push(await encodeBaselineJpeg(img, { quality, subsampling }));
          parts.push(await encodeBaselineJpeg(img, { quality, subsampling, optimizeHuffman: false }));
          parts.push(await encodeBaselineJpeg(img, { quality, subsampling, maxCoefficientCache: 0 }));
          const rows = await encodeJpegRows(img, { quality, subsampling });
          parts.push(jpegFromRows(rows));
          const source: JpegRowSource = { width: img.width, height: img.height, kind: 'rgb', read: (y, n, into) => into.set(new Uint8Array(img.data.buffer, y * img.width * 4, n * img.width * 4)) };
          const last = rows.rows.length;
          parts.push(...(await encodeJpegRowsOf(source, { quality, subsampling, from: last >> 1, to: last, tables: rows.specs })).rows);
        }
      const bytes = new Uint8Array(img.data.buffer);
      const grey = bytes.filter((_, i) => i % 4 === 0);
      parts.push(await encodeInkJpeg({ width: img.width, height: img.height, kind: 'ink', read: (y, n, into) => into.set(bytes.subarray(y * img.width * 4, (y + n) * img.width * 4)) }, { quality: 80, subsampling: 2 }));
      parts.push(await encodeInkJpeg({ width: img.width, height: img.height, kind: 'gray', read: (y, n, into) => into.set(grey.subarray(y * img.width, (y + n) * img.width)) }, { quality: 80, subsampling: 2 }));
    }
    expect(await digest(parts)).toBe('af42bc552df77313769786fe553987a8190b05a4dc9c25d8589957bb6bf2b3db');
  });

  it('the scaled decoder: 4:4:4, 4:2:2, 4:2:0 and grey at 1/2, 1/4 and 1/8, and our own 4:2:0 at every scale', async () => {
    const parts: Uint8Array[] = [];
    const files = ['photo-444.jpg', 'photo-422.jpg', 'photo-420-restart.jpg', 'grey-restart.jpg'];
    const ours = await encodeBaselineJpeg(images()[16]!, { quality: 85, subsampling: 2 });
    for (const jpeg of [...(await Promise.all(files.map((f) => testAsset(`jpeg/${f}`)))), ours])
      for (const scale of [4, 2, 1] as const) {
        const img = await decodeJpegScaled(jpeg, scale);
        parts.push(new Uint8Array([img!.width & 255, img!.height & 255]), new Uint8Array(img!.data.buffer));
      }
    // photo-422.jpg at 1/2 and 1/4 moved with jpeg-chroma (session 17): its chroma upsampled as libjpeg-turbo does, not replicated.
    expect(await digest(parts)).toBe('caab9c129b35c235bd3ae23ee62671cd8b79d170fad6bcbffc94fa705b6e6b70');
  });
});
