// A placement no cache keeps (placementCache's entries are at most 4.5 MB; without a content key
// none is kept) is read by its request's render alone: it is drawn into a lent array
// (raster/bounded.ts) that releaseOverrides gives back, and the next such placement is drawn over
// the last one's pixels, so every byte must be written again.
import { describe, expect, it } from 'vitest';
import { buildOverrides, type PersonaliseContext } from '../../../src/engine/personalise';
import { placeImage, type PlacementQuad } from '../../../src/engine/personalise/image';
import { releaseOverrides } from '../../../src/engine/personalise/overrides';
import { placementCache } from '../../../src/engine/cache';
import { dropLentPictures, lendPicture, lentPictureBytes, releaseOnce } from '../../../src/engine/raster/bounded';
import type { LayerNode, RGBAImage } from '../../../src/engine/types';
import { layerNode as node } from './helpers';

function picture(width: number, height: number, seed: number, opaque: boolean): RGBAImage & { opaque?: boolean } {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 && opaque ? 255 : s >>> 24;
  }
  return { width, height, data, opaque };
}

const upright = (left: number, top: number, right: number, bottom: number, width: number, height: number): PlacementQuad => ({
  corners: [left, top, right, top, right, bottom, left, bottom],
  width,
  height,
});

describe('placeImage into a given array', () => {
  it('writes every byte: the same pixels as a new array, over any old content', async () => {
    const cases: Array<[string, RGBAImage & { opaque?: boolean; standsFor?: { width: number; height: number } }, PlacementQuad, 'fit' | 'fill', { within?: { left: number; top: number; right: number; bottom: number } }]> = [
      ['fill, opaque, cut to the canvas', picture(90, 70, 1, true), upright(-3.5, 2.25, 60.5, 50.75, 64, 48), 'fill', { within: { left: 0, top: 0, right: 58, bottom: 45 } }],
      ['fit, transparent', picture(50, 80, 2, false), upright(4.2, 1.7, 41.9, 39.3, 40, 40), 'fit', {}],
      ['standing for a larger size', { ...picture(60, 45, 3, true), standsFor: { width: 120, height: 90 } }, upright(0, 0, 37, 29, 37, 29), 'fill', {}],
    ];
    for (const [name, given, quad, mode, options] of cases) {
      const fresh = (await placeImage(given, quad, mode, options))!;
      for (const old of [0, 255, 77]) {
        let lent: Uint8ClampedArray | undefined;
        const placed = (await placeImage(given, quad, mode, { ...options, arrayFor: (bytes) => (lent = new Uint8ClampedArray(bytes).fill(old)) }))!;
        expect(placed.pixels.data.buffer, `${name} over ${old}`).toBe(lent!.buffer);
        expect(placed.bounds, name).toEqual(fresh.bounds);
        expect(Buffer.from(placed.pixels.data).equals(Buffer.from(fresh.pixels.data)), `${name} over ${old}`).toBe(true);
      }
    }
  });
});

