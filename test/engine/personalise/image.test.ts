import { describe, expect, it } from 'vitest';
import { applyHomography, homography, placeImage, pictureRect } from '../../../src/engine/personalise/image';
import type { RGBAImage } from '../../../src/engine/types';

/** A picture in four coloured quadrants: red TL, green TR, blue BR, yellow BL. */
function quadrants(width: number, height: number): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const right = x >= width / 2;
      const bottom = y >= height / 2;
      const c = !bottom ? (right ? [0, 255, 0] : [255, 0, 0]) : right ? [0, 0, 255] : [255, 255, 0];
      data.set([...c, 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

const at = (img: { pixels: RGBAImage; bounds: { left: number; top: number } }, x: number, y: number) => {
  const ix = Math.floor(x) - img.bounds.left;
  const iy = Math.floor(y) - img.bounds.top;
  if (ix < 0 || iy < 0 || ix >= img.pixels.width || iy >= img.pixels.height) return [0, 0, 0, 0];
  return [...img.pixels.data.slice((iy * img.pixels.width + ix) * 4, (iy * img.pixels.width + ix) * 4 + 4)];
};

/** Point at fraction (s, t) of a quad, by the projective map of the unit square. */
function quadPoint(corners: number[], s: number, t: number): [number, number] {
  const h = homography([0, 0, 1, 0, 1, 1, 0, 1], corners)!;
  return applyHomography(h, s, t);
}

describe('homography', () => {
  it('maps the four source corners exactly to the destination corners', () => {
    const from = [0, 0, 100, 0, 100, 50, 0, 50];
    const to = [10, 20, 200, 5, 180, 160, 30, 120];
    const h = homography(from, to)!;
    for (let i = 0; i < 4; i++) {
      const [u, v] = applyHomography(h, from[2 * i], from[2 * i + 1]);
      expect(u).toBeCloseTo(to[2 * i], 6);
      expect(v).toBeCloseTo(to[2 * i + 1], 6);
    }
  });

  it('is null for a degenerate quad', () => {
    expect(homography([0, 0, 1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 2, 2, 3, 3])).toBeNull();
  });
});

describe('pictureRect: fit = contain, fill = cover, centred', () => {
  it('fit letterboxes a wide picture in a square', () => {
    expect(pictureRect(200, 100, 100, 100, 'fit')).toEqual({ left: 0, top: 25, right: 100, bottom: 75 });
  });
  it('fill crops a wide picture to a square', () => {
    expect(pictureRect(200, 100, 100, 100, 'fill')).toEqual({ left: -50, top: 0, right: 150, bottom: 100 });
  });
});

describe('placeImage', () => {
  it('fills an axis-aligned placement exactly: quadrant colours at the corners, opaque inside', async () => {
    const placed = (await placeImage(quadrants(40, 30), { corners: [10, 20, 90, 20, 90, 80, 10, 80], width: 80, height: 60 }, 'fill'))!;
    expect(placed.bounds).toEqual({ left: 10, top: 20, right: 90, bottom: 80 });
    expect(at(placed, 12, 22)).toEqual([255, 0, 0, 255]);
    expect(at(placed, 88, 22)).toEqual([0, 255, 0, 255]);
    expect(at(placed, 88, 78)).toEqual([0, 0, 255, 255]);
    expect(at(placed, 12, 78)).toEqual([255, 255, 0, 255]);
  });

  it('fit leaves transparent bands where the aspect ratios differ', async () => {
    const placed = (await placeImage(quadrants(100, 50), { corners: [0, 0, 100, 0, 100, 100, 0, 100], width: 100, height: 100 }, 'fit'))!;
    expect(placed.bounds).toEqual({ left: 0, top: 25, right: 100, bottom: 75 });
    expect(at(placed, 50, 10)[3]).toBe(0);
    expect(at(placed, 2, 27)).toEqual([255, 0, 0, 255]);
  });

  it('fill crops: the middle of a wide picture covers a square placement', async () => {
    const placed = (await placeImage(quadrants(300, 100), { corners: [0, 0, 100, 0, 100, 100, 0, 100], width: 100, height: 100 }, 'fill'))!;
    expect(placed.bounds).toEqual({ left: 0, top: 0, right: 100, bottom: 100 });
    expect(at(placed, 1, 1)).toEqual([255, 0, 0, 255]);
    expect(at(placed, 99, 99)).toEqual([0, 0, 255, 255]);
  });

  it('a perspective placement: each quadrant lands at its corner, nothing outside the quad', async () => {
    const corners = [60, 40, 230, 70, 210, 190, 40, 170]; // a rotated, perspective quad
    const placed = (await placeImage(quadrants(64, 48), { corners, width: 640, height: 480 }, 'fill'))!;
    const expected = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]];
    const near = [[0.08, 0.08], [0.92, 0.08], [0.92, 0.92], [0.08, 0.92]];
    near.forEach(([s, t], i) => {
      const [x, y] = quadPoint(corners, s, t);
      expect(at(placed, x, y).slice(0, 3), `corner ${i}`).toEqual(expected[i]);
      expect(at(placed, x, y)[3]).toBe(255);
    });
    // Just outside each corner (away from the centre) nothing is drawn.
    [[-0.05, -0.05], [1.05, -0.05], [1.05, 1.05], [-0.05, 1.05]].forEach(([s, t]) => {
      const [x, y] = quadPoint(corners, s, t);
      expect(at(placed, x, y)[3]).toBe(0);
    });
    // The drawn alpha adds up to the quad's area (shoelace), within antialiasing.
    let area = 0;
    for (let i = 0; i < 4; i++) {
      const j = (i + 1) % 4;
      area += corners[2 * i] * corners[2 * j + 1] - corners[2 * j] * corners[2 * i + 1];
    }
    let alpha = 0;
    for (let i = 3; i < placed.pixels.data.length; i += 4) alpha += placed.pixels.data[i] / 255;
    expect(Math.abs(alpha - Math.abs(area) / 2) / (Math.abs(area) / 2)).toBeLessThan(0.01);
  });

  it('antialiases slanted edges with partial coverage', async () => {
    const corners = [50, 0, 100, 50, 50, 100, 0, 50]; // a diamond
    const placed = (await placeImage(quadrants(10, 10), { corners, width: 10, height: 10 }, 'fill'))!;
    const partial = [...placed.pixels.data].filter((v, i) => i % 4 === 3 && v > 0 && v < 255).length;
    expect(partial).toBeGreaterThan(100);
  });

  it('shrinks a large picture with good quality (no aliasing of fine stripes)', async () => {
    const w = 400;
    const stripes: RGBAImage = { width: w, height: w, data: new Uint8ClampedArray(w * w * 4) };
    for (let i = 0; i < w * w; i++) stripes.data.set([(i % w) % 2 ? 255 : 0, 0, 0, 255], i * 4);
    const placed = (await placeImage(stripes, { corners: [0, 0, 40, 0, 40, 40, 0, 40], width: 40, height: 40 }, 'fill'))!;
    const reds = [];
    for (let i = 0; i < placed.pixels.data.length; i += 4) reds.push(placed.pixels.data[i]);
    const interior = reds.filter((_, i) => i % 40 > 2 && i % 40 < 37 && i > 120 && i < 1480);
    expect(Math.min(...interior)).toBeGreaterThan(100);
    expect(Math.max(...interior)).toBeLessThan(155);
  });
});

