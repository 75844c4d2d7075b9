import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { cmykPercentToSrgb, defaultProfile } from '../../../src/engine/colour';
import { lcmsSync } from '../../../src/engine/colour/lcms';
import { Unprocessable } from '../../../src/engine/errors';
import { refuseUnsupportedMode, sampleNarrowing } from '../../../src/engine/psd/color-modes';
import { labRowToRgba, labToSrgb } from '../../../src/engine/psd/lab';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readImageResources } from '../../../src/engine/psd/resources';
import { readSpotChannels, spotRows } from '../../../src/engine/psd/spots';
import { madeFixture } from '../../helpers/fixtures';
import { psnr } from '../raster/helpers';

/**
 * Lab, Multichannel and 32-bit documents (made by test/fixtures/psd-made/make-x.mjs) render
 * instead of being refused. What the expected pixels rest on: the CIE formulas (Lab D50 → sRGB), checked
 * here against LittleCMS and psd-tools' conversions from Photoshop's colour engine; Photoshop's
 * 16-bit Lab scale as psd-tools' 4x4_16bit_lab holds it; the spot-preview formula for inks.
 */

/** A compiled made file rendered at full size, its stored merged image as RGB over white, and both raw. */
async function renderMade(name: string) {
  const compiled = await compileTemplate(env.FILES, await madeFixture(name));
  const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
  const stored = (await loadStoredComposite(env.FILES, compiled))!;
  const rgb = new Uint8Array((stored.length / 4) * 3);
  for (let p = 0, q = 0; p < stored.length; p += 4, q += 3) {
    for (let c = 0; c < 3; c++) rgb[q + c] = compiled.transparent && stored[p + 3] === 0 ? 255 : stored[p + c];
  }
  return { compiled, image, stored, psnr: psnr(image, rgb) };
}

/** The RGBA pixel at (x, y) of `data`, `width` wide. */
const pixel = (data: ArrayLike<number>, width: number, x: number, y: number) => Array.from({ length: 4 }, (_, c) => data[(y * width + x) * 4 + c]);

