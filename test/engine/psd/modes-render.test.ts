import type { LayerRawDataChannel } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { cmykPercentToSrgb, defaultProfile } from '../../../src/engine/colour';
import { lcmsSync } from '../../../src/engine/colour/lcms';
import { Unprocessable } from '../../../src/engine/errors';
import { channelRows } from '../../../src/engine/psd/channels';
import { refuseUnsupportedMode, sampleNarrowing } from '../../../src/engine/psd/color-modes';
import { decodeComposite } from '../../../src/engine/psd/composite';
import { labRowToRgba, labToSrgb, srgbByte } from '../../../src/engine/psd/lab';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readSpotChannels } from '../../../src/engine/psd/spots';
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

describe('Lab documents', () => {
  it('parse with their mode kept and the bytes left as they were', async () => {
    const bytes = await madeFixture('made-x-lab16.psd');
    const copy = bytes.slice();
    const doc = parsePsd(bytes);
    expect(bytes).toEqual(copy);
    expect([doc.colorMode, doc.bitsPerChannel]).toEqual([9, 16]);
    expect(doc.children?.map((l) => l.name)).toEqual(['ramp', 'solid', 'half']);
  });

  for (const [name, floor] of [
    // Photoshop blends Lab documents in L*a*b*, we after converting to sRGB: the half-covered pixels.
    ['made-x-lab8.psd', 34.9],
    ['made-x-lab16.psd', 34.9],
  ] as const) {
    it(`${name}: exact where one opaque layer shows, close under the half-transparent one`, async () => {
      const { image, stored, psnr } = await renderMade(name);
      console.log(`${name}: ${psnr.toFixed(2)} dB`);
      // (0, 0) and (15, 0): the ramp alone; (5, 3): "solid" over it; (9, 5): "half" hidden by its mask's default colour.
      for (const [x, y] of [[0, 0], [15, 0], [5, 3], [9, 5], [3, 11]]) expect(pixel(image.data, 16, x, y), `${x},${y}`).toEqual(pixel(stored, 16, x, y));
      expect(psnr).toBeGreaterThanOrEqual(floor);
    });
  }
});

describe('Multichannel documents', () => {
  it('show their channels as inks over white paper, in their DisplayInfo colours', async () => {
    const { compiled, image, stored, psnr } = await renderMade('made-x-multichannel16.psd');
    expect(compiled.layers).toHaveLength(1);
    expect(psnr).toBe(99);
    expect(readSpotChannels(await madeFixture('made-x-multichannel16.psd'))).toEqual([]);
    // The spot-preview formula, c ← (1 − k)·c + k·((1 − s)·c·i + s·i), channel after channel.
    const inks = [
      { rgb: cmykPercentToSrgb([100, 0, 0, 0]), s: 0 },
      { rgb: cmykPercentToSrgb([0, 100, 0, 0]), s: 0 },
      { rgb: labToSrgb([40, 10, -60]), s: 0.5 },
    ];
    for (const [x, y] of [[0, 0], [15, 0], [7, 3], [11, 5], [12, 7], [15, 7]]) {
      // Stored 16-bit values, narrowed to 8 bits: 255 − level is the tint.
      const tints = [Math.round(255 * (x / 15)), Math.round(255 * (y / 7)), x >= 10 && x < 14 ? 255 : 0].map((t) => t / 255);
      const want = [0, 1, 2].map((c) => {
        let v = 1;
        inks.forEach(({ rgb, s }, i) => {
          const k = tints[i];
          v = (1 - k) * v + k * ((1 - s) * v * (rgb[c] / 255) + s * (rgb[c] / 255));
        });
        return v * 255;
      });
      const got = pixel(image.data, 16, x, y);
      for (let c = 0; c < 3; c++) expect(Math.abs(got[c] - want[c]), `${x},${y}`).toBeLessThanOrEqual(1);
      expect(got).toEqual(pixel(stored, 16, x, y));
    }
  });

  it('are refused with layers (Photoshop keeps them flat)', async () => {
    const layered = (await madeFixture('made-gray8.psd')).slice();
    layered[25] = 7;
    await expect(compileTemplate(env.FILES, layered)).rejects.toThrow(Unprocessable);
    await expect(compileTemplate(env.FILES, layered)).rejects.toThrow(/Multichannel document with layers/);
  });
});