// Issue 25 §3: inside every edge by more than a pixel, the edges are not measured (coverage 1).
describe('placeImage interior shortcut', () => {
  it('gives the same bytes as measuring every edge at every pixel', async () => {
    const picture = quadrants(97, 61);
    const quads = [
      [10, 20, 330, 20, 330, 260, 10, 260], // axis-aligned
      [10.3, 20.7, 330.2, 20.1, 329.8, 259.6, 10.9, 260.4], // almost
      [60, 0, 200, 60, 140, 200, 0, 140], // rotated 45°
      [10, 20, 200, 5, 180, 160, 30, 120], // perspective
      [0, 0, 3, 0, 3, 2, 0, 2], // tiny
    ];
    for (const corners of quads) {
      for (const mode of ['fit', 'fill'] as const) {
        const placement = { corners, width: 97, height: 61 };
        const fast = await placeImage(picture, placement, mode);
        const every = await placeImage(picture, placement, mode, { edgesEverywhere: true });
        expect(fast?.bounds, JSON.stringify(corners)).toEqual(every?.bounds);
        expect(fast?.pixels.data, `${mode} ${JSON.stringify(corners)}`).toEqual(every?.pixels.data);
      }
    }
  });
});

// Issue 25 §3: the sampling loop's row terms are hoisted and interior taps skip the clamps; the
// bytes are those of the plain per-pixel form it replaced (this digest was taken from it, git 2e7297c).
describe('placeImage bytes', () => {
  it('are those of the plain per-pixel sampling, on placements of every kind', async () => {
    const width = 97;
    const height = 61;
    const data = new Uint8ClampedArray(width * height * 4);
    let seed = 12345;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data[i] = seed >>> 24;
    }
    for (let i = 3; i < data.length; i += 64) data[i] = 0; // some transparent pixels
    const picture = { width, height, data };
    const quads = [
      [10, 20, 330, 20, 330, 260, 10, 260], // axis-aligned
      [10.3, 20.7, 330.2, 20.1, 329.8, 259.6, 10.9, 260.4], // almost
      [60, 0, 200, 60, 140, 200, 0, 140], // rotated 45°
      [10, 20, 200, 5, 180, 160, 30, 120], // perspective
      [-20, -10, 60, -10, 60, 40, -20, 40], // past the canvas' top left
      [0, 0, 3, 0, 3, 2, 0, 2], // tiny
    ];
    const parts: Uint8Array[] = [];
    const text = new TextEncoder();
    for (const corners of quads) {
      for (const mode of ['fit', 'fill'] as const) {
        const placed = await placeImage(picture, { corners, width, height }, mode);
        parts.push(text.encode(JSON.stringify(placed?.bounds ?? null)));
        if (placed) parts.push(new Uint8Array(placed.pixels.data.buffer, placed.pixels.data.byteOffset, placed.pixels.data.byteLength));
      }
    }
    const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    parts.reduce((at, p) => (all.set(p, at), at + p.byteLength), 0);
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', all))].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(digest).toBe('b5fc853380024a1b36f061bbe2dfb7ac9ad069339b17d72f1a5dbe3696b3da11');
  });
});