describe('buildOverrides with a placement no cache keeps', () => {
  const tree = (): LayerNode[] => [node(4, 'Photo', 'Image', { bounds: { left: 0, top: 0, right: 40, bottom: 30 } })];
  const context = (key?: string): PersonaliseContext => ({
    scale: 1,
    loadFont: async () => null,
    imageKey: key ? () => key : undefined,
    loadImage: async () => ({ ...picture(60, 45, 9, true), source: { width: 60, height: 45 } }),
  });
  const data = { Photo: { type: 'image', image: 'a.jpg', resizeMode: 'fill' } };

  it('draws it into a lent array, given back by releaseOverrides once', async () => {
    placementCache.clear(); // first: what it lets go of joins the pool, dropped next
    dropLentPictures();
    const overrides = await buildOverrides(tree(), data, context());
    const pixels = overrides.get(4)!.pixels!;
    expect(pixels.data.byteLength).toBe(40 * 30 * 4);
    expect(lentPictureBytes()).toBe(0);
    releaseOverrides(overrides);
    releaseOverrides(overrides); // once only
    expect(lentPictureBytes()).toBe(40 * 30 * 4);
    // The next one is drawn into that array, the same pixels as a new one.
    const next = await buildOverrides(tree(), data, context());
    expect(next.get(4)!.pixels!.data.buffer).toBe(pixels.data.buffer);
    expect(lentPictureBytes()).toBe(0);
    const fresh = await placeImage({ ...picture(60, 45, 9, true) }, { corners: [0, 0, 40, 0, 40, 30, 0, 30], width: 40, height: 30 }, 'fill');
    expect(Buffer.from(next.get(4)!.pixels!.data).equals(Buffer.from(fresh!.pixels.data))).toBe(true);
    releaseOverrides(next);
    dropLentPictures();
  });

  it('gives a kept one back once placementCache lets it go and no request reads it', async () => {
    placementCache.clear(); // first: what it lets go of joins the pool, dropped next
    dropLentPictures();
    const bytes = 40 * 30 * 4;
    const first = await buildOverrides(tree(), data, context(`image/placement-lent-${Math.random()}`));
    const buffer = first.get(4)!.pixels!.data.buffer;
    expect(buffer.byteLength).toBe(bytes);
    releaseOverrides(first);
    expect(lentPictureBytes()).toBe(0); // kept: placementCache holds it
    // Another request reads it from the cache; evicted meanwhile, it goes back only after that read.
    const key = `image/placement-lent-again-${Math.random()}`;
    const a = await buildOverrides(tree(), data, context(key));
    const b = await buildOverrides(tree(), data, context(key));
    expect(b.get(4)!.pixels).toBe(a.get(4)!.pixels);
    placementCache.clear();
    expect(lentPictureBytes()).toBe(bytes); // the first request's, read by nobody now
    releaseOverrides(a);
    expect(lentPictureBytes()).toBe(bytes);
    releaseOverrides(b);
    releaseOverrides(b);
    expect(lentPictureBytes()).toBe(2 * bytes);
    // The next placement is drawn into one of them, over the old pixels, the same bytes as a new one.
    const next = await buildOverrides(tree(), data, context(`image/placement-lent-next-${Math.random()}`));
    expect([buffer, a.get(4)!.pixels!.data.buffer]).toContain(next.get(4)!.pixels!.data.buffer);
    const fresh = await placeImage({ ...picture(60, 45, 9, true) }, { corners: [0, 0, 40, 0, 40, 30, 0, 30], width: 40, height: 30 }, 'fill');
    expect(Buffer.from(next.get(4)!.pixels!.data).equals(Buffer.from(fresh!.pixels.data))).toBe(true);
    releaseOverrides(next);
    placementCache.clear();
    dropLentPictures();
  });

  it('gives back the array a decode through the taps took and did not draw into', async () => {
    placementCache.clear(); // first: what it lets go of joins the pool, dropped next
    dropLentPictures();
    // A loader that takes the placement's array, as raster/bounded.ts' `through` does before the
    // fused decode, then answers the picture itself (that decode refused the file: a progressive JPEG).
    let taken: Uint8ClampedArray | undefined;
    const refusing: PersonaliseContext = {
      ...context(),
      loadImage: async (_ref, _target, how) => {
        const shape = { width: 60, height: 45 };
        const taps = how?.through?.(shape);
        taken = taps?.arrayFor?.((taps.h.bounds.length >> 1) * (taps.v.bounds.length >> 1) * 4);
        return { ...picture(60, 45, 9, true), source: shape };
      },
    };
    const overrides = await buildOverrides(tree(), data, refusing);
    expect(taken?.byteLength).toBe(40 * 30 * 4);
    // Given back when the placement asked again, and lent to it: not left to the collector.
    expect(overrides.get(4)!.pixels!.data.buffer).toBe(taken!.buffer);
    expect(lentPictureBytes()).toBe(0);
    releaseOverrides(overrides);
    expect(lentPictureBytes()).toBe(40 * 30 * 4);
    dropLentPictures();
  });

  it('keeps no buffer much longer than the placement in placementCache', async () => {
    placementCache.clear(); // first: what it lets go of joins the pool, dropped next
    dropLentPictures();
    const big = lendPicture(4 * 40 * 30 * 4)!;
    releaseOnce(big)();
    const overrides = await buildOverrides(tree(), data, context(`image/placement-lent-long-${Math.random()}`));
    expect(overrides.get(4)!.pixels!.data.buffer.byteLength).toBe(40 * 30 * 4);
    expect(lentPictureBytes()).toBe(big.buffer.byteLength); // left free
    releaseOverrides(overrides);
    placementCache.clear();
    dropLentPictures();
  });

  it('never draws into an array a request still reads: requests, releases and evictions in any order', async () => {
    placementCache.clear(); // first: what it lets go of joins the pool, dropped next
    dropLentPictures();
    const pictures = [11, 12, 13, 14].map((seed) => ({ seed, key: `image/placement-lent-fuzz-${seed}-${Math.random()}` }));
    const contextOf = (p: (typeof pictures)[number]): PersonaliseContext => ({
      scale: 1,
      loadFont: async () => null,
      imageKey: () => p.key,
      loadImage: async () => ({ ...picture(60, 45, p.seed, true), source: { width: 60, height: 45 } }),
    });
    const expected = new Map<number, Buffer>();
    for (const p of pictures) {
      const placed = await placeImage(picture(60, 45, p.seed, true), { corners: [0, 0, 40, 0, 40, 30, 0, 30], width: 40, height: 30 }, 'fill');
      expected.set(p.seed, Buffer.from(placed!.pixels.data));
    }
    let s = 7;
    const random = (n: number) => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const reading: Array<{ seed: number; overrides: Awaited<ReturnType<typeof buildOverrides>> }> = [];
    const check = () => {
      for (const r of reading) expect(Buffer.from(r.overrides.get(4)!.pixels!.data).equals(expected.get(r.seed)!)).toBe(true);
    };
    for (let step = 0; step < 400; step++) {
      const op = random(10);
      if (op < 5) {
        const p = pictures[random(pictures.length)]!;
        reading.push({ seed: p.seed, overrides: await buildOverrides(tree(), data, contextOf(p)) });
      } else if (op < 8 && reading.length) {
        releaseOverrides(reading.splice(random(reading.length), 1)[0]!.overrides);
      } else if (op === 8) {
        placementCache.trim(random(3) * 40 * 30 * 4);
      } else {
        placementCache.clear();
      }
      check();
    }
    for (const r of reading) releaseOverrides(r.overrides);
    placementCache.clear();
    dropLentPictures();
  });
});

