import { describe, expect, it } from 'vitest';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeJpegScaled, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import { Unprocessable } from '../../../src/engine/errors';
import { sniffImage } from '../../../src/engine/raster/sniff';
import type { RGBAImage } from '../../../src/engine/types';
import { jpegFixture } from './helpers';

// The scaled decoder's new eighths (3/8, 5/8, 6/8, 7/8) on damaged files: a placement that picks
// them must give a picture of the size the header promises or a 422 (never another error, which
// the preview would turn into a 500), and the shared kernels must decode the next clean file to
// the same bytes as before the damaged ones.

const FILES = [
  'odd-17x9-420.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg', 'photo-203x141-420-q10.jpg',
  'photo-203x141-420-restart3.jpg', 'photo-203x141-422-q10.jpg', 'photo-203x141-440-q10.jpg', 'photo-203x141-444-q10.jpg',
  'photo-203x141-grey.jpg', 'photo-203x141-mixed-h2v1.jpg', 'photo-64x64-420-q100.jpg', 'tiny-3x3-420.jpg',
];
const SCALES = [1, 2, 3, 4, 5, 6, 7] as const;
const PER_FILE = 60;

const same = (a: RGBAImage, b: RGBAImage) => a.width === b.width && a.height === b.height && a.data.every((v, i) => v === b.data[i]);

describe('DCT-scaled decodes at every eighth on damaged files', () => {
  it(`answer a picture of the header's size or a 422 for ${FILES.length * PER_FILE} damaged files, and decode the next clean file exactly`, async () => {
    let seed = 0x5eed8;
    const random = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const wrong: string[] = [];
    let pictures = 0;
    let refused = 0;
    for (const name of FILES) {
      const whole = await jpegFixture(name);
      const { width, height } = sniffImage(whole)!;
      const clean = new Map<JpegScale, RGBAImage | null>();
      for (const k of SCALES) clean.set(k, await decodeJpegScaled(whole, k));
      for (let d = 0; d < PER_FILE; d++) {
        const bytes = whole.slice();
        if (d % 3 === 0) bytes[random(bytes.length)]! ^= 1 << random(8);
        else if (d % 3 === 1) for (let i = 0; i < 6; i++) bytes[random(bytes.length)] = random(256);
        const k = SCALES[d % SCALES.length]!;
        const cut = d % 3 === 2 ? bytes.slice(0, 2 + random(bytes.length - 2)) : bytes;
        // A placement of k/8 of the stored size (at least 1 px) makes decodeBounded pick k.
        const size = { width: Math.max(1, Math.floor((width * k) / 8)), height: Math.max(1, Math.floor((height * k) / 8)) };
        try {
          const picture = await decodeBounded(cut, { size, path: 'data.Photo' });
          if (picture.width < 1 || picture.height < 1 || picture.data.length !== picture.width * picture.height * 4) wrong.push(`${name} #${d} k ${k}: ${picture.width}×${picture.height}, ${picture.data.length} bytes`);
          pictures++;
        } catch (err) {
          if (err instanceof Unprocessable) refused++; // answered 422
          else wrong.push(`${name} #${d} k ${k}: ${String(err)}`);
        }
      }
      for (const k of SCALES) {
        const again = await decodeJpegScaled(whole, k);
        const before = clean.get(k);
        if (!before || !again || !same(before, again)) wrong.push(`${name} at ${k}/8 after the damaged ones: ${before ? 'picture' : 'null'} then ${again ? 'picture' : 'null'}${before && again ? ', other bytes' : ''}`);
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    expect(pictures).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);
});
