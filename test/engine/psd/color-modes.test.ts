import type { LayerRawDataChannel } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, readHeader, renderTemplate } from '../../../src/engine';
import { colourTransformSync, defaultProfile } from '../../../src/engine/colour';
import { Unprocessable } from '../../../src/engine/errors';
import { channelRows, layerRgba } from '../../../src/engine/psd/channels';
import { narrow16, narrowing, normaliseColors, fitModeFeatures, refuseUnreadPatterns, sampleNarrowing, toRgbaRow } from '../../../src/engine/psd/color-modes';
import { srgbByte } from '../../../src/engine/psd/lab';
import { decodeComposite } from '../../../src/engine/psd/composite';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { readImageResources } from '../../../src/engine/psd/resources';
import type { LayerNode } from '../../../src/engine/types';
import { sniffImage } from '../../../src/engine/raster/sniff';
import { psdFixture, madeFixture } from '../../helpers/fixtures';
import { call, postJson, upload } from '../../dynamic-image/helpers';

/**
 * 16-bit and non-RGB documents are converted to 8-bit RGB as their rows are decoded; the made
 * files (test/fixtures/psd-made/make-m.mjs) are rendered against their merged images by
 * fidelity.test.ts. Here: the sample arithmetic, each compression at 16 and 32 bits, the conversions,
 * and the 422s for what stays refused (Lab, 32-bit and Multichannel documents: modes-render.test.ts).
 */

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Big-endian 16-bit words. */
const words = (values: number[]) => {
  const b = new Uint8Array(values.length * 2);
  values.forEach((v, i) => {
    b[2 * i] = v >> 8;
    b[2 * i + 1] = v & 255;
  });
  return b;
};

function rows(channel: LayerRawDataChannel, width: number, height: number, first = 0, depth = 16): number[][] {
  const reader = channelRows(channel, width, height, false, 0, first, depth);
  const out: number[][] = [];
  for (let y = first; y < height; y++) out.push([...reader.next()]);
  reader.finish();
  return out;
}

async function refusal(f: () => unknown): Promise<Unprocessable> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(Unprocessable);
    return e as Unprocessable;
  }
  throw new Error('expected a 422 refusal');
}