describe('Lab to sRGB', () => {
  it('agrees with LittleCMS (Lab D50 profile to sRGB, relative colorimetric) within a level over the 8-bit Lab grid', () => {
    // Every 5th L, a and b level: 52 × 52 × 52 colours, in and out of gamut.
    const steps = Array.from({ length: 52 }, (_, i) => i * 5);
    const n = steps.length ** 3;
    const L = new Uint8Array(n);
    const A = new Uint8Array(n);
    const B = new Uint8Array(n);
    let i = 0;
    for (const l of steps) for (const a of steps) for (const b of steps) [L[i], A[i], B[i++]] = [l, a, b];
    const ours = new Uint8Array(n * 4);
    labRowToRgba([L, A, B], null, ours, 0, n);

    const m = lcmsSync();
    const at = m._malloc(defaultProfile('Rgb').length);
    m.HEAPU8.set(defaultProfile('Rgb'), at);
    const srgb = m._cmsOpenProfileFromMem(at, defaultProfile('Rgb').length);
    m._free(at);
    const lab = m._cmsCreateLab4Profile(0);
    // TYPE_Lab_8 (PT_Lab 10, 3 channels, 1 byte: L 0..255 → 0..100, a, b − 128) → TYPE_RGB_8,
    // evaluated per colour (cmsFLAGS_NOOPTIMIZE): LittleCMS's default precalculated grid
    // interpolates across the gamut's edge, up to 48 levels off there (measured 2026-11-30).
    const transform = m._cmsCreateTransform(lab, (10 << 16) | (3 << 3) | 1, srgb, (4 << 16) | (3 << 3) | 1, 1, 0x0100 /* cmsFLAGS_NOOPTIMIZE */);
    const src = m._malloc(n * 3);
    const dst = m._malloc(n * 3);
    for (let p = 0; p < n; p++) m.HEAPU8.set([L[p], A[p], B[p]], src + 3 * p);
    m._cmsDoTransform(transform, src, dst, n);
    const theirs = m.HEAPU8.slice(dst, dst + n * 3);
    m._free(src);
    m._free(dst);
    m._cmsDeleteTransform(transform);
    m._cmsCloseProfile(lab);
    m._cmsCloseProfile(srgb);

    let worst = 0;
    let off = 0;
    for (let p = 0; p < n; p++) {
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(ours[4 * p + c] - theirs[3 * p + c]);
        worst = Math.max(worst, d);
        if (d) off++;
      }
    }
    console.log(`Lab → sRGB, CIE formulas against LittleCMS: worst ${worst} levels, ${((100 * off) / (3 * n)).toFixed(2)} % of samples differ`);
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('gives the colours psd-tools took from Photoshop, and white, black and grey on the axis', () => {
    // psd-tools (Photoshop's colour engine): Lab 50, 0.5, 0.5 → 120.1, 118.6, 118.1.
    expect(labToSrgb([50, 0.5, 0.5])).toEqual([120, 119, 118]);
    expect(labToSrgb([100, 0, 0])).toEqual([255, 255, 255]);
    expect(labToSrgb([0, 0, 0])).toEqual([0, 0, 0]);
    // The row converter and the colour converter are one piece: the same result.
    const out = new Uint8Array(4);
    labRowToRgba([Uint8Array.of(153), Uint8Array.of(168), Uint8Array.of(98)], null, out, 0, 1);
    expect([...out]).toEqual([...labToSrgb([(153 * 100) / 255, 40, -30]), 255]);
  });

  it("narrows 16-bit Lab on Photoshop's scale: L 0..65535, a and b 32768 + 256·a", () => {
    const row = (values: number[], channel: number) => {
      const wide = new Uint8Array(values.flatMap((v) => [v >> 8, v & 255]));
      const out = new Uint8Array(values.length);
      sampleNarrowing(16, 9, channel)(wide, out, values.length);
      return [...out];
    };
    expect(row([0, 32768, 65535], 0)).toEqual([0, 128, 255]);
    // psd-tools' 4x4_16bit_lab stores a gradient stop's a* 52.29 as 46154: 8-bit 128 + 52.
    expect(row([0, 32768, 46154, 65280, 65535], 1)).toEqual([0, 128, 180, 255, 255]);
    expect(row([32767, 32896], 2)).toEqual([128, 129]);
  });
});

describe('Lab and 32-bit documents with layers', () => {
  for (const [name, mode, depth, floor] of [
    // Photoshop blends Lab documents in L*a*b*, we after the conversion: the pixels under the
    // half-transparent layer differ (docs/fidelity.md). 32-bit ones are blended on the same
    // numbers (v × 255) as Photoshop's float blend, but after clipping: made-x-rgb32 loses where
    // the half layer lies over a sample beyond [0, 1] (the test below), made-x-gray32 has none.
    ['made-x-lab8.psd', 9, 8, 34.9],
    ['made-x-lab16.psd', 9, 16, 34.9],
    ['made-x-rgb32.psd', 3, 32, 25.9],
    ['made-x-gray32.psd', 1, 32, 67.9],
  ] as const) {
    it(`${name}: read from the ${depth === 8 ? 'layer info' : `Lr${depth} block`}, the bytes left as they were; exact where opaque layers show`, async () => {
      const bytes = await madeFixture(name);
      const copy = bytes.slice();
      const doc = parsePsd(bytes);
      expect(bytes).toEqual(copy); // the header is shown to ag-psd as another mode only while it reads
      expect([doc.colorMode, doc.bitsPerChannel]).toEqual([mode, depth]);
      expect(doc.children?.map((l) => l.name)).toEqual(['ramp', 'solid', 'half']);
      const { compiled, image, stored, psnr } = await renderMade(name);
      console.log(`${name}: ${psnr.toFixed(2)} dB`);
      // (0, 0), (13, 0), (3, 11): the ramp alone; (5, 3): "solid" over it; (9, 5): "half" hidden by its mask's default colour.
      for (const [x, y] of [[0, 0], [13, 0], [5, 3], [9, 5], [3, 11]]) expect(pixel(image.data, 16, x, y), `${x},${y}`).toEqual(pixel(stored, 16, x, y));
      expect(psnr).toBeGreaterThanOrEqual(floor);
      if (compiled.transparent) expect(pixel(stored, 16, 15, 3)[3]).toBe(0);
    });
  }

  it('32-bit: what lies outside [0, 1] (an over-range green, a negative red) is clipped, the rest × 255 without a curve', async () => {
    const { image, stored } = await renderMade('made-x-rgb32.psd');
    // (0, 0): the ramp's red −0.05 → 0; (5, 3): "solid" 0.5, 1.6, 0.02 → 128, 255, 5.
    expect(pixel(image.data, 16, 0, 0)[0]).toBe(0);
    expect(pixel(image.data, 16, 5, 3)).toEqual([128, 255, 5, 255]);
    // Photoshop blends the floats before any clip: only where "half" covers an over-range sample
    // ("solid"'s green 1.6 at x 8..11, the ramp's red 1.07 and 1.15 at x 14, 15) are we far off;
    // elsewhere the 8-bit blend of v × 255 is Photoshop's float blend within a level of rounding.
    const over = (x: number, y: number) => y >= 6 && ((x >= 8 && x < 12 && y < 10) || x >= 14);
    for (let y = 0; y < 12; y++) {
      for (let x = 0; x < 16; x++) {
        const d = Math.max(...pixel(image.data, 16, x, y).map((v, c) => Math.abs(v - pixel(stored, 16, x, y)[c])));
        expect(d > 1, `${x},${y}`).toBe(over(x, y));
      }
    }
  });

  it('32 bits: spot channels read as coverage (0 = full ink), a row cut short by the file end without ink', () => {
    const floats = [0.25, 0.25, 0.25, 0.25, 0, 0.5, 1]; // a grey plane, then the spot plane's first three samples
    const image = new Uint8Array(2 + floats.length * 4);
    floats.forEach((v, i) => new DataView(image.buffer).setFloat32(2 + 4 * i, v));
    const layout = { large: false, channels: 2, width: 2, height: 2, depth: 32, mode: 1, resources: new Uint8Array(0), image };
    const rows = spotRows(layout, 1);
    expect([...rows.next(), ...rows.next()]).toEqual([255, 127, 0, 0]);
  });

  it('32 bits: the embedded profile is kept for the outputs, a linear one too (it describes the values as read)', async () => {
    // A minimal ICC whose one tag, rTRC, is an empty 'curv' (linear: a 32-bit working space's).
    const linear = new Uint8Array(156);
    const v = new DataView(linear.buffer);
    v.setUint32(0, linear.length);
    v.setUint32(128, 1);
    v.setUint32(132, 0x72545243); // 'rTRC'
    v.setUint32(136, 144);
    v.setUint32(140, 12);
    v.setUint32(144, 0x63757276); // 'curv', no entries
    // made-x-rgb32 with a 1039 resource (it has none) holding the profile.
    const rgb32 = await madeFixture('made-x-rgb32.psd');
    const block = new Uint8Array([0x38, 0x42, 0x49, 0x4d, 0x04, 0x0f, 0, 0, 0, 0, 0, linear.length, ...linear]);
    const tagged = new Uint8Array(rgb32.length + block.length);
    tagged.set(rgb32.subarray(0, 34));
    new DataView(tagged.buffer).setUint32(30, block.length);
    tagged.set(block, 34);
    tagged.set(rgb32.subarray(34), 34 + block.length);
    expect(readImageResources(tagged).icc).toEqual(linear);
    const compiled = await compileTemplate(env.FILES, tagged);
    expect(compiled.iccKey).toBeDefined();
    // The pixels are the same numbers with or without it: the profile only says what they mean.
    const [a, b] = await Promise.all([renderTemplate(env.FILES, compiled, { scale: 1 }), renderMade('made-x-rgb32.psd')]);
    expect(a.data).toEqual(b.image.data);
  });

  it('32 bits: RGB or Grayscale only, as in Photoshop', () => {
    refuseUnsupportedMode(3, 32);
    refuseUnsupportedMode(1, 32);
    for (const mode of [4, 9, 8, 7]) expect(() => refuseUnsupportedMode(mode, 32), `mode ${mode}`).toThrow(/32-bit .* document is not valid/);
    expect(() => refuseUnsupportedMode(3, 24)).toThrow(Unprocessable);
  });
});

describe('Multichannel documents', () => {
  // made-x-multichannel16's inks, and each pixel's tints: stored 16-bit values narrowed to 8 bits, 255 − level.
  const inks = () => [
    { rgb: cmykPercentToSrgb([100, 0, 0, 0]), s: 0 },
    { rgb: cmykPercentToSrgb([0, 100, 0, 0]), s: 0 },
    { rgb: labToSrgb([40, 10, -60]), s: 0.5 },
  ];
  const tints = (x: number, y: number) => [Math.round(255 * (x / 15)), Math.round(255 * (y / 7)), x >= 10 && x < 14 ? 255 : 0].map((t) => t / 255);
  /** The spot-preview formula, c ← (1 − k)·c + k·((1 − s)·c·i + s·i), channel after channel over white. */
  const inked = (k: number[], shown: { rgb: number[]; s: number }[]) =>
    [0, 1, 2].map((c) => 255 * shown.reduce((v, { rgb, s }, i) => (1 - k[i]) * v + k[i] * ((1 - s) * v * (rgb[c] / 255) + s * (rgb[c] / 255)), 1));
  const near = (got: number[], want: number[], what: string) => {
    for (let c = 0; c < 3; c++) expect(Math.abs(got[c] - want[c]), what).toBeLessThanOrEqual(1);
  };

  it('show their channels as inks over white paper, in their DisplayInfo colours', async () => {
    const { compiled, image, stored, psnr } = await renderMade('made-x-multichannel16.psd');
    expect(compiled.layers).toHaveLength(1);
    expect(psnr).toBe(99);
    expect(readSpotChannels(await madeFixture('made-x-multichannel16.psd'))).toEqual([]);
    for (const [x, y] of [[0, 0], [15, 0], [7, 3], [11, 5], [12, 7], [15, 7]]) {
      near(pixel(image.data, 16, x, y), inked(tints(x, y), inks()), `${x},${y}`);
      expect(pixel(image.data, 16, x, y)).toEqual(pixel(stored, 16, x, y));
    }
  });

  it('leave out an alpha channel (DisplayInfo kind 0 or 1), as Photoshop shows it by default', async () => {
    const bytes = (await madeFixture('made-x-multichannel16.psd')).slice();
    // The third channel's kind byte in resource 1077: after '8BIM', id, name, size and the version word.
    const at = bytes.findIndex((_, i) => bytes[i] === 0x38 && bytes[i + 1] === 0x42 && bytes[i + 4] === 0x04 && bytes[i + 5] === 0x35);
    const kind = at + 12 + 4 + 2 * 13 + 12;
    expect(bytes[kind]).toBe(2);
    bytes[kind] = 0;
    const image = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
    const [cyan, magenta] = inks();
    near(pixel(image.data, 16, 12, 3), inked(tints(12, 3), [cyan, magenta]), '12,3');
  });

  it('are refused with layers (Photoshop keeps them flat)', async () => {
    const layered = (await madeFixture('made-gray8.psd')).slice();
    layered[25] = 7;
    await expect(compileTemplate(env.FILES, layered)).rejects.toThrow(Unprocessable);
    await expect(compileTemplate(env.FILES, layered)).rejects.toThrow(/Multichannel document with layers/);
  });
});
