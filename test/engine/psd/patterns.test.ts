import { readPsd, writePsdUint8Array } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { ColorMode, cmykToSrgb, narrow16, refuseUnreadPatterns, toRgbaRow } from '../../../src/engine/psd/color-modes';
import { PATTERN_MEMORY, readPatterns } from '../../../src/engine/psd/patterns';
import { type CraftPattern, patternPsd } from './pattern-craft';

/**
 * psd/patterns.ts reads the document's patterns from the 'Patt'/'Pat2'/'Pat3' blocks with their
 * transparency: the written slot after the colour planes (ag-psd's reader made every pattern
 * opaque; docs/fidelity.md "Patterns with transparency").
 */

const W = 3;
const H = 2;
const N = W * H;
const plane = (f: (i: number) => number, n = N) => Uint8Array.from({ length: n }, (_, i) => f(i));
const R = plane((i) => 10 + 40 * i);
const G = plane((i) => 200 - 30 * i);
const B = plane((i) => (i * 97) & 255);
const A = plane((i) => [0, 64, 128, 255, 1, 200][i]);

const rgbPattern = (compression: number, alpha = true, extra: Partial<CraftPattern> = {}): CraftPattern => ({
  mode: ColorMode.RGB,
  name: 'tile',
  id: 'id-rgb',
  width: W,
  height: H,
  planes: [
    { slot: 0, samples: R, compression },
    { slot: 1, samples: G, compression },
    { slot: 2, samples: B, compression },
    ...(alpha ? [{ slot: 25, samples: A, compression }] : []),
  ],
  ...extra,
});

const rgba = (r: Uint8Array, g: Uint8Array, b: Uint8Array, a?: Uint8Array) => plane((i) => [r, g, b][i % 4]?.[i >> 2] ?? (a ? a[i >> 2] : 255), N * 4);

