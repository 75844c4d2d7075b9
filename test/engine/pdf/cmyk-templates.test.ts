/**
 * CMYK templates in print PDFs (issue 20, "Tests and proof"; docs/pdf.md, "CMYK templates"):
 * Ghostscript's CMYK rendering of an unpersonalised template's PDF holds the PSD's own ink, read
 * here from the merged image as the fixture stores it (raw: test/fixtures/psd-made/make-cmyk.mjs),
 * not through the engine's reader.
 */
import { env } from 'cloudflare:workers';
import UPNG from '@pdf-lib/upng';
import { decodePDFRawStream, PDFDict, PDFName, type PDFRawStream } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { writePdf } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { preparePreview } from '../../../src/engine/preview';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { FileStore } from '../../../src/dynamic-image/store';
import { srgbProfile } from '../../../src/engine/raster/icc';
import { runTool, madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { gsCmyk, pdfGraph, type Tiff } from './print';
import { renderDeps } from './helpers';
import gracol from '../colour/fixtures/gracol-tr006-test.icc';

const W = 16;
const H = 12;
const FILES = ['made-cmyk16.psd', 'made-cmyk8-alpha.psd', 'made-cmyk8-icc.psd'];


/**
 * The merged image of a raw-stored PSD: ink per pixel (C, M, Y, K on the document's scale, 0 =
 * no ink) and the merged alpha (0..1, 1 without one), after Adobe's file format.
 */
function merged(psd: Uint8Array) {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  const channels = v.getUint16(12);
  const depth = v.getUint16(22);
  let at = 26;
  for (let section = 0; section < 3; section++) at += 4 + v.getUint32(at);
  expect(v.getUint16(at)).toBe(0); // raw
  at += 2;
  const max = depth === 16 ? 65535 : 255;
  const sample = (c: number, i: number) => (depth === 16 ? v.getUint16(at + (c * W * H + i) * 2) : psd[at + c * W * H + i]);
  return {
    depth,
    ink: (x: number, y: number) => [0, 1, 2, 3].map((c) => max - sample(c, y * W + x)),
    alpha: (x: number, y: number) => (channels > 4 ? sample(4, y * W + x) / max : 1),
  };
}

const at = (t: Tiff, x: number, y: number) => [...t.data.subarray((y * t.width + x) * 4, (y * t.width + x) * 4 + 4)];

async function print(name: string, options: Partial<HiresOptions> = {}) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `cmyk-templates/${name}`, ...options }, renderDeps());
  const sink = new MemorySink();
  const summary = await writePdf(sink, [page.load], { output: page.output });
  const bytes = sink.bytes();
  return { bytes, summary, ink: await gsCmyk(bytes) };
}

/** The engine's preview (PNG) at the document's size, as RGBA. */
async function preview(name: string): Promise<Uint8Array> {
  const options = { template: `cmyk-templates/${name}`, format: 'png', size: { width: W, height: H }, jpegQuality: 95, unsharpMask: null } as const;
  const png = (await (await preparePreview(new FileStore(env.FILES), options, renderDeps())).render()).bytes;
  return new Uint8Array(UPNG.toRGBA8(UPNG.decode(png.slice().buffer))[0]);
}

/** The output intent's profile bytes. */
async function intentProfile(bytes: Uint8Array): Promise<Uint8Array> {
  const g = await pdfGraph(bytes);
  const intent = g.deref<PDFDict>(g.array(g.catalog, 'OutputIntents')!.get(0))!;
  return decodePDFRawStream(g.deref<PDFRawStream>(intent.get(PDFName.of('DestOutputProfile')))!).decode();
}

const psds = new Map<string, Uint8Array>();
beforeAll(async () => {
  for (const name of FILES) psds.set(name, await madeFixture(name));
  const res = await upload('templates', FILES.map((n) => [n, psds.get(n)!]), '?destination=cmyk-templates&overwrite=true');
  expect(res.status).toBe(201);
});

