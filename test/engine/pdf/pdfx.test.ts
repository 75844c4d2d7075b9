import { PDFArray, PDFDict, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { writePdf, type PdfPage } from '../../../src/engine/pdf/document';
import { pdfOutput, resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { srgbProfile } from '../../../src/engine/raster/icc';
import type { RGBAImage } from '../../../src/engine/types';
import { runTool } from '../../helpers/fixtures';
import { pdfInfo } from './helpers';
import { expectPdfX4, gsCmyk, gsGray, pdfGraph, pdfText, pixel, printTool } from './print';

const W = 60;
const H = 40;
/** Left half orange, right half a translucent blue over nothing (a soft mask). */
function picture(): RGBAImage {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const p = (y * W + x) * 4;
      data.set(x < W / 2 ? [230, 120, 20, 255] : [20, 60, 200, 128], p);
    }
  return { width: W, height: H, data };
}
const page = (over: Partial<PdfPage> = {}): PdfPage => ({
  width: W,
  height: H,
  resolution: 72,
  icc: srgbProfile(),
  renderRows: async (top, bottom) => {
    const img = picture();
    return { width: W, height: bottom - top, data: img.data.slice(top * W * 4, bottom * W * 4) };
  },
  ...over,
});

async function make(colour: PrintColour, over: Partial<PdfPage> = {}): Promise<Uint8Array> {
  const sink = new MemorySink();
  await writePdf(sink, [async () => page(over)], { title: 'Card (proof)', stripBytes: W * 4 * 16, output: pdfOutput(await resolvePrintColour(colour)) });
  return sink.bytes();
}

describe('PDF/X-4 structure', () => {
  it('CMYK PDF/X-4: output intent with the profile, GTS_PDFXVersion in info and XMP, Trapped False, boxes, version 1.6; qpdf passes', async () => {
    const bytes = await make({ colorSpace: 'Cmyk' }, { trim: { left: 3, top: 3, right: 3, bottom: 3 } });
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    // Well-formed RDF: pdfinfo parses the packet and prints it back (expectPdfX4).
    const { g, xmp } = await expectPdfX4(bytes, 'Card (proof)');
    expect(g.array(g.catalog, 'OutputIntents')!.size()).toBe(1);
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Card (proof)</rdf:li>');
    expect(xmp).toMatch(/<xmp:CreateDate>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/xmp:CreateDate>/);
    // No encryption, every page has a TrimBox inside its BleedBox inside its MediaBox.
    expect(g.doc.context.trailerInfo.Encrypt).toBeUndefined();
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.boxes.MediaBox).toEqual([0, 0, 60, 40]);
    expect(info.boxes.BleedBox).toEqual([0, 0, 60, 40]);
    expect(info.boxes.TrimBox).toEqual([3, 3, 57, 37]);
    // Images are DeviceCMYK (the output intent describes them), no ICCBased space besides the intent's profile.
    const images = g.dicts.filter((d) => g.name(d, 'Subtype') === 'Image' && !d.has(PDFName.of('SMask')) === false);
    expect(images.length).toBeGreaterThan(0);
    for (const d of images) expect(g.name(d, 'ColorSpace')).toBe('DeviceCMYK');
  });

  it('CMYK ink values are LittleCMS\'s conversion of the page through the output profile (Ghostscript reads them back)', async () => {
    const bytes = await make({ colorSpace: 'Cmyk' });
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    const want = new Uint8Array(4);
    t.apply(new Uint8Array([230, 120, 20]), want, 1);
    const tiff = await gsCmyk(bytes);
    expect(tiff.samples).toBe(4);
    expect([tiff.width, tiff.height]).toEqual([W, H]);
    for (const [x, y] of [[2, 2], [20, 30]]) expect(pixel(tiff, x, y)).toEqual([...want]);
  });

  it('PDF/X-1a: version 1.4, DeviceCMYK only, no ICCBased space, no soft mask, no transparency group', async () => {
    const bytes = await make({ colorSpace: 'Cmyk', format: 'PdfX1a' });
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.4');
    expect(pdfText(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-1a:2003');
    expect(pdfText(g.info.get(PDFName.of('GTS_PDFXConformance')))).toBe('PDF/X-1a:2003');
    const raw = new TextDecoder('latin1').decode(bytes);
    expect(raw).not.toContain('/ICCBased');
    expect(raw).not.toContain('/SMask');
    expect(raw).not.toContain('/Transparency');
    // The translucent blue is laid on paper: half its ink.
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    const full = new Uint8Array(4);
    t.apply(new Uint8Array([20, 60, 200]), full, 1);
    const got = pixel(await gsCmyk(bytes), 45, 20);
    got.forEach((v, i) => expect(Math.abs(v - Math.round((full[i] * 128) / 255))).toBeLessThanOrEqual(1));
  });

  it('grey output: DeviceGray with a grey output intent (N 1)', async () => {
    const bytes = await make({ colorSpace: 'Grayscale' });
    const g = await pdfGraph(bytes);
    const intent = g.deref<PDFDict>(g.array(g.catalog, 'OutputIntents')!.get(0))!;
    const profile = g.deref<import('pdf-lib').PDFRawStream>(intent.get(PDFName.of('DestOutputProfile')))!;
    expect((profile.dict.get(PDFName.of('N')) as PDFNumber).asNumber()).toBe(1);
    const tiff = await gsGray(bytes);
    expect(tiff.samples).toBe(1);
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Grayscale'), fromLayout: 'RGB', toLayout: 'GRAY' });
    const want = new Uint8Array(1);
    t.apply(new Uint8Array([230, 120, 20]), want, 1);
    expect(Math.abs(pixel(tiff, 5, 5)[0] - want[0])).toBeLessThanOrEqual(1);
  });

  it('RGB output stays a plain PDF 1.7 without output intent; RGB PDF/X-4 has the RGB profile as intent', async () => {
    const plain = await pdfGraph(await make({ colorSpace: 'Rgb' }));
    expect(plain.header).toBe('%PDF-1.7');
    expect(plain.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    const x4 = await pdfGraph(await make({ colorSpace: 'Rgb', format: 'PdfX4' }));
    const intent = x4.deref<PDFDict>(x4.array(x4.catalog, 'OutputIntents')!.get(0))!;
    const profile = x4.deref<import('pdf-lib').PDFRawStream>(intent.get(PDFName.of('DestOutputProfile')))!;
    expect((profile.dict.get(PDFName.of('N')) as PDFNumber).asNumber()).toBe(3);
    expect(pdfText(x4.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
  });

  it('the strip converter (runs of equal pixels converted once, or every pixel where runs are short) gives what LittleCMS gives pixel by pixel, aligned or not', async () => {
    for (const [space, longest] of [['Cmyk', 8], ['Grayscale', 8], ['Cmyk', 40], ['Grayscale', 40]] as const) {
      const convert = await pdfOutput(await resolvePrintColour({ colorSpace: space })).inks!(srgbProfile());
      const t = await colourTransform({ from: srgbProfile(), to: defaultProfile(space), fromLayout: 'RGBA', toLayout: space === 'Cmyk' ? 'CMYK' : 'GRAY' });
      const n = space === 'Cmyk' ? 4 : 1;
      const pixels = 999;
      const backing = new Uint8Array(pixels * 4 + 1);
      let seed = 7;
      for (let i = 0; i < pixels; i++) {
        // Runs of 1..longest equal pixels (8: mostly short runs, converted straight; 40: packed).
        if (i % ((i % longest) + 1) === 0) seed = (seed * 1103515245 + 12345) >>> 0;
        backing.set([seed & 255, (seed >> 8) & 255, (seed >> 16) & 255, 255], 1 + i * 4);
      }
      for (const src of [backing.slice(1), backing.subarray(1)]) {
        const want = new Uint8Array(pixels * n);
        t.apply(src.slice(), want, pixels);
        const got = new Uint8Array(pixels * n);
        convert(src, got, pixels);
        expect([...got]).toEqual([...want]);
      }
    }
  });

  it('refuses a profile of another colour space and PDF/X-1a with RGB (422 errors naming the field)', async () => {
    await expect(resolvePrintColour({ colorSpace: 'Cmyk', profile: srgbProfile() })).rejects.toMatchObject({ code: 'ERR_PRINT_COLOUR', details: [{ path: 'colorProfile' }] });
    await expect(resolvePrintColour({ colorSpace: 'Rgb', format: 'PdfX1a' })).rejects.toMatchObject({ details: [{ path: 'pdfFormat' }] });
  });
});

void PDFArray;