describe('document patterns read from the bytes', () => {
  it.each([
    ['raw', 0],
    ['RLE', 1],
    ['ZIP', 2],
    ['ZIP with prediction', 3],
  ])('take the written slot after the colours as alpha (%s)', (_, compression) => {
    const [p] = readPatterns(patternPsd([{ key: 'Patt', patterns: [rgbPattern(compression)] }]));
    expect(p).toMatchObject({ id: 'id-rgb', name: 'tile', mode: ColorMode.RGB, width: W, height: H });
    expect([...p.data!]).toEqual([...rgba(R, G, B, A)]);
  });

  it('read an opaque RGB pattern byte for byte as ag-psd does (ag-psd writes it, both read it)', () => {
    const tile = rgba(R, G, B);
    const psd = writePsdUint8Array({ width: 4, height: 4, patterns: [{ name: 'tile', id: 'ag-1', x: 0, y: 0, bounds: { x: 0, y: 0, w: W, h: H }, data: tile }] } as never);
    const theirs = readPsd(psd, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, useImageData: true }).patterns![0];
    const [ours] = readPatterns(psd);
    expect({ id: ours.id, name: ours.name, width: ours.width, height: ours.height }).toEqual({ id: theirs.id, name: theirs.name, width: theirs.bounds.w, height: theirs.bounds.h });
    expect([...ours.data!]).toEqual([...theirs.data]);
  });

  it('keep the transparency ag-psd writes in slot 25, which its reader drops', () => {
    const tile = rgba(R, G, B, A);
    const psd = writePsdUint8Array({ width: 4, height: 4, patterns: [{ name: 'tile', id: 'ag-2', x: 0, y: 0, bounds: { x: 0, y: 0, w: W, h: H }, data: tile }] } as never);
    const theirs = readPsd(psd, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, useImageData: true }).patterns![0];
    expect([...theirs.data].filter((_, i) => i % 4 === 3).every((a) => a === 255)).toBe(true);
    expect([...readPatterns(psd)[0].data!]).toEqual([...tile]);
  });

  it('take the alpha from whichever slot is written after the colours (here slot 3)', () => {
    const p = rgbPattern(0, false);
    p.planes.push({ slot: 3, samples: A });
    expect([...readPatterns(patternPsd([{ key: 'Patt', patterns: [p] }]))[0].data!]).toEqual([...rgba(R, G, B, A)]);
  });

  it('read Grayscale and Duotone as R = G = B, at 16 bits narrowed as a layer is', () => {
    const wide = (v: Uint16Array) => plane((i) => (i & 1 ? v[i >> 1] & 255 : v[i >> 1] >> 8), v.length * 2);
    const grey = Uint16Array.from({ length: N }, (_, i) => i * 12000 + 77);
    const alpha = Uint16Array.from({ length: N }, (_, i) => 65535 - i * 9000);
    const pattern = (mode: number): CraftPattern => ({
      mode,
      name: 'g',
      id: `g${mode}`,
      width: W,
      height: H,
      planes: [
        { slot: 0, samples: wide(grey), depth: 16, compression: 1 },
        { slot: 25, samples: wide(alpha), depth: 16, compression: 0 },
      ],
    });
    const [gray, duo] = readPatterns(patternPsd([{ key: 'Patt', patterns: [pattern(ColorMode.Grayscale), pattern(ColorMode.Duotone)] }]));
    const g = plane((i) => narrow16(grey[i]));
    const want = [...rgba(g, g, g, plane((i) => narrow16(alpha[i])))];
    expect([...gray.data!]).toEqual(want);
    expect([...duo.data!]).toEqual(want);
  });

  it('read Indexed through its own colour table', () => {
    const table = plane((i) => (i * 7) & 255, 768);
    const index = plane((i) => i * 40);
    const [p] = readPatterns(patternPsd([{ key: 'Patt', patterns: [{ mode: ColorMode.Indexed, name: 'i', id: 'i', width: W, height: H, table, planes: [{ slot: 0, samples: index }, { slot: 25, samples: A }] }] }]));
    const c = (k: number) => plane((i) => table[index[i] * 3 + k]);
    expect([...p.data!]).toEqual([...rgba(c(0), c(1), c(2), A)]);
  });

  it('read CMYK (stored inverted) through the CMYK profile and Lab as a layer of that mode', () => {
    const ink = [R, G, B, plane((i) => 255 - i * 20)];
    const lab = [plane((i) => 40 + i * 30), plane((i) => 100 + i * 10), plane((i) => 160 - i * 12)];
    const [cmyk, labP] = readPatterns(
      patternPsd([
        { key: 'Patt', patterns: [{ mode: ColorMode.CMYK, name: 'c', id: 'c', width: W, height: H, planes: [...ink.map((samples, slot) => ({ slot, samples, compression: 1 })), { slot: 25, samples: A, compression: 1 }] }] },
        { key: 'Pat2', patterns: [{ mode: ColorMode.Lab, name: 'l', id: 'l', width: W, height: H, planes: [...lab.map((samples, slot) => ({ slot, samples })), { slot: 25, samples: A }] }] },
      ]),
    );
    const want = (mode: number, planes: Uint8Array[]) => {
      const out = new Uint8Array(N * 4);
      for (let y = 0; y < H; y++) {
        const row = new Uint8Array(W * 4);
        toRgbaRow(mode, planes, A, row, y * W, W, mode === ColorMode.CMYK ? cmykToSrgb() : undefined);
        out.set(row, y * W * 4);
      }
      return [...out];
    };
    expect([...cmyk.data!]).toEqual(want(ColorMode.CMYK, ink));
    expect([...labP.data!]).toEqual(want(ColorMode.Lab, lab));
  });

  it("read 'Patt', 'Pat2' and 'Pat3' blocks in file order, in a PSB too", () => {
    const blocks = ['Pat3', 'Patt', 'Pat2'].map((key) => ({ key, patterns: [rgbPattern(1, true, { id: key })] }));
    for (const large of [false, true]) {
      const read = readPatterns(patternPsd(blocks, { large }));
      expect(read.map((p) => p.id)).toEqual(['Pat3', 'Patt', 'Pat2']);
      expect(read.every((p) => p.data?.length === N * 4)).toBe(true);
    }
  });

  it('place a plane by its own rectangle: outside it no colour, and clear where alpha is written', () => {
    const p = rgbPattern(0);
    p.planes[3] = { slot: 25, samples: plane(() => 255, 2), rect: { top: 1, left: 1, bottom: 2, right: 3 } };
    const alpha = [...readPatterns(patternPsd([{ key: 'Patt', patterns: [p] }]))[0].data!].filter((_, i) => i % 4 === 3);
    expect(alpha).toEqual([0, 0, 0, 0, 255, 255]);
  });

  it('name what they cannot read: Bitmap and Multichannel patterns, other depths, too much memory, bytes cut short', () => {
    const bits: CraftPattern = { mode: ColorMode.Bitmap, name: 'b', id: 'b', width: W, height: H, planes: [{ slot: 0, samples: plane(() => 0, 2), depth: 1 }] };
    const multi: CraftPattern = { ...rgbPattern(0), mode: ColorMode.Multichannel, id: 'm' };
    const deep: CraftPattern = { ...rgbPattern(0), id: 'd', planes: rgbPattern(0).planes.map((q) => ({ ...q, depth: 4 })) };
    const read = readPatterns(patternPsd([{ key: 'Patt', patterns: [bits, multi, deep, rgbPattern(0, true, { id: 'ok' })] }]));
    expect(read.map((p) => [p.id, p.unread])).toEqual([
      ['b', 'a Bitmap pattern is not supported'],
      ['m', 'a Multichannel pattern is not supported'],
      ['d', 'its planes are 4-bit'],
      ['ok', undefined],
    ]);
    const side = Math.ceil(Math.sqrt(PATTERN_MEMORY / 4)) + 1;
    const huge = readPatterns(patternPsd([{ key: 'Patt', patterns: [{ ...rgbPattern(0), id: 'h', width: side, height: side, planes: [] }] }]));
    expect(huge[0].unread).toMatch(/more than 64 MB/);
    // A plane whose rectangle runs past the pattern's (every row of it would be read): not drawn.
    const wide: CraftPattern = rgbPattern(0, true, { id: 'w' });
    wide.planes[0] = { slot: 0, samples: plane(() => 9, 40_000 * H), rect: { top: 0, left: 0, bottom: H, right: 40_000 } };
    expect(readPatterns(patternPsd([{ key: 'Patt', patterns: [wide] }]))[0].unread).toBe("a plane's rectangle lies outside the pattern's");
    // A file cut inside the last plane: that pattern is named unreadable, nothing thrown.
    const whole = patternPsd([{ key: 'Patt', patterns: [rgbPattern(0, true, { id: 'cut' })] }]);
    const [cut] = readPatterns(whole.subarray(0, whole.length - 30));
    expect(cut).toMatchObject({ id: 'cut', unread: expect.stringMatching(/could not be decoded/) });
  });

  it('a document without patterns, or one cut short, has none', () => {
    expect(readPatterns(patternPsd([]))).toEqual([]);
    const cut = patternPsd([{ key: 'Patt', patterns: [rgbPattern(0)] }]);
    expect(() => readPatterns(cut.subarray(0, 60))).not.toThrow();
  });
});

describe('patterns that cannot be tiled', () => {
  const overlay = [{ name: 'Fx', effects: { patternOverlay: { enabled: true, pattern: { name: 'Bits', id: 'b' } } } }];

  it('refuse an effect whose pattern the document holds but we could not read, in 8-bit RGB too, with the reason', () => {
    const unread = new Map([['b', 'a Bitmap pattern is not supported']]);
    expect(() => refuseUnreadPatterns(overlay as never, new Set(), ColorMode.RGB, 8, unread)).toThrow(Unprocessable);
    expect(() => refuseUnreadPatterns(overlay as never, new Set(), ColorMode.RGB, 8, unread)).toThrow(/"Fx" uses the pattern "Bits", which cannot be read: a Bitmap pattern is not supported/);
  });

  it('leave 8-bit RGB documents whose effect names a pattern they do not hold as they were (drawn without it)', () => {
    expect(() => refuseUnreadPatterns(overlay as never, new Set(), ColorMode.RGB, 8, new Map())).not.toThrow();
    expect(() => refuseUnreadPatterns(overlay as never, new Set(), ColorMode.CMYK, 8, new Map())).toThrow(/does not hold/);
  });
});
