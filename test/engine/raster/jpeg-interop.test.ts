import { describe, expect, it } from 'vitest';
import { decodeImage, encodeJpeg } from '../../../src/engine/raster/codecs';
import { encodeBaselineJpeg, encodeJpegRows, jpegFromRows, replaceJpegRows, rgbaRows } from '../../../src/engine/raster/jpeg';
import type { RGBAImage } from '../../../src/engine/types';
import { runTool } from '../../helpers/fixtures';
import { base64ToBytes, noiseImage, parsePpm, psnr } from './helpers';

/** Smooth gradients with a little grain: what previews mostly are. */
function photoLike(width: number, height: number): RGBAImage {
  const img = noiseImage(width, height, 5, 'opaque');
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const grain = (img.data[i] & 7) - 4;
      img.data[i] = 128 + 90 * Math.sin(x / 19) + grain;
      img.data[i + 1] = (255 * (x + y)) / (width + height) + grain;
      img.data[i + 2] = 180 * Math.abs(Math.cos(y / 13)) + grain;
    }
  return img;
}


describe('our JPEG encoder, read by an independent decoder (libjpeg-turbo djpeg)', () => {
  it('decodes without a single warning at every size and quality, to the right size and picture', async () => {
    const sizes = [[1, 1], [7, 3], [16, 16], [17, 9], [333, 127]] as const;
    const qualities = [0, 1, 10, 50, 85, 89, 90, 100];
    for (const [w, h] of sizes) {
      const img = photoLike(w, h);
      for (const q of qualities) {
        const jpeg = await encodeJpeg(img, q);
        const out = await runTool('djpeg', jpeg);
        expect({ size: `${w}x${h}`, q, code: out.code, stderr: out.stderr }).toEqual({ size: `${w}x${h}`, q, code: 0, stderr: '' });
        const ppm = parsePpm(base64ToBytes(out.pages[0]));
        expect([ppm.width, ppm.height]).toEqual([w, h]);
        // Quality-dependent floors, on smooth content, measured with a reference decoder.
        const floor = q >= 90 ? 38 : q >= 50 ? 30 : q >= 10 ? 22 : 12;
        if (w * h >= 256) expect(psnr(img, ppm.rgb), `${w}x${h} q${q}`).toBeGreaterThan(floor);
      }
    }
  });

  it('worst-case content (pure noise at quality 100) stays a valid stream', async () => {
    const jpeg = await encodeJpeg(noiseImage(129, 65, 3, 'opaque'), 100);
    const out = await runTool('djpeg', jpeg);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('');
  });

  it('restart intervals: a JPEG with re-coded rows decodes cleanly, to the picture of the new image', async () => {
    for (const [w, h, q] of [[333, 127, 85], [64, 40, 95], [17, 9, 50]] as const) {
      const sub = q >= 90 ? 1 : 2;
      const before = photoLike(w, h);
      const after = photoLike(w, h);
      // A patch of noise in the middle rows: symbols the base image never needed.
      const top = Math.floor(h / 3);
      const bottom = Math.ceil((2 * h) / 3);
      const noise = noiseImage(w, bottom - top, 9, 'opaque');
      after.data.set(noise.data, top * w * 4);
      const base = await encodeJpegRows(before, { quality: q, subsampling: sub });
      const spliced = jpegFromRows(await replaceJpegRows(base, rgbaRows(after), { top, bottom }));
      for (const jpeg of [jpegFromRows(base), spliced]) {
        const out = await runTool('djpeg', jpeg);
        expect({ size: `${w}x${h}`, code: out.code, stderr: out.stderr }).toEqual({ size: `${w}x${h}`, code: 0, stderr: '' });
      }
      // Huffman tables and restart markers change no coefficient: the same pixels as one pass.
      const plain = await decodeImage(await encodeBaselineJpeg(after, { quality: q, subsampling: sub }));
      expect((await decodeImage(spliced)).data).toEqual(plain.data);
    }
  });
});
