import { PDFArray, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { writePdf, type PdfPage } from '../../../src/engine/pdf/document';
import { pdfOutput, resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { srgbProfile } from '../../../src/engine/raster/icc';
import type { RGBAImage } from '../../../src/engine/types';
import { runTool } from '../../helpers/fixtures';
import { gsCmyk, gsGray, pdfGraph } from './print';

/**
 * CMYK and grey print PDFs write photographic strips as JPEG like RGB ones (quality 95, no
 * chroma subsampling): Adobe CMYK JPEGs (inverted samples, hence /Decode [1 0 1 0 1 0 1 0]) and
 * grey ones; flat strips stay Flate with exact ink. Ghostscript reads the ink back: within
 * JPEG error (mean ≤ 1.5 levels, none off by more than 16) of LittleCMS's own conversion.
 */
const W = 96;
const H = 64;

/** Smooth colour with some grain: many distinct colours, so every strip looks photographic. */
function photo(): RGBAImage {
  const data = new Uint8ClampedArray(W * H * 4);
  let seed = 3;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const n = ((seed >> 16) % 5) - 2;
      data.set([128 + 90 * Math.sin(x / 9) + n, 60 + 2 * x + n, 200 - 2 * y + n, 255], (y * W + x) * 4);
    }
  return { width: W, height: H, data };
}

function flat(): RGBAImage {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) data.set(i % W < W / 2 ? [230, 120, 20, 255] : [20, 60, 200, 255], i * 4);
  return { width: W, height: H, data };
}

async function make(colour: PrintColour, picture: () => RGBAImage): Promise<Uint8Array> {
  const page: PdfPage = {
    width: W,
    height: H,
    resolution: 72,
    icc: srgbProfile(),
    renderRows: async (top, bottom) => ({ width: W, height: bottom - top, data: picture().data.slice(top * W * 4, bottom * W * 4) }),
  };
  const sink = new MemorySink();
  await writePdf(sink, [async () => page], { stripBytes: W * 4 * 16, output: pdfOutput(await resolvePrintColour(colour)) });
  return sink.bytes();
}

async function images(bytes: Uint8Array) {
  const g = await pdfGraph(bytes);
  return g.dicts
    .filter((d) => g.name(d, 'Subtype') === 'Image')
    .map((d) => ({
      filter: g.name(d, 'Filter'),
      colorSpace: g.name(d, 'ColorSpace'),
      decode: (d.get(PDFName.of('Decode')) as PDFArray | undefined)?.asArray().map((v) => (v as PDFNumber).asNumber()),
    }));
}

function within(got: Uint8Array, want: Uint8Array, channels: number) {
  for (let c = 0; c < channels; c++) {
    let max = 0;
    let sum = 0;
    for (let p = c; p < got.length; p += channels) {
      const d = Math.abs(got[p]! - want[p]!);
      max = Math.max(max, d);
      sum += d;
    }
    expect(sum / (got.length / channels), `channel ${c} mean`).toBeLessThan(1.5);
    expect(max, `channel ${c} max`).toBeLessThanOrEqual(16);
  }
}

describe('JPEG strips in CMYK and grey print PDFs', () => {
  it('CMYK: photographic strips are DCTDecode DeviceCMYK with /Decode [1 0 1 0 1 0 1 0]; Ghostscript reads the ink within JPEG error', async () => {
    const bytes = await make({ colorSpace: 'Cmyk' }, photo);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const strips = await images(bytes);
    expect(strips.length).toBe(Math.ceil(H / 16));
    for (const s of strips) expect(s).toEqual({ filter: 'DCTDecode', colorSpace: 'DeviceCMYK', decode: [1, 0, 1, 0, 1, 0, 1, 0] });
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
    const want = new Uint8Array(W * H * 4);
    t.apply(new Uint8Array(photo().data.buffer), want, W * H);
    const tiff = await gsCmyk(bytes);
    expect([tiff.width, tiff.height, tiff.samples]).toEqual([W, H, 4]);
    within(tiff.data, want, 4);
  });

  it('CMYK PDF/X-1a takes JPEG strips too (baseline DCT is allowed; opaque strips need no flattening)', async () => {
    const x1a = await make({ colorSpace: 'Cmyk', format: 'PdfX1a' }, photo);
    for (const s of await images(x1a)) expect(s).toEqual({ filter: 'DCTDecode', colorSpace: 'DeviceCMYK', decode: [1, 0, 1, 0, 1, 0, 1, 0] });
  });

  it('CMYK: flat strips stay Flate, their ink exactly LittleCMS\'s', async () => {
    const bytes = await make({ colorSpace: 'Cmyk' }, flat);
    for (const s of await images(bytes)) expect(s).toEqual({ filter: 'FlateDecode', colorSpace: 'DeviceCMYK', decode: undefined });
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
    const want = new Uint8Array(W * H * 4);
    t.apply(new Uint8Array(flat().data.buffer), want, W * H);
    expect((await gsCmyk(bytes)).data).toEqual(want);
  });

  it('grey: photographic strips are DCTDecode DeviceGray without /Decode; Ghostscript reads them within JPEG error', async () => {
    const bytes = await make({ colorSpace: 'Grayscale' }, photo);
    for (const s of await images(bytes)) expect(s).toEqual({ filter: 'DCTDecode', colorSpace: 'DeviceGray', decode: undefined });
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Grayscale'), fromLayout: 'RGBA', toLayout: 'GRAY' });
    const want = new Uint8Array(W * H);
    t.apply(new Uint8Array(photo().data.buffer), want, W * H);
    within((await gsGray(bytes)).data, want, 1);
  });
});