describe('CMYK templates keep their own ink (issue 20)', () => {
  it('8 bits with an embedded profile: every ink value is the PSD\'s (Flate strips), the embedded profile is the output intent', async () => {
    const psd = merged(psds.get('made-cmyk8-icc.psd')!);
    const { bytes, summary, ink } = await print('made-cmyk8-icc.psd');
    expect(summary.strips.jpeg).toBe(0);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('%PDF-1.6');
    expect([ink.width, ink.height, ink.samples]).toEqual([W, H, 4]);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(at(ink, x, y), `${x},${y}`).toEqual(psd.ink(x, y));
    expect(await intentProfile(bytes)).toEqual(new Uint8Array(gracol));
  });

  it('16 bits: the 8-bit rounding of the PSD\'s ink (±1), the default profile as output intent', async () => {
    const psd = merged(psds.get('made-cmyk16.psd')!);
    const { bytes, summary, ink } = await print('made-cmyk16.psd');
    expect(summary.strips.jpeg).toBe(0);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const want = psd.ink(x, y).map((v) => v / 257);
        at(ink, x, y).forEach((v, c) => expect(Math.abs(v - want[c]), `${x},${y}`).toBeLessThanOrEqual(1));
      }
    }
    expect(await intentProfile(bytes)).toEqual(defaultProfile('Cmyk'));
  });

  it('16 bits, a layer hidden: the ramp under it in its own ink (composited in CMYK from the 16-bit layer, ±1), the rest the merged ink', async () => {
    const psd = merged(psds.get('made-cmyk16.psd')!);
    const { ink } = await print('made-cmyk16.psd', { data: { box: { visible: false } } });
    // make-cmyk.mjs's ramp, stored inverted at 16 bits.
    const ramp = (c: number, x: number, y: number) => [0.03 + x * 0.0581, 0.9 - x * 0.0437 - y * 0.011, 0.2 + y * 0.0613, x < 4 && y < 4 ? 0.65 : 0.05 + y * 0.0071][c];
    const stored16 = (v: number) => Math.round((1 - v) * 65535);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inBox = x >= 4 && x < 12 && y >= 3 && y < 9;
        const want = inBox ? [0, 1, 2, 3].map((c) => (65535 - stored16(ramp(c, x, y))) / 257) : psd.ink(x, y).map((v) => v / 257);
        at(ink, x, y).forEach((v, c) => expect(Math.abs(v - want[c]), `${x},${y} channel ${c}`).toBeLessThanOrEqual(1));
      }
    }
  });

  it('the fixtures\' layers draw their merged image: the engine\'s preview is the merged ink through the document\'s profile (±1)', async () => {
    for (const [name, profile] of [['made-cmyk8-icc.psd', new Uint8Array(gracol)], ['made-cmyk16.psd', defaultProfile('Cmyk')]] as const) {
      const psd = merged(psds.get(name)!);
      const render = await preview(name);
      const toRgb = await colourTransform({ from: profile, to: srgbProfile(), fromLayout: 'CMYK', toLayout: 'RGB' });
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const want = new Uint8Array(3);
          toRgb.apply(Uint8Array.from(psd.ink(x, y).map((v) => Math.round(psd.depth === 16 ? v / 257 : v))), want, 1);
          want.forEach((v, c) => expect(Math.abs(render[(y * W + x) * 4 + c] - v), `${name} ${x},${y}`).toBeLessThanOrEqual(1));
        }
      }
    }
  });

  it('a merged transparency: its ink over paper as the PSD stores it (opaque pixels exactly, half-transparent ones ±1), no ink where it is transparent', async () => {
    const psd = merged(psds.get('made-cmyk8-alpha.psd')!);
    const { bytes, ink } = await print('made-cmyk8-alpha.psd', { colorSpace: 'Cmyk' });
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('%PDF-1.6');
    expect(await intentProfile(bytes)).toEqual(defaultProfile('Cmyk'));
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const got = at(ink, x, y);
        const a = psd.alpha(x, y);
        // The merged colour is matted over white (ink × alpha): what Ghostscript shows on paper.
        if (a === 0) expect(got, `${x},${y}`).toEqual([0, 0, 0, 0]);
        else if (a === 1) expect(got, `${x},${y}`).toEqual(psd.ink(x, y));
        else got.forEach((v, c) => expect(Math.abs(v - psd.ink(x, y)[c]), `${x},${y}`).toBeLessThanOrEqual(1));
      }
    }
  });

  // docs/pdf.md: "with no colour options a CMYK template gives a CMYK PDF/X-4 … documents with a
  // merged alpha channel … are converted from their RGB render".
  it('a merged transparency, no colour options: CMYK output as the docs say', async () => {
    const page = await prepareHires(new FileStore(env.FILES), { template: 'cmyk-templates/made-cmyk8-alpha.psd' }, renderDeps());
    expect(page.colour.colorSpace).toBe('Cmyk');
  });
});
