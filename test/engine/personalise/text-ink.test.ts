import { describe, expect, it } from 'vitest';
import { resolveFont } from '../../../src/engine/fonts/substitution';
import { renderText } from '../../../src/engine/personalise/text';
import { renderSvg } from '../../../src/engine/personalise/resvg';
import { inkOf } from '../../../src/engine/composite/dirty';
import { knownInk } from '../../../src/engine/cache/ink';
import { flattenOverWhite, unpremultiply } from '../../../src/engine/raster/pixels';
import { withArena } from '../../../src/engine/raster/kernels';
import type { Bounds, TextInfo } from '../../../src/engine/types';
import { bundledFontStore } from '../fonts/helpers';

/**
 * A drawn text's pixels are made straight and their ink box found in one visit to the kernels'
 * memory (personalise/text.ts straightWithInk, wasm/assembly/kernels.ts unpremultiply and
 * inkBox, cache/ink.ts), for composite/dirty.ts's inkOf: the same bytes as before, the same box
 * as inkOf's own scan (only the rows of that box unpremultiplied and copied back, the others
 * zeros, as unpremultiply leaves a row of alpha 0). unpremultiply and flattenOverWhite pass over four transparent or opaque
 * pixels at a time: the same bytes as the one-pixel formula.
 */

let seed = 7;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

/** Pixels with runs of transparent and opaque ones (a text's margins and glyph insides), edges between, colours valid or not for their alpha. */
function runs(width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  let alpha = 0;
  for (let i = 0; i < width * height; i++) {
    const r = random();
    if (r < 0.08) alpha = 0;
    else if (r < 0.14) alpha = 255;
    else if (r < 0.3) alpha = Math.floor(random() * 256);
    for (let c = 0; c < 3; c++) data[i * 4 + c] = random() < 0.85 ? Math.floor(random() * (alpha + 1)) : Math.floor(random() * 256);
    data[i * 4 + 3] = alpha;
  }
  // Empty margins, as a text raster has.
  const [l, t] = [Math.floor(random() * width), Math.floor(random() * height)];
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (x < l || y < t) data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 4);
  return data;
}

/** The kernel's one-pixel unpremultiply in f32 (wasm/assembly/kernels.ts): c = trunc(min(c, a) · f32(255 / a) + 0.5). */
function unpremultiplied(data: Uint8ClampedArray): Uint8ClampedArray {
  const out = new Uint8ClampedArray(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]!;
    if (a === 0) continue;
    const k = Math.fround(255 / a);
    for (let c = 0; c < 3; c++) out[i + c] = a === 255 ? data[i + c]! : Math.min(255, Math.trunc(Math.fround(Math.fround(Math.min(data[i + c]!, a) * k) + 0.5)));
    out[i + 3] = a;
  }
  return out;
}

/** inkOf's scan on a copy (nothing recorded for it). */
const scanned = (data: Uint8ClampedArray, width: number, height: number) => inkOf({ width, height, data: data.slice() }, { left: 0, top: 0, right: width, bottom: height });

describe('unpremultiply and flattenOverWhite four pixels at a time', () => {
  it('give the one-pixel formula on runs of transparent, opaque and partial pixels (odd sizes)', async () => {
    for (const [w, h] of [[1, 1], [3, 1], [5, 3], [37, 11], [64, 9], [403, 17]] as const) {
      const data = runs(w, h);
      const straight = data.slice();
      await unpremultiply(straight);
      expect(straight).toEqual(unpremultiplied(data));
      const flat = data.slice();
      await flattenOverWhite(flat);
      const expected = new Uint8ClampedArray(data.length);
      for (let i = 0; i < data.length; i += 4) {
        const a = data[i + 3]!;
        for (let c = 0; c < 3; c++) expected[i + c] = Math.round((data[i + c]! * a + 255 * (255 - a)) / 255);
        expected[i + 3] = 255;
      }
      expect(flat).toEqual(expected);
    }
  });
});

describe('inkBox', () => {
  it('finds the box inkOf scans for, or none', async () => {
    const cases: Array<[number, number, Uint8ClampedArray]> = [];
    for (let i = 0; i < 60; i++) {
      const w = 1 + Math.floor(random() * 90);
      const h = 1 + Math.floor(random() * 30);
      const data = runs(w, h);
      // Sparse ink: a few pixels only, anywhere (edges and corners included), or none at all.
      if (i % 3 === 1) {
        for (let p = 3; p < data.length; p += 4) data[p] = 0;
        for (let k = Math.floor(random() * 4); k > 0; k--) data[Math.floor(random() * w * h) * 4 + 3] = 1 + Math.floor(random() * 255);
      }
      cases.push([w, h, data]);
    }
    for (const [w, h, data] of cases) {
      const box = await withArena((k, arena) => {
        const ptr = arena.alloc(data.length);
        const out = arena.alloc(16);
        arena.u8().set(data, ptr);
        k.inkBox(ptr, w, h, out);
        return [...new Int32Array(arena.u8().buffer, out, 4)];
      });
      const want = scanned(data, w, h);
      if (!want) expect(box[0]).toBe(-1);
      else expect({ left: box[0], top: box[1], right: box[2], bottom: box[3] }).toEqual(want);
    }
  });
});

describe('a drawn text', () => {
  const info = (text: string, size: number): TextInfo => ({ text, font: 'ArialMT', size, color: '#fafafa', transform: [1, 0, 0, 1, 20, 20 + size] }) as TextInfo;

  it.each([
    ['Hello 12 xx', 60, 0.25],
    ['Grand opening', 48, 1],
    ['j', 9, 0.4],
    ['Jumpy Qg', 200, 0.5],
    // Ink in a few middle rows of the line box only: the rows above and below it are not unpremultiplied, and come out zeros.
    ['- . -', 40, 1],
    ['~', 13, 0.7],
  ])('%s at %d px, scale %d: same pixels as resvg + unpremultiply, its ink recorded as inkOf finds it', async (text, size, scale) => {
    const font = (await resolveFont('ArialMT', bundledFontStore))!;
    const drawn = (await renderText({ info: info(text, size), text, font: font.bytes, scale }))!;
    const { width, height, data } = drawn.pixels;
    // The pixels the path before this change gave: resvg's, unpremultiplied in chunks.
    const before = (await renderSvg(drawn.vector.svg, drawn.vector.fonts)).data;
    await unpremultiply(before);
    expect(data).toEqual(before);
    const recorded = knownInk(data, width, height);
    expect(recorded).not.toBeUndefined();
    expect(recorded).toEqual(scanned(data, width, height));
    // inkOf answers from the record, placed at the text's bounds.
    const at: Bounds = drawn.bounds;
    const placed = inkOf(drawn.pixels, at);
    const ink = recorded!;
    expect(placed).toEqual(ink && { left: at.left + ink.left, top: at.top + ink.top, right: at.left + ink.right, bottom: at.top + ink.bottom });
  });
});
