import { describe, expect, it } from 'vitest';
import { colourTransform, colourTransformSync, defaultProfile, InvalidProfile, readProfileInfo, RENDERING_INTENTS } from '../../../src/engine/colour';

describe('readProfileInfo', () => {
  it('reads the shipped profiles: colour space, description tag, class and version', () => {
    expect(readProfileInfo(defaultProfile('Cmyk'))).toMatchObject({ colorSpace: 'Cmyk', description: 'Coated FOGRA39 (Argyll from FOGRA39L data)', deviceClass: 'prtr' });
    expect(readProfileInfo(defaultProfile('Rgb'))).toMatchObject({ colorSpace: 'Rgb', description: 'sRGB IEC61966-2.1 (compact)', deviceClass: 'mntr', version: '2.1' });
    expect(readProfileInfo(defaultProfile('Grayscale'))).toMatchObject({ colorSpace: 'Grayscale', description: 'sGray (sRGB tone curve, compact)' });
  });

  it('refuses a file that is not an ICC profile, saying why', () => {
    expect(() => readProfileInfo(new TextEncoder().encode('not a profile at all'))).toThrow(InvalidProfile);
    const png = new Uint8Array(400);
    png.set([0x89, 0x50, 0x4e, 0x47]);
    expect(() => readProfileInfo(png)).toThrow(/acsp/);
  });

  it('refuses a truncated profile (declared size beyond the file)', () => {
    const cmyk = defaultProfile('Cmyk');
    expect(() => readProfileInfo(cmyk.subarray(0, 4000))).toThrow(/declares/);
  });

  it('refuses a profile whose colour space is not RGB, CMYK or grey', () => {
    const lab = defaultProfile('Rgb').slice();
    lab.set([0x4c, 0x61, 0x62, 0x20], 16); // 'Lab '
    expect(() => readProfileInfo(lab)).toThrow(/not RGB, CMYK or Gray/);
  });

  it('reads a v4 multiLocalizedUnicode description', () => {
    // A tag table of one 'desc' tag holding an mluc with one en-US record.
    const text = 'Test v4';
    const mluc = [...'mluc'].map((c) => c.charCodeAt(0)).concat([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12, 0x65, 0x6e, 0x55, 0x53, 0, 0, 0, text.length * 2, 0, 0, 0, 28]);
    for (const c of text) mluc.push(0, c.charCodeAt(0));
    const bytes = new Uint8Array(144 + mluc.length);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, bytes.length);
    bytes.set([4, 0x30], 8);
    bytes.set([...'mntrRGB XYZ '].map((c) => c.charCodeAt(0)), 12);
    bytes.set([...'acsp'].map((c) => c.charCodeAt(0)), 36);
    view.setUint32(128, 1);
    bytes.set([...'desc'].map((c) => c.charCodeAt(0)), 132);
    view.setUint32(136, 144);
    view.setUint32(140, mluc.length);
    bytes.set(mluc, 144);
    expect(readProfileInfo(bytes)).toMatchObject({ colorSpace: 'Rgb', description: 'Test v4', version: '4.3' });
  });
});

describe('colourTransform', () => {
  it('refuses a profile that does not match its layout', async () => {
    await expect(colourTransform({ from: defaultProfile('Rgb'), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' })).rejects.toThrow(InvalidProfile);
  });

  it('reads Photoshop\'s inverted CMYK (255 = no ink) like ink values inverted', async () => {
    const a = await colourTransform({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGBA' });
    const b = await colourTransform({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK_INVERTED', toLayout: 'RGBA' });
    const ink = new Uint8Array([0, 0, 0, 0, 255, 0, 0, 0, 30, 200, 90, 10]);
    const outA = new Uint8Array(12);
    const outB = new Uint8Array(12);
    a.apply(ink, outA, 3);
    b.apply(ink.map((v) => 255 - v), outB, 3);
    expect(outB).toEqual(outA);
    expect(Array.from(outA.subarray(0, 4))).toEqual([255, 255, 255, 255]); // paper white → sRGB white (relative colorimetric)
    expect(outA[7]).toBe(255); // alpha written opaque
  });

  it('copies alpha through RGBA → RGBA and builds a transform once per pair', async () => {
    const opts = { from: defaultProfile('Rgb'), to: defaultProfile('Rgb'), fromLayout: 'RGBA', toLayout: 'RGBA' } as const;
    const t = await colourTransform(opts);
    expect(await colourTransform({ ...opts, from: defaultProfile('Rgb').slice() })).toBe(t); // same bytes, same transform
    const out = new Uint8Array(8);
    t.apply(new Uint8Array([10, 20, 30, 40, 200, 100, 50, 0]), out, 2);
    expect(Array.from(out)).toEqual([10, 20, 30, 40, 200, 100, 50, 0]);
  });

  it('converts 16-bit samples', async () => {
    const t = await colourTransform({ from: defaultProfile('Grayscale'), to: defaultProfile('Rgb'), fromLayout: 'GRAY16', toLayout: 'RGB16' });
    const src = new Uint16Array([0, 32768, 65535]);
    const dst = new Uint16Array(9);
    t.apply(new Uint8Array(src.buffer), new Uint8Array(dst.buffer), 3);
    const expected = [0, 0, 0, 32768, 32768, 32768, 65535, 65535, 65535];
    expect(Math.max(...Array.from(dst, (v, i) => Math.abs(v - expected[i])))).toBeLessThanOrEqual(257); // within one 8-bit step
  });

  it('keeps working when its transform was evicted from the cache while held', () => {
    const first = colourTransformSync({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' });
    const before = new Uint8Array(3);
    first.apply(new Uint8Array([20, 40, 60, 80]), before, 1);
    // 20 other transforms push it out of the LRU (16).
    for (const intent of RENDERING_INTENTS) {
      for (const bpc of [true, false]) {
        for (const [fromLayout, toLayout] of [['CMYK', 'RGBA'], ['CMYK_INVERTED', 'RGB'], ['CMYK16', 'RGB16']] as const) {
          colourTransformSync({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout, toLayout, intent, blackPointCompensation: bpc });
        }
      }
    }
    const after = new Uint8Array(3);
    first.apply(new Uint8Array([20, 40, 60, 80]), after, 1);
    expect(after).toEqual(before);
  });

  it('converts strips larger than the WASM heap it started with (the heap grows)', () => {
    const t = colourTransformSync({ from: defaultProfile('Rgb'), to: defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
    const pixels = 4000 * 1000;
    const src = new Uint8Array(pixels * 4).fill(255);
    const dst = new Uint8Array(pixels * 4).fill(7);
    t.apply(src, dst, pixels);
    expect(dst.every((v) => v === 0)).toBe(true); // white → no ink
  });
});
