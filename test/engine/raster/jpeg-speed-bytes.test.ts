import { describe, expect, it } from 'vitest';
import { decodeJpegFull, decodeJpegScaled } from '../../../src/engine/raster/jpeg-decode';
import { jpegFixture } from './helpers';

// The decoder's fast paths (a 64-bit bit buffer, DC and AC look-ups, IDCTs that skip the rows and
// columns a block leaves 0, one pixel row or one value a row for blocks whose coefficients lie in
// one row or one column, the colour pass' paired multiplies) must give the bytes of the plain
// loops. Pinned here: each fixture decoded at 1/8 … 7/8 and whole, as the decoder of 5fff3a7
// gave it (sparse q1/q10 photos take the fast paths, q100 ones the full sums). The 4:2:2, 4:4:0
// and mixed files' digests since jpeg-chroma (session 17): their chroma at 2/8–7/8 upsampled as
// libjpeg-turbo does, not replicated (the bytes of commits f40936d and 6de6f9b).
const BEFORE: Record<string, string> = {
  'odd-17x9-420.jpg': 'abd99898e8a0e35f',
  'odd-17x9-422.jpg': 'abd99898e8a0e35f',
  'odd-17x9-440.jpg': 'abd99898e8a0e35f',
  'odd-17x9-444.jpg': 'abd99898e8a0e35f',
  'odd-33x17-420-optimized.jpg': '3de91e7880787099',
  'photo-203x141-420-q1.jpg': 'c71c92681dbbb0fa',
  'photo-203x141-420-q10.jpg': '3c8da46ceabd29c4',
  'photo-203x141-420-restart3.jpg': '229b857a7bdd4074',
  'photo-203x141-422-q10.jpg': 'bcb399a75f62a2a0',
  'photo-203x141-440-q10.jpg': '6fee48c97cfa37db',
  'photo-203x141-444-q10.jpg': '05ef6fe124f8745f',
  'photo-203x141-444-restart-row.jpg': 'd7d1ce15507c3475',
  'photo-203x141-grey.jpg': '627560d83da2f7a8',
  'photo-203x141-mixed-h2v1.jpg': '21ae2f78135d28a1',
  'photo-203x141-mixed-restart.jpg': '6d74032bd5fbbdbe',
  'photo-203x141-rgb.jpg': '3e55cea7bcf37743',
  'photo-64x64-420-q100.jpg': 'fdea422790139be5',
  'photo-64x64-422-q100.jpg': 'a364f589f5cf5a07',
  'photo-64x64-440-q100.jpg': 'ccf09e82fe0920ec',
  'photo-64x64-444-q100.jpg': 'ebc800390fc6f65a',
  'tiny-1x1-420.jpg': '00bc7dfc7c870b49',
  'tiny-3x3-420.jpg': 'ad8aba06399fd3a7',
  'tiny-3x3-422.jpg': 'ad8aba06399fd3a7',
  'tiny-5x4-420.jpg': '5401b9bdc8c9d53e',
};

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 over each eighth's size and pixels' SHA-256 (or null, or error), the first 16 hex digits. */
async function decodesDigest(jpeg: Uint8Array): Promise<string> {
  let tags = '';
  for (const scale of [1, 2, 3, 4, 5, 6, 7, 8] as const) {
    let tag: string;
    try {
      const image = scale === 8 ? await decodeJpegFull(jpeg) : await decodeJpegScaled(jpeg, scale);
      tag = image ? `${scale}:${image.width}x${image.height}:${hex(await crypto.subtle.digest('SHA-256', image.data))}` : `${scale}:null`;
    } catch {
      tag = `${scale}:error`;
    }
    tags += tag + '\n';
  }
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(tags))).slice(0, 16);
}

describe('the JPEG decoder\'s fast paths', () => {
  it('decode every fixture at every eighth and whole to the bytes of the plain loops (5fff3a7)', async () => {
    for (const [file, digest] of Object.entries(BEFORE)) {
      expect(await decodesDigest(await jpegFixture(file)), file).toBe(digest);
    }
  });
});