/**
 * 32-bit documents (RGB and Grayscale; made by test/fixtures/psd-made/make-x.mjs): linear-light
 * floats, shown through the sRGB curve after clipping to [0, 1], as Photoshop's default 32 → 8 bit
 * conversion (Exposure and Gamma: exposure 0, gamma 1) and its display show them; transparency
 * and masks are coverage (× 255). The expected pixels rest on the sRGB formula (IEC 61966-2-1).
 */

/** The sRGB curve (IEC 61966-2-1) of linear light clipped to [0, 1], rounded to a code. */
const encode = (linear: number) => {
  const v = Math.max(0, Math.min(1, linear));
  return Math.round(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055));
};

/** Big-endian float32 samples. */
const floats = (values: number[]) => {
  const b = new Uint8Array(values.length * 4);
  const view = new DataView(b.buffer);
  values.forEach((v, i) => view.setFloat32(4 * i, v));
  return b;
};

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function rows(channel: LayerRawDataChannel, width: number, height: number, first = 0): number[][] {
  const reader = channelRows(channel, width, height, false, 0, first, 32);
  const out: number[][] = [];
  for (let y = first; y < height; y++) out.push([...reader.next()]);
  reader.finish();
  return out;
}

describe('32-bit samples', () => {
  it('take the sRGB curve, rounded, for every code (srgbByte is exactly round(255 × encode(v)))', () => {
    for (let k = 0; k < 200_000; k++) {
      const v = (k / 200_000) ** 3; // dense near black, where the curve is steepest
      if (srgbByte(v) !== encode(v)) throw new Error(`srgbByte(${v}) = ${srgbByte(v)}, want ${encode(v)}`);
    }
    const values = [-1, 0, 0.0031308, 0.2158605, 0.5, 1, 2.5, NaN];
    const row = (channel: number) => {
      const out = new Uint8Array(values.length);
      sampleNarrowing(32, 3, channel)(floats(values), out, values.length);
      return [...out];
    };
    expect(row(0)).toEqual([0, 0, 10, 128, 188, 255, 255, 0]);
    // Transparency, masks: coverage, linear.
    expect(row(-1)).toEqual([0, 0, 1, 55, 128, 255, 255, 0]);
  });

  // Two rows of three floats; linear light → sRGB codes.
  const values = [
    [0, 0.05, 0.2],
    [0.5, 0.9, 1.2],
  ];
  const expected = values.map((r) => r.map(encode));

  it('decodes raw, RLE, ZIP and ZIP with prediction (byte-planar per row, as Photoshop writes it)', async () => {
    const raw = floats(values.flat());
    const channel = (compression: number, data: Uint8Array): LayerRawDataChannel => ({ id: 0, compression, data });
    expect(rows(channel(0, raw), 3, 2)).toEqual(expected);
    expect(rows(channel(0, raw), 3, 2, 1)).toEqual(expected.slice(1));
    const rle = new Uint8Array([0, 13, 0, 13, 11, ...raw.subarray(0, 12), 11, ...raw.subarray(12)]);
    expect(rows(channel(1, rle), 3, 2)).toEqual(expected);
    expect(rows(channel(2, await deflate(raw)), 3, 2)).toEqual(expected);
    // Prediction: each row's 12 bytes laid out as every float's first byte, then second, …,
    // then each byte stored as the difference from the byte before (mod 256).
    const predicted = new Uint8Array(raw.length);
    for (let y = 0; y < 2; y++) {
      const planar = Array.from({ length: 12 }, (_, i) => raw[y * 12 + (i % 3) * 4 + Math.floor(i / 3)]);
      planar.forEach((v, i) => (predicted[y * 12 + i] = i ? (v - planar[i - 1]) & 255 : v));
    }
    const zip = await deflate(predicted);
    expect(rows(channel(3, zip), 3, 2)).toEqual(expected);
    expect(rows(channel(3, zip), 3, 2, 1)).toEqual(expected.slice(1));
    // The merged image too: one grey plane, then as RGB with its transparency (coverage).
    const section = (compression: number, data: Uint8Array) => new Uint8Array([0, compression, ...data]);
    expect([...decodeComposite(section(3, zip), 3, 2, 1, false, false, 1, 32)]).toEqual(expected.flat().flatMap((v) => [v, v, v, 255]));
    const alpha = floats([1, 0.5, 0, 1, 1, 0.25]);
    const rgba = decodeComposite(section(0, new Uint8Array([...raw, ...raw, ...raw, ...alpha])), 3, 2, 4, false, true, 3, 32);
    expect([...rgba].filter((_, i) => i % 4 === 3)).toEqual([255, 128, 0, 255, 255, 64]);
  });

  it('refuses a 32-bit ZIP channel that inflates past its rectangle (4 bytes a sample)', async () => {
    const data = await deflate(floats(new Array(7).fill(0.5)));
    expect(() => rows({ id: 0, compression: 2, data }, 3, 2)).toThrow(/inflates to more than/);
  });
});