describe('16-bit samples', () => {
  it('narrow to 8 bits as round(v × 255 / 65535), for every value', () => {
    for (let v = 0; v <= 65535; v++) {
      if (narrow16(v) !== Math.round((v * 255) / 65535)) throw new Error(`narrow16(${v}) = ${narrow16(v)}`);
    }
    expect([narrow16(0), narrow16(128), narrow16(129), narrow16(32768), narrow16(65535)]).toEqual([0, 0, 1, 128, 255]);
    const table = narrowing();
    for (let v = 0; v <= 65535; v++) if (table[v] !== narrow16(v)) throw new Error(`narrowing()[${v}]`);
  });

  // Two rows of four samples: values chosen on both sides of 8-bit rounding steps.
  const values = [
    [0, 128, 129, 65535],
    [32768, 32896, 1000, 65279],
  ];
  const expected = values.map((r) => r.map((v) => Math.round((v * 255) / 65535)));

  it('decodes raw, RLE, ZIP and ZIP-with-prediction channels, and skips rows', async () => {
    const raw = words(values.flat());
    expect(rows({ id: 0, compression: 0, data: raw }, 4, 2)).toEqual(expected);
    expect(rows({ id: 0, compression: 0, data: raw }, 4, 2, 1)).toEqual(expected.slice(1));

    // RLE: PackBits over each row's 8 bytes, one literal run each; counts (16-bit) first.
    const rle = new Uint8Array([0, 9, 0, 9, 7, ...raw.subarray(0, 8), 7, ...raw.subarray(8)]);
    expect(rows({ id: 0, compression: 1, data: rle }, 4, 2)).toEqual(expected);
    expect(rows({ id: 0, compression: 1, data: rle }, 4, 2, 1)).toEqual(expected.slice(1));

    expect(rows({ id: 0, compression: 2, data: await deflate(raw) }, 4, 2)).toEqual(expected);

    // Prediction at 16 bits: each word is the delta (mod 65536) from the word before in its row.
    const deltas = values.flatMap((r) => r.map((v, x) => (x ? (v - r[x - 1]) & 0xffff : v)));
    const predicted = await deflate(words(deltas));
    expect(rows({ id: 0, compression: 3, data: predicted }, 4, 2)).toEqual(expected);
    expect(rows({ id: 0, compression: 3, data: predicted }, 4, 2, 1)).toEqual(expected.slice(1));
  });

  it("decodes the merged image at 16 bits, raw, RLE, ZIP and ZIP with prediction (one stream for all planes)", async () => {
    // 2 × 2 RGB: planes R, G, B of the values above's first four samples, shifted per plane.
    const plane = (c: number) => values[0].map((v) => (v + c * 1000) % 65536);
    const planes = [0, 1, 2].map(plane);
    const want = [0, 1, 2, 3].flatMap((i) => [...planes.map((p) => Math.round((p[i] * 255) / 65535)), 255]);
    const section = (compression: number, data: Uint8Array) => new Uint8Array([0, compression, ...data]);
    const raw = words(planes.flat());
    const decode = (s: Uint8Array) => [...decodeComposite(s, 2, 2, 3, false, false, 3, 16)];
    expect(decode(section(0, raw))).toEqual(want);
    // RLE: six rows of 4 bytes, each one literal run (5 bytes).
    const counts = words(new Array(6).fill(5));
    const rle = new Uint8Array([...counts, ...Array.from({ length: 6 }, (_, r) => [3, ...raw.subarray(r * 4, r * 4 + 4)]).flat()]);
    expect(decode(section(1, rle))).toEqual(want);
    expect(decode(section(2, await deflate(raw)))).toEqual(want);
    const rows = planes.flatMap((p) => [p.slice(0, 2), p.slice(2)]);
    const deltas = rows.flatMap((r) => r.map((v, x) => (x ? (v - r[x - 1]) & 0xffff : v)));
    expect(decode(section(3, await deflate(words(deltas))))).toEqual(want);
  });

  it('refuses a 16-bit ZIP channel that inflates past its rectangle', async () => {
    const data = await deflate(words(new Array(12).fill(1000)));
    const e = await refusal(() => rows({ id: 0, compression: 2, data }, 4, 2));
    expect(e.message).toMatch(/inflates to more than/);
  });
});

/** The sRGB curve (IEC 61966-2-1) of linear light clipped to [0, 1], rounded to a code. */
const encode = (linear: number) => {
  const v = Math.max(0, Math.min(1, linear));
  return Math.round(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055));
};

describe("Lab's last step, linear light to sRGB codes", () => {
  it('srgbByte is exactly round(255 × encode(v)), dense near black where the curve is steepest', () => {
    for (let k = 0; k < 200_000; k++) {
      const v = (k / 200_000) ** 3;
      if (srgbByte(v) !== encode(v)) throw new Error(`srgbByte(${v}) = ${srgbByte(v)}, want ${encode(v)}`);
    }
    expect([-1, NaN, 1, 2].map(srgbByte)).toEqual([0, 0, 255, 255]);
  });
});

/** Big-endian float32 samples. */
const floats = (values: number[]) => {
  const b = new Uint8Array(values.length * 4);
  const view = new DataView(b.buffer);
  values.forEach((v, i) => view.setFloat32(4 * i, v));
  return b;
};

/** A 32-bit sample (`v` as stored: a float32) as 8 bits: round(clamp(v, 0, 1) × 255). */
const byte = (v: number) => Math.round(255 * Math.max(0, Math.min(1, Math.fround(v))));

/**
 * 32-bit samples: floats read as round(clamp(v, 0, 1) × 255), no tone curve, every channel alike
 * (colour, transparency, masks): psd-tools' tests hold 32bit5x5.psd's (1, 3) at (46, 196, 104)
 * read so, the same as 16bit5x5.psd's (test_pixels.py). Documents: modes-render.test.ts.
 */
