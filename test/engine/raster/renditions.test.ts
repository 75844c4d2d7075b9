import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/engine/hash';
import { decodeBounded, type DecodeBoundedOptions } from '../../../src/engine/raster/bounded';
import { applyOrientation } from '../../../src/engine/raster/orientation';
import { resample } from '../../../src/engine/raster/resample';
import { decodeStoredPicture, deleteRenditions, makeRenditions, MAX_RENDITION_SOURCE_BYTES, renditionScales, renditionsMeta } from '../../../src/engine/raster/renditions';
import { orientedSize, sniffImage } from '../../../src/engine/raster/sniff';
import type { Timing } from '../../../src/engine/timing';
import { testAsset } from '../../helpers/fixtures';

const bucket = env.FILES;

/** A picture as an upload stores it: its renditions made, its metadata as kinds.ts records it. */
async function stored(bytes: Uint8Array) {
  const sniffed = sniffImage(bytes)!;
  const sha256 = await sha256Hex(bytes);
  const { scales } = await makeRenditions(bucket, sha256, bytes, sniffed);
  const { width, height } = orientedSize(sniffed);
  return { sha256, scales, meta: { width: String(width), height: String(height), renditions: renditionsMeta(scales) } };
}

/** The preview's sizing (src/engine/preview.ts loadImage): never enlarged, covering the target. */
const covering = (target: { width: number; height: number }): DecodeBoundedOptions => ({
  path: 'data.Photo.image',
  size: (src) => {
    const k = Math.min(1, Math.max(target.width / src.width, target.height / src.height));
    return { width: src.width * k, height: src.height * k };
  },
});

function recording(): Timing & { phases: string[] } {
  const phases: string[] = [];
  return { phases, time: async (name, fn) => (phases.push(name), fn()), note: () => {} };
}