describe('32-bit documents', () => {
  it('are RGB or Grayscale only, as in Photoshop', () => {
    refuseUnsupportedMode(3, 32);
    refuseUnsupportedMode(1, 32);
    for (const mode of [4, 9, 8, 7]) expect(() => refuseUnsupportedMode(mode, 32), `mode ${mode}`).toThrow(/32-bit .* document is not valid/);
    expect(() => refuseUnsupportedMode(3, 24)).toThrow(Unprocessable);
  });

  it('find their layers in the Lr32 block', async () => {
    const doc = parsePsd(await madeFixture('made-x-gray32.psd'));
    expect([doc.colorMode, doc.bitsPerChannel]).toEqual([1, 32]);
    expect(doc.children?.map((l) => l.name)).toEqual(['ramp', 'solid', 'half']);
  });

  for (const [name, floor] of [
    // Photoshop blends 32-bit documents in linear light, we after the curve: the half-covered pixels.
    ['made-x-rgb32.psd', 28.7],
    ['made-x-gray32.psd', 30],
  ] as const) {
    it(`${name}: exact where one opaque layer shows, close where Photoshop blends in linear light`, async () => {
      const { compiled, image, stored, psnr } = await renderMade(name);
      console.log(`${name}: ${psnr.toFixed(2)} dB`);
      for (const [x, y] of [[0, 0], [13, 0], [5, 3], [9, 5], [3, 11]]) expect(pixel(image.data, 16, x, y), `${x},${y}`).toEqual(pixel(stored, 16, x, y));
      expect(psnr).toBeGreaterThanOrEqual(floor);
      if (compiled.transparent) expect(pixel(stored, 16, 15, 3)[3]).toBe(0);
    });
  }

  it('clip what lies outside [0, 1] (an over-range green and a negative red) before the curve', async () => {
    const { image } = await renderMade('made-x-rgb32.psd');
    // (0, 0): the ramp's red −0.05 → 0; (5, 3): "solid" 0.5, 1.6, 0.02.
    expect(pixel(image.data, 16, 0, 0)[0]).toBe(0);
    expect(pixel(image.data, 16, 5, 3)).toEqual([encode(0.5), 255, encode(0.02), 255]);
  });

  it('upload through compile as any template does (nothing refused)', async () => {
    for (const name of ['made-x-rgb32.psd', 'made-x-gray32.psd']) {
      const compiled = await compileTemplate(env.FILES, await madeFixture(name));
      expect(compiled.layers.length, name).toBe(3);
    }
  });
});