describe('32-bit samples', () => {
  it('read as round(clamp(v, 0, 1) × 255), NaN as 0, the same for colour and coverage', () => {
    const values = [-1, 0, 0.0031308, 0.2158605, 0.5, 1, 2.5, NaN];
    const row = (channel: number) => {
      const out = new Uint8Array(values.length);
      sampleNarrowing(32, 3, channel)(floats(values), out, values.length);
      return [...out];
    };
    expect(row(0)).toEqual([0, 0, 1, 55, 128, 255, 255, 0]);
    expect(row(2)).toEqual(row(0));
    expect(row(-1)).toEqual(row(0));
    // Every 8-bit code k stored as the float k / 255 reads back as k (a 16- or 8-bit image's
    // values carried to 32 bits keep their numbers).
    const codes = Array.from({ length: 256 }, (_, k) => Math.fround(k / 255));
    const out = new Uint8Array(256);
    sampleNarrowing(32, 1, 0)(floats(codes), out, 256);
    expect([...out]).toEqual(codes.map((_, k) => k));
  });

  // Two rows of three floats.
  const values = [
    [0, 0.05, 0.2],
    [0.5, 0.9, 1.2],
  ];
  const expected = values.map((r) => r.map(byte));

  it('decodes raw, RLE, ZIP and ZIP with prediction (byte-planar per row, as Photoshop writes it)', async () => {
    const raw = floats(values.flat());
    const channel = (compression: number, data: Uint8Array): LayerRawDataChannel => ({ id: 0, compression, data });
    expect(rows(channel(0, raw), 3, 2, 0, 32)).toEqual(expected);
    expect(rows(channel(0, raw), 3, 2, 1, 32)).toEqual(expected.slice(1));
    const rle = new Uint8Array([0, 13, 0, 13, 11, ...raw.subarray(0, 12), 11, ...raw.subarray(12)]);
    expect(rows(channel(1, rle), 3, 2, 0, 32)).toEqual(expected);
    expect(rows(channel(2, await deflate(raw)), 3, 2, 0, 32)).toEqual(expected);
    // Prediction: each row's 12 bytes laid out as every float's first byte, then second, …,
    // then each byte stored as the difference from the byte before (mod 256).
    const predicted = new Uint8Array(raw.length);
    for (let y = 0; y < 2; y++) {
      const planar = Array.from({ length: 12 }, (_, i) => raw[y * 12 + (i % 3) * 4 + Math.floor(i / 3)]);
      planar.forEach((v, i) => (predicted[y * 12 + i] = i ? (v - planar[i - 1]) & 255 : v));
    }
    const zip = await deflate(predicted);
    expect(rows(channel(3, zip), 3, 2, 0, 32)).toEqual(expected);
    expect(rows(channel(3, zip), 3, 2, 1, 32)).toEqual(expected.slice(1));
    // The merged image too: one grey plane, then as RGB with its transparency (coverage).
    const section = (compression: number, data: Uint8Array) => new Uint8Array([0, compression, ...data]);
    expect([...decodeComposite(section(3, zip), 3, 2, 1, false, false, 1, 32)]).toEqual(expected.flat().flatMap((v) => [v, v, v, 255]));
    const alpha = floats([1, 0.5, 0, 1, 1, 0.25]);
    const rgba = decodeComposite(section(0, new Uint8Array([...raw, ...raw, ...raw, ...alpha])), 3, 2, 4, false, true, 3, 32);
    expect([...rgba].filter((_, i) => i % 4 === 3)).toEqual([255, 128, 0, 255, 255, 64]);
  });

  it('refuses a 32-bit ZIP channel that inflates past its rectangle (4 bytes a sample)', async () => {
    const data = await deflate(floats(new Array(7).fill(0.5)));
    expect(() => rows({ id: 0, compression: 2, data }, 3, 2, 0, 32)).toThrow(/inflates to more than/);
  });
});

