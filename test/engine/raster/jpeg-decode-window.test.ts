import { describe, expect, it } from 'vitest';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegFull, decodeJpegScaled, type DecodeWindow, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import { testAsset } from '../../helpers/fixtures';
import { jpegFixture, noiseImage } from './helpers';

// A windowed scaled decode (decodeJpegScaled's `window`: the part a placement reads) must give
// the whole decode's bytes at every pixel of the window, at every k/8, whatever the subsampling
// (its upsampling reads the MCU beside the window), the restart intervals, the size off the grid.
const SCALES = [1, 2, 3, 4, 5, 6, 7] as Exclude<JpegScale, 8>[];

/** A few windows of a w × h picture: edges, corners, one pixel, odd starts, and seeded random ones. */
function windows(w: number, h: number, seed: number): DecodeWindow[] {
  let s = seed;
  const rnd = (n: number) => ((s = (s * 1103515245 + 12345) & 0x7fffffff), s % n);
  const list: DecodeWindow[] = [
    { left: 0, top: 0, right: w, bottom: h },
    { left: Math.floor(w / 7), top: 0, right: w - Math.floor(w / 7), bottom: h },
    { left: 0, top: Math.floor(h / 5), right: w, bottom: h - Math.floor(h / 6) },
    { left: w - 1, top: h - 1, right: w, bottom: h },
    { left: 0, top: 0, right: 1, bottom: 1 },
    { left: 1, top: 1, right: Math.max(2, w - 1), bottom: Math.max(2, h - 1) },
  ];
  for (let i = 0; i < 6; i++) {
    const left = rnd(w);
    const top = rnd(h);
    list.push({ left, top, right: left + 1 + rnd(w - left), bottom: top + 1 + rnd(h - top) });
  }
  return list;
}

/** The first pixel of `window` where `got` differs from `whole`, or null. */
function firstDifference(whole: { width: number; data: Uint8ClampedArray }, got: Uint8ClampedArray, window: DecodeWindow): string | null {
  const w = whole.width;
  for (let y = window.top; y < window.bottom; y++) {
    for (let x = window.left; x < window.right; x++) {
      const i = (y * w + x) * 4;
      for (let c = 0; c < 4; c++) if (whole.data[i + c] !== got[i + c]) return `(${x}, ${y}) channel ${c}: ${got[i + c]} instead of ${whole.data[i + c]}`;
    }
  }
  return null;
}

/** Windows checked, and pixels outside them left as they were (the window's work skipped). */
async function checkWindows(name: string, jpeg: Uint8Array): Promise<{ checked: number; skipped: number }> {
  let checked = 0;
  let skipped = 0;
  for (const scale of SCALES) {
    const whole = await decodeJpegScaled(jpeg, scale);
    if (!whole) return { checked, skipped }; // a coding left to mozjpeg (progressive): never windowed
    for (const [i, window] of windows(whole.width, whole.height, scale * 31 + name.length).entries()) {
      for (const old of [0, 201]) {
        const into = new Uint8ClampedArray(whole.data.length).fill(old);
        const got = (await decodeJpegScaled(jpeg, scale, into, window))!;
        expect(got.data).toBe(into);
        expect(firstDifference(whole, into, window), `${name} at ${scale}/8, window ${i} ${JSON.stringify(window)} over ${old}`).toBeNull();
        // The last pixel, when far outside the window: not made.
        const last = into.length - 4;
        if (window.right < whole.width - 32 && window.bottom < whole.height - 32 && into[last] === old && into[last + 1] === old) skipped++;
      }
      // Without an array given: a new one, the window's pixels the same.
      const fresh = (await decodeJpegScaled(jpeg, scale, undefined, window))!;
      expect(firstDifference(whole, fresh.data, window), `${name} at ${scale}/8, window ${i}, new array`).toBeNull();
      checked++;
    }
  }
  return { checked, skipped };
}

describe('decodeJpegScaled with a window', () => {
  it('test assets (4:2:0 with restarts, 4:2:2, 4:4:4, grey with restarts): the whole decode’s bytes in the window at every k/8', async () => {
    for (const file of ['photo-420-restart.jpg', 'photo-422.jpg', 'photo-444.jpg', 'grey-restart.jpg']) {
      const { checked, skipped } = await checkWindows(file, await testAsset(`jpeg/${file}`));
      expect(checked, file).toBeGreaterThan(0);
      expect(skipped, `${file}: pixels far outside a window are not made`).toBeGreaterThan(0);
    }
  });

  it('fixtures off the block grid, 4:4:0, mixed sampling, restarts, RGB: the same', async () => {
    for (const file of [
      'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg',
      'photo-203x141-420-restart3.jpg', 'photo-203x141-422-q10.jpg', 'photo-203x141-440-q10.jpg', 'photo-203x141-444-restart-row.jpg',
      'photo-203x141-grey.jpg', 'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg', 'photo-203x141-rgb.jpg',
      'tiny-1x1-420.jpg', 'tiny-3x3-422.jpg', 'tiny-5x4-420.jpg',
    ]) {
      expect((await checkWindows(file, await jpegFixture(file))).checked, file).toBeGreaterThan(0);
    }
  });

  it('noise (every frequency) in 4:4:4 and 4:2:0 from our encoder: the same', async () => {
    for (const subsampling of [1, 2] as const) {
      const jpeg = await encodeJpeg(noiseImage(211, 157, 5 + subsampling, 'opaque'), 85, { subsampling });
      const { checked, skipped } = await checkWindows(`noise ${subsampling}`, jpeg);
      expect(checked).toBeGreaterThan(0);
      expect(skipped).toBeGreaterThan(0);
    }
  });

  it('a progressive JPEG is left to mozjpeg, whole', async () => {
    const jpeg = await testAsset('jpeg/photo-progressive.jpg');
    expect(await decodeJpegScaled(jpeg, 4, undefined, { left: 3, top: 3, right: 9, bottom: 9 })).toBeNull();
  });
});