describe('picture renditions', () => {
  it('stand for the scaled decode: the same pixels as decodeBounded from the file, without reading it', async () => {
    // 203×141 pictures (4:4:4, 4:2:2, 4:2:0 with restarts, grey) and a 40×20 one displayed rotated (EXIF 6).
    const files = ['jpeg/photo-444.jpg', 'jpeg/photo-422.jpg', 'jpeg/photo-420-restart.jpg', 'jpeg/grey-restart.jpg', 'marker-40x20-exif6.jpg'];
    // Targets for 1/8 (resized and exact), 1/4, 3/8, 1/2 and 5/8–8/8 (no rendition: from the file).
    const targets = [{ width: 20, height: 14 }, { width: 26, height: 18 }, { width: 40, height: 30 }, { width: 90, height: 60 }, { width: 3, height: 11 }, { width: 150, height: 100 }, { width: 400, height: 400 }];
    let fromRendition = 0;
    for (const file of files) {
      const bytes = await testAsset(file);
      const picture = await stored(bytes);
      expect(picture.scales, file).toEqual([1, 2, 3, 4]);
      for (const target of targets) {
        const expected = await decodeBounded(bytes, covering(target));
        let read = 0;
        const timing = recording();
        const got = await decodeStoredPicture(bucket, picture, async () => (read++, bytes), covering(target), timing);
        const at = `${file} → ${target.width}×${target.height}`;
        expect([got.width, got.height], at).toEqual([expected.width, expected.height]);
        expect(got.source, at).toEqual(expected.source);
        expect(Buffer.from(got.data).equals(Buffer.from(expected.data)), at).toBe(true);
        // Placed at half its size or less, the picture comes from a rendition: the file is not read.
        const scaled = expected.width * 2 <= orientedSize(expected.source).width && expected.height * 2 <= orientedSize(expected.source).height;
        expect(read, at).toBe(scaled ? 0 : 1);
        if (scaled) fromRendition++;
        expect(timing.phases, at).toEqual(scaled ? ['image-read', 'image-decode'] : ['image-decode']);
      }
    }
    expect(fromRendition).toBeGreaterThan(15);
  });

  it('are made only for what the scaled decoder decodes, and up to 2 MP each', async () => {
    for (const file of ['jpeg/photo-progressive.jpg', 'marker-40x20-alpha.png']) {
      const bytes = await testAsset(file);
      expect((await stored(bytes)).scales, file).toEqual([]);
      // Without renditions a picture is decoded from its file, as before.
      const expected = await decodeBounded(bytes, covering({ width: 20, height: 10 }));
      const got = await decodeStoredPicture(bucket, { sha256: await sha256Hex(bytes), meta: {} }, async () => bytes, covering({ width: 20, height: 10 }));
      expect(Buffer.from(got.data).equals(Buffer.from(expected.data)), file).toBe(true);
    }
    expect(renditionScales({ format: 'jpeg', width: 4000, height: 3000, orientation: 1 })).toEqual([1, 2, 3]);
    expect(renditionScales({ format: 'jpeg', width: 4500, height: 3500, orientation: 1 })).toEqual([1, 2]);
    expect(renditionScales({ format: 'jpeg', width: 1600, height: 1200, orientation: 6 })).toEqual([1, 2, 3, 4]);
    expect(renditionScales({ format: 'png', width: 100, height: 100, orientation: 1 })).toEqual([]);
    // A file beyond MAX_RENDITION_SOURCE_BYTES: none (the bytes after the picture's end do not change its pixels).
    const photo = await testAsset('jpeg/photo-444.jpg');
    const padded = new Uint8Array(MAX_RENDITION_SOURCE_BYTES + 1);
    padded.set(photo);
    expect(await makeRenditions(bucket, await sha256Hex(padded), padded, sniffImage(padded)!)).toEqual({ scales: [], made: false });
  });

  // Issue 25 §3: an upright placement folds the resize into its own single pass (placeImage).
  it('deferResize: the scaled decode as it came, oriented, standing for the size wanted; a full-size decode resized as ever', async () => {
    for (const file of ['jpeg/photo-444.jpg', 'marker-40x20-exif6.jpg']) {
      const bytes = await testAsset(file);
      const picture = await stored(bytes);
      for (const target of [{ width: 20, height: 14 }, { width: 40, height: 30 }, { width: 150, height: 100 }]) {
        const at = `${file} → ${target.width}×${target.height}`;
        const resized = await decodeBounded(bytes, covering(target));
        const deferred = { ...covering(target), deferResize: true };
        const fromFile = await decodeBounded(bytes, deferred);
        const fromRendition = await decodeStoredPicture(bucket, picture, async () => bytes, deferred);
        expect(Buffer.from(fromRendition.data).equals(Buffer.from(fromFile.data)), at).toBe(true);
        expect(fromRendition.standsFor, at).toEqual(fromFile.standsFor);
        expect(fromRendition.extent, at).toEqual(fromFile.extent);
        if (!fromFile.standsFor) {
          // Full size (nothing to defer: the decode is resized as ever).
          expect(Buffer.from(fromFile.data).equals(Buffer.from(resized.data)), at).toBe(true);
          continue;
        }
        expect(fromFile.standsFor, at).toEqual({ width: resized.width, height: resized.height });
        // The pixels are the decode before the resize: resized as decodeBounded does (stored axes, then oriented), the same bytes.
        const orientation = fromFile.source.orientation;
        const back = applyOrientation(fromFile, orientation === 6 ? 8 : orientation === 8 ? 6 : orientation);
        // Off the k/8 grid (203×141) the resize maps the picture's extent, W·k/8 of the ⌈W·k/8⌉ pixels (named in displayed axes).
        const shown = fromFile.extent;
        const extent = shown && { left: 0, top: 0, width: orientation >= 5 ? shown.height : shown.width, height: orientation >= 5 ? shown.width : shown.height };
        const storedPixels = await resample(back, orientation >= 5 ? resized.height : resized.width, orientation >= 5 ? resized.width : resized.height, { extent });
        expect(Buffer.from(applyOrientation(storedPixels, orientation).data).equals(Buffer.from(resized.data)), at).toBe(true);
      }
    }
  });

  it('a rendition that is gone or does not describe the picture is not used; deleting drops them all', async () => {
    const bytes = await testAsset('jpeg/photo-444.jpg');
    const picture = await stored(bytes);
    const expected = await decodeBounded(bytes, covering({ width: 40, height: 30 }));
    // Recorded as another size (e.g. metadata of other content): read from the file instead.
    let read = 0;
    const other = { ...picture, meta: { ...picture.meta, width: '141', height: '203' } };
    await decodeStoredPicture(bucket, other, async () => (read++, bytes), covering({ width: 30, height: 40 }));
    expect(read).toBe(1);
    // Made again for the same content: nothing new is made (they are there).
    expect(await makeRenditions(bucket, picture.sha256, bytes, sniffImage(bytes)!)).toEqual({ scales: [1, 2, 3, 4], made: false });
    await deleteRenditions(bucket, picture.sha256);
    expect((await bucket.list({ prefix: `renditions/${picture.sha256}/` })).objects).toEqual([]);
    const got = await decodeStoredPicture(bucket, picture, async () => (read++, bytes), covering({ width: 40, height: 30 }));
    expect(read).toBe(2);
    expect(Buffer.from(got.data).equals(Buffer.from(expected.data))).toBe(true);
  });
});