describe('colour modes to RGB', () => {
  it('grey expands to R = G = B; CMYK (stored inverted) through the default CMYK profile by LittleCMS', () => {
    const out = new Uint8Array(8);
    toRgbaRow(1, [Uint8Array.of(0, 200)], Uint8Array.of(255, 128), out);
    expect([...out]).toEqual([0, 0, 0, 255, 200, 200, 200, 128]);
    // Stored 255 = no ink: paper white; cyan 100 % (stored 0); K 100 %; 50 % magenta under 20 % black.
    const c = Uint8Array.of(255, 0, 255, 255);
    const m = Uint8Array.of(255, 255, 255, 128);
    const y = Uint8Array.of(255, 255, 255, 255);
    const k = Uint8Array.of(255, 255, 0, 204);
    const cmyk = new Uint8Array(16);
    toRgbaRow(4, [c, m, y, k], Uint8Array.of(255, 255, 255, 7), cmyk);
    const want = new Uint8Array(12);
    colourTransformSync({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' }).apply(
      Uint8Array.of(0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 255, 0, 127, 0, 51),
      want,
      4,
    );
    expect([...cmyk]).toEqual([...want.subarray(0, 3), 255, ...want.subarray(3, 6), 255, ...want.subarray(6, 9), 255, ...want.subarray(9, 12), 7]);
    expect([...cmyk.subarray(0, 3)]).toEqual([255, 255, 255]); // paper white
    expect(Math.min(...cmyk.subarray(8, 11))).toBeGreaterThan(20); // 100 % K on paper is not sRGB black
  });

  it("converts grey and CMYK colours of layers' effects, fills and text to RGB", () => {
    const layer = {
      name: 'x',
      effects: { dropShadow: [{ color: { k: 100 } }], solidFill: [{ color: { k: 25 } }] },
      vectorFill: { type: 'color', color: { c: 100, m: 0, y: 0, k: 0 } },
      text: { text: 'a', style: { fillColor: { k: 64 } }, styleRuns: [{ length: 1, style: { fillColor: { c: 0, m: 255, y: 0, k: 0 } } }] },
      rawData: { channels: [{ id: 0, compression: 0, data: new Uint8Array(1) }], colorMode: 1, bitsPerChannel: 8, large: false },
      children: [{ name: 'y', effects: { stroke: [{ color: { r: 1, g: 2, b: 3 } }] } }],
    };
    normaliseColors([layer as never]);
    expect(layer.effects.dropShadow[0].color).toEqual({ r: 0, g: 0, b: 0 });
    expect(layer.effects.solidFill[0].color).toEqual({ r: 191.25, g: 191.25, b: 191.25 });
    // CMYK through the default CMYK profile, as the pixels are: 100 % cyan, 100 % magenta (text).
    const ink = new Uint8Array(6);
    colourTransformSync({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' }).apply(Uint8Array.of(255, 0, 0, 0, 0, 255, 0, 0), ink, 2);
    expect(layer.vectorFill.color).toEqual({ r: ink[0], g: ink[1], b: ink[2] });
    // Text engine data's grey is a level (64 of 255), not ink.
    expect(layer.text.style.fillColor).toEqual({ r: 64, g: 64, b: 64 });
    expect(layer.text.styleRuns[0].style.fillColor).toEqual({ r: ink[3], g: ink[4], b: ink[5] });
    expect(layer.children[0].effects.stroke[0].color).toEqual({ r: 1, g: 2, b: 3 });
  });

  it('refuses a pattern ag-psd could not read (16 bits, CMYK, Duotone), naming the layer', async () => {
    const layers = [{ name: 'g', children: [{ name: 'p', effects: { patternOverlay: [{ pattern: { name: 'Dots', id: 'abc' } }] } }] }];
    refuseUnreadPatterns(layers as never, new Set(['abc']), 3, 16);
    refuseUnreadPatterns(layers as never, new Set(), 3, 8);
    expect((await refusal(() => refuseUnreadPatterns(layers as never, new Set(), 8, 8))).message).toMatch(/Duotone/);
    const e = await refusal(() => refuseUnreadPatterns(layers as never, new Set(), 3, 16));
    expect(e.message).toMatch(/"g\/p" uses the pattern "Dots".*16-bit/);
    // A pattern fill layer is drawn from its stored pixels: no tile needed, nothing refused.
    const fill = [{ name: 'f', vectorFill: { type: 'pattern', name: 'Stripes', id: 'x' } }];
    expect(() => refuseUnreadPatterns(fill as never, new Set(), 4, 8)).not.toThrow();
  });

  it('accepts adjustment layers, Blend If and channel restrictions in a CMYK document (issue 20), leaving them for compile to fit', () => {
    const tree = [
      { name: 'g', visible: true, children: [{ name: 'curves', visible: true, adjustment: { type: 'curves' }, excludedChannels: [1] }] },
      { name: 'b', visible: true, blendIf: [{ source: [0, 0, 200, 255], dest: [0, 0, 255, 255] }] },
    ] as unknown as LayerNode[];
    const before = JSON.stringify(tree);
    fitModeFeatures(4, tree);
    expect(JSON.stringify(tree)).toBe(before);
  });

  it('reads a grey document\'s left-out channel 0 as all of R, G, B', () => {
    const nodes = [{ name: 'a', visible: true, excludedChannels: [0] }, { name: 'b', visible: true, excludedChannels: [1] }] as unknown as LayerNode[];
    fitModeFeatures(1, nodes);
    expect(nodes[0].excludedChannels).toEqual([0, 1, 2]);
    expect('excludedChannels' in nodes[1]).toBe(false);
  });
});

describe('made 16-bit, grey and CMYK files', () => {
  it('find their layers in the Lr16 block (records, merged alpha) and read the merged image', async () => {
    const gray16 = await madeFixture('made-gray16.psd');
    expect(readLayerRecords(gray16)).toHaveLength(3);
    expect(readImageResources(gray16).mergedAlpha).toBe(true);
    const doc = parsePsd(gray16);
    expect(doc.children?.map((l) => l.name)).toEqual(['ramp', 'half', 'masked']);
    expect([doc.colorMode, doc.bitsPerChannel]).toEqual([1, 16]);
    const composite = decodeComposite(doc.rawCompositeData!, 16, 12, doc.channels!, false, true, 1, 16);
    // Top-left pixel: the ramp's 0.05 grey, opaque; the two right columns are transparent.
    expect([...composite.subarray(0, 4)]).toEqual([13, 13, 13, 255]);
    expect(composite[(16 * 0 + 15) * 4 + 3]).toBe(0);
  });

  it('leave the bytes as they were (the CMYK header is shown to ag-psd as RGB only while it reads)', async () => {
    const cmyk = await madeFixture('made-cmyk8.psd');
    const copy = cmyk.slice();
    const doc = parsePsd(cmyk);
    expect(cmyk).toEqual(copy);
    expect(doc.colorMode).toBe(4);
    // A layer read whole (design extraction, atoms) is RGB too: "half" stores C 0.2, M and Y 1,
    // K 0.9 (inverted: 80 % cyan, no magenta or yellow, 10 % black), transparency 128.
    const half = doc.children![1];
    const rgba = layerRgba(half.rawData!, 8, 8);
    const want = new Uint8Array(3);
    const stored = [51, 255, 255, Math.round(255 * 0.9)];
    colourTransformSync({ from: defaultProfile('Cmyk'), to: defaultProfile('Rgb'), fromLayout: 'CMYK_INVERTED', toLayout: 'RGB' }).apply(Uint8Array.from(stored), want, 1);
    expect([...rgba.subarray(0, 4)]).toEqual([...want, 128]);
  });

  it("keep an RGB document's ICC profile for the outputs, not a CMYK or grey one (the output is RGB)", async () => {
    // The made files have no image resources: add a 1039 (ICC profile) resource of 128 bytes.
    const withIcc = (bytes: Uint8Array) => {
      const profile = new Uint8Array(128);
      const block = new Uint8Array([...new TextEncoder().encode('8BIM'), 0x04, 0x0f, 0, 0, 0, 0, 0, 128, ...profile]);
      const out = new Uint8Array(bytes.length + block.length);
      out.set(bytes.subarray(0, 30)); // header, empty colour mode data
      new DataView(out.buffer).setUint32(30, block.length);
      out.set(block, 34);
      out.set(bytes.subarray(34), 34 + block.length);
      return out;
    };
    const rgb = await compileTemplate(env.FILES, withIcc(await madeFixture('made-rgb16.psd')));
    expect(rgb.iccKey).toBeDefined();
    for (const name of ['made-cmyk8.psd', 'made-gray8.psd']) {
      const compiled = await compileTemplate(env.FILES, withIcc(await madeFixture(name)));
      expect(compiled.layers.length, name).toBe(3);
      expect(compiled.iccKey, name).toBeUndefined();
    }
  });

  it('render flat Indexed (through the colour table) and Bitmap (1 = black) documents', async () => {
    const indexed = await compileTemplate(env.FILES, await madeFixture('made-indexed8.psd'));
    const a = await renderTemplate(env.FILES, indexed, { scale: 1 });
    for (const [x, y] of [[0, 0], [1, 1], [15, 7], [7, 3]]) {
      const i = (16 * x + 3 * y) & 255;
      const o = (y * 16 + x) * 4;
      expect([...a.data.subarray(o, o + 4)], `${x},${y}`).toEqual([i, 255 - i, (7 * i) & 255, 255]);
    }
    const bitmap = await compileTemplate(env.FILES, await madeFixture('made-bitmap1.psd'));
    const b = await renderTemplate(env.FILES, bitmap, { scale: 1 });
    for (let y = 0; y < 6; y++) {
      for (let x = 0; x < 20; x++) {
        const v = (x + y) % 3 === 0 ? 0 : 255;
        const o = (y * 20 + x) * 4;
        if (b.data[o] !== v || b.data[o + 1] !== v || b.data[o + 2] !== v || b.data[o + 3] !== 255) throw new Error(`bitmap ${x},${y}: ${b.data.subarray(o, o + 4)}`);
      }
    }
    // The transparent index (image resource 1047) is transparent.
    const table = new Uint8Array(768).fill(9);
    const section = new Uint8Array([0, 0, 4, 7]);
    const rgba = decodeComposite(section, 2, 1, 1, false, false, 2, 8, { colors: table, transparent: 7 });
    expect([...rgba]).toEqual([9, 9, 9, 255, 9, 9, 9, 0]);
  });

  it('render Duotone as its grey channel', async () => {
    // made-gray8 declared Duotone (mode 8): the same single channel; the inks are not applied.
    const bytes = (await madeFixture('made-gray8.psd')).slice();
    bytes[25] = 8;
    const compiled = await compileTemplate(env.FILES, bytes);
    const gray = await compileTemplate(env.FILES, await madeFixture('made-gray8.psd'));
    const a = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const b = await renderTemplate(env.FILES, gray, { scale: 1 });
    expect([...a.data]).toEqual([...b.data]);
    expect(await loadStoredComposite(env.FILES, compiled)).toEqual(await loadStoredComposite(env.FILES, gray));
  });

  it('render close to their merged images', async () => {
    for (const [name, floor] of [
      ['made-rgb16.psd', 55],
      ['made-gray8.psd', 90],
      ['made-gray16.psd', 55],
      // Half-covered pixels: Photoshop blends CMYK in ink, we blend after converting each layer
      // through the (non-linear) profile; covered pixels match exactly (see fidelity-floors.json).
      ['made-cmyk8.psd', 30],
    ] as const) {
      const compiled = await compileTemplate(env.FILES, await madeFixture(name));
      const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
      const stored = (await loadStoredComposite(env.FILES, compiled))!;
      let sum = 0;
      for (let i = 0; i < stored.length; i += 4) {
        for (let c = 0; c < 3; c++) {
          const want = compiled.transparent && stored[i + 3] === 0 ? 255 : stored[i + c];
          sum += (image.data[i + c] - want) ** 2;
        }
      }
      const psnr = sum ? 10 * Math.log10((255 * 255) / (sum / ((stored.length / 4) * 3))) : 99;
      expect(psnr, name).toBeGreaterThanOrEqual(floor);
    }
  });
});

describe('over HTTP', () => {
  it('a 16-bit, a CMYK, a grey and an Indexed template upload (201) and preview as RGB PNGs', async () => {
    const names = ['made-rgb16.psd', 'made-cmyk8.psd', 'made-gray16.psd', 'made-indexed8.psd'];
    const res = await upload('templates', await Promise.all(names.map(async (n) => [n, await madeFixture(n)] as [string, Uint8Array])), '?destination=modes&overwrite=true');
    expect(res.status, await res.clone().text()).toBe(201);
    for (const name of (await res.json()) as string[]) {
      const preview = await postJson('/api/rendering/preview', { template: name, format: 'png' });
      expect(preview.status, name).toBe(200);
      const image = await call(new URL((await preview.json()) as string).pathname);
      expect(image.status, name).toBe(200);
      expect(sniffImage(new Uint8Array(await image.arrayBuffer())), name).toMatchObject({ format: 'png' });
    }
  });

  it('Lab, 32-bit and Multichannel templates upload (201) and preview; a 32-bit CMYK one is a 422 naming it', async () => {
    const names = ['made-x-lab16.psd', 'made-x-rgb32.psd', 'made-x-multichannel16.psd'];
    const res = await upload('templates', await Promise.all(names.map(async (n) => [n, await madeFixture(n)] as [string, Uint8Array])), '?destination=modes&overwrite=true');
    expect(res.status, await res.clone().text()).toBe(201);
    for (const name of (await res.json()) as string[]) {
      const preview = await postJson('/api/rendering/preview', { template: name, format: 'png' });
      expect(preview.status, name).toBe(200);
    }
    const cmyk32 = (await madeFixture('made-cmyk8.psd')).slice();
    new DataView(cmyk32.buffer).setUint16(22, 32);
    const refused = await upload('templates', [['cmyk32.psd', cmyk32]], '?destination=modes&overwrite=true');
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('A 32-bit CMYK document is not valid');
  });
});

describe('modes and depths still refused (422 naming them)', () => {
  const patched = async (at: number, value: number) => {
    const bytes = (await psdFixture('pillow-hopper-photo.psd')).slice();
    new DataView(bytes.buffer).setUint16(at, value);
    return bytes;
  };

  it('a depth Photoshop does not write, and 32 bits outside RGB and Grayscale', async () => {
    const e = await refusal(async () => readHeader(await patched(22, 24)));
    expect(e.message).toMatch(/Bit depth 24/);
    expect(e.details).toEqual([{ path: 'bitsPerChannel', reason: '24' }]);
    const bytes = await patched(22, 32);
    new DataView(bytes.buffer).setUint16(24, 9);
    expect((await refusal(() => readHeader(bytes))).message).toMatch(/32-bit Lab document is not valid/);
  });

  it('an unknown mode; Indexed or Bitmap with layers or at another depth', async () => {
    const e = await refusal(async () => readHeader(await patched(24, 5)));
    expect(e.message).toMatch(/Colour mode mode 5 is not supported/);
    expect(e.details).toEqual([{ path: 'colorMode', reason: 'mode 5' }]);
    // Lab and Multichannel are read now (modes-render.test.ts).
    readHeader(await patched(24, 9));
    readHeader(await patched(24, 7));
    const layered = (await madeFixture('made-gray8.psd')).slice();
    layered[25] = 2;
    expect((await refusal(() => compileTemplate(env.FILES, layered))).message).toMatch(/Indexed document with layers/);
    expect((await refusal(async () => readHeader(await patched(24, 0)))).message).toMatch(/Bitmap document of 8 bits/);
  });
});