describe('decodeJpegFull with a window', () => {
  const files = [
    'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg',
    'photo-203x141-420-restart3.jpg', 'photo-203x141-422-q10.jpg', 'photo-203x141-440-q10.jpg', 'photo-203x141-444-restart-row.jpg',
    'photo-203x141-grey.jpg', 'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg', 'photo-203x141-rgb.jpg', 'tiny-3x3-422.jpg',
  ];
  it('the whole decode’s bytes in the window (fixtures, test assets: every sampling, restarts, off the grid)', async () => {
    let checked = 0;
    let skipped = 0;
    const all = [...(await Promise.all(files.map(async (f) => [f, await jpegFixture(f)] as const))), ...(await Promise.all(['photo-420-restart.jpg', 'photo-422.jpg', 'photo-444.jpg', 'grey-restart.jpg'].map(async (f) => [f, await testAsset(`jpeg/${f}`)] as const)))];
    for (const [file, jpeg] of all) {
      const whole = await decodeJpegFull(jpeg);
      if (!whole) continue;
      for (const [i, window] of windows(whole.width, whole.height, file.length).entries()) {
        const into = new Uint8ClampedArray(whole.data.length).fill(201);
        const got = (await decodeJpegFull(jpeg, into, window))!;
        expect(got.data).toBe(into);
        expect(firstDifference(whole, into, window), `${file} window ${i} ${JSON.stringify(window)}`).toBeNull();
        const last = into.length - 4;
        if (window.bottom < whole.height - 48 && into[last] === 201 && into[last + 1] === 201) skipped++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(skipped, 'rows far below a window are not made').toBeGreaterThan(0);
  });
});

describe('decodeBounded with a window', () => {
  const jpeg = () => encodeJpeg(noiseImage(160, 120, 9, 'opaque'), 85, { subsampling: 2 });

  it('asks it of the shape it gives back, and names what it made; the window’s pixels are the whole decode’s', async () => {
    const bytes = await jpeg();
    const size = { width: 80, height: 50 };
    const whole = await decodeBounded(bytes, { size, deferResize: true });
    const asked: unknown[] = [];
    const windowed = await decodeBounded(bytes, {
      size,
      deferResize: true,
      lend: true,
      window: (shape) => (asked.push(shape), { left: 10, top: 4, right: 60, bottom: 40 }),
    });
    expect(asked).toEqual([{ width: whole.width, height: whole.height, standsFor: whole.standsFor, ...(whole.extent ? { extent: whole.extent } : {}) }]);
    expect(windowed.window).toEqual({ left: 10, top: 4, right: 60, bottom: 40 });
    expect(firstDifference(whole, windowed.data, windowed.window!)).toBeNull();
    windowed.release?.();
  });

  it('EXIF orientations (the window asked as displayed, decoded as stored): the whole decode’s pixels in it', async () => {
    for (const file of ['marker-40x20.jpg', 'marker-40x20-exif6.jpg', 'marker-40x20-exif8.jpg']) {
      const bytes = await testAsset(file);
      const size = (shown: { width: number; height: number }) => ({ width: shown.width / 2, height: shown.height / 2 });
      const whole = await decodeBounded(bytes, { size, deferResize: true });
      for (const window of windows(whole.width, whole.height, 3)) {
        const windowed = await decodeBounded(bytes, { size, deferResize: true, lend: true, window: () => window });
        expect([windowed.width, windowed.height]).toEqual([whole.width, whole.height]);
        expect(windowed.window, file).toEqual(window);
        expect(firstDifference(whole, windowed.data, window), `${file} ${JSON.stringify(window)}`).toBeNull();
        windowed.release?.();
      }
    }
  });

  it('a whole decode left to the placement (at most twice the size wanted) is windowed too', async () => {
    const bytes = await jpeg();
    const near = { width: 150, height: 113 }; // more than 7/8 of 160×120: decoded whole, deferred
    const whole = await decodeBounded(bytes, { size: near, deferResize: true });
    expect([whole.width, whole.height]).toEqual([160, 120]);
    const window = { left: 20, top: 9, right: 130, bottom: 70 };
    const windowed = await decodeBounded(bytes, { size: near, deferResize: true, lend: true, window: () => window });
    expect(windowed.window).toEqual(window);
    expect(firstDifference(whole, windowed.data, window)).toBeNull();
    windowed.release?.();
  });

  it('without lend, or without deferResize, decodes all (no window asked)', async () => {
    const bytes = await jpeg();
    for (const options of [{ deferResize: true }, { lend: true }]) {
      let asked = 0;
      const got = await decodeBounded(bytes, { size: { width: 80, height: 50 }, ...options, window: () => (asked++, { left: 0, top: 0, right: 1, bottom: 1 }) });
      expect(asked).toBe(0);
      expect(got.window).toBeUndefined();
      got.release?.();
    }
  });
});
