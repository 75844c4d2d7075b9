import { PDFDict, PDFName, PDFNumber, type PDFRawStream } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { jpegComponents, type PrintProductColour } from '../../../src/engine/print-product/colour';
import { renderPdf } from '../../../src/engine/print-product/pdf';
import type { PrintProductModel } from '../../../src/engine/print-product/schema';
import type { ImageLookup } from '../../../src/engine/print-product/svg';
import { encodeCmykJpeg } from '../../../src/engine/raster/jpeg-ink';
import { srgbProfile } from '../../../src/engine/raster/icc';
import { runTool } from '../../helpers/fixtures';
import { pdfInfo } from '../pdf/helpers';
import { expectPdfX4, gsCmyk, gsGray, pdfGraph, pdfText, pixel, printTool } from '../pdf/print';
import { fonts, halves, imageStore, jpegImage, oneSurface, pngImage } from './helpers';

const colour = async (c: PrintColour, keepOriginalColors?: boolean): Promise<PrintProductColour> => ({ output: await resolvePrintColour(c), keepOriginalColors });
/**
 * 200 × 100 pt with 9 pt bleed around a trim of 100 × 50 at (20, 10): an orange rectangle over
 * the left half, a pure-K `cmyk(0,0,0,100)` bar and text, a photo (JPEG) and a logo (PNG with
 * transparency) on the right.
 */
let model: PrintProductModel;
let images: ImageLookup;
const K_BAR = { x: 10, y: 60, width: 60, height: 20 };

beforeAll(async () => {
  images = imageStore({
    'photo.jpg': await jpegImage(halves(40, 40, [30, 120, 200, 255], [200, 40, 40, 255]), 95),
    'logo.png': await pngImage(halves(40, 40, [0, 160, 60, 255], [0, 0, 0, 0])),
    'ink.jpg': {
      bytes: await encodeCmykJpeg(new Uint8Array(40 * 40 * 4).fill(0).map((_, i) => (i % 4 === 1 ? 255 : 0)), 40, 40, { quality: 95 }),
      mime: 'image/jpeg',
      width: 40,
      height: 40,
    },
  });
  model = await oneSurface(
    200,
    100,
    [
      { type: 'Rectangle', x: 0, y: 0, width: 100, height: 50, fillColor: '#e67814' },
      { type: 'Rectangle', ...K_BAR, fillColor: 'cmyk(0,0,0,100)', borderColor: 'cmyk(0,0,0,100)', borderWidth: 1 },
      { type: 'Text', x: 5, y: 82, width: 190, height: 16, text: 'Pure black words', font: { postscriptName: 'LiberationSans', size: 12 }, color: 'cmyk(0,0,0,100)' },
      { type: 'Image', x: 110, y: 5, width: 40, height: 40, source: { type: 'Embedded', key: 'photo.jpg' } },
      { type: 'Image', x: 155, y: 5, width: 40, height: 40, source: { type: 'Embedded', key: 'logo.png' } },
      { type: 'Image', x: 110, y: 50, width: 40, height: 40, source: { type: 'Embedded', key: 'ink.jpg' } },
      { type: 'Barcode', x: 155, y: 50, width: 40, height: 40, format: 'QrCode', value: 'hello', color: '#000000', backgroundColor: '#ffffff' },
    ],
    { printAreas: [{ bounds: { x: 20, y: 10, width: 100, height: 50 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } }] },
  );
});

/** The same model without print areas (a page of the whole surface, for pixel positions), without the CMYK JPEG if asked. */
async function whole(withoutCmykJpeg = false): Promise<PrintProductModel> {
  const keep = (item: { type: string; source?: unknown }) => !(withoutCmykJpeg && item.type === 'Image' && JSON.stringify(item.source).includes('ink.jpg'));
  return {
    ...model,
    surfaces: model.surfaces.map((s) => ({ ...s, printAreas: [], containers: s.containers.map((c) => ({ ...c, items: c.items.filter(keep) })) })),
  };
}

const pageImages = (g: Awaited<ReturnType<typeof pdfGraph>>) => g.dicts.filter((d) => g.name(d, 'Subtype') === 'Image' && !d.get(PDFName.of('ImageMask')));

describe('print-product PDFs in CMYK (issue 20 §2)', () => {
  it('CMYK PDF/X-4: output intent, GTS_PDFXVersion in info and XMP, Trapped False, ID, TrimBox and BleedBox, header 1.6, no RGB; qpdf passes', async () => {
    const { bytes } = await renderPdf(model, { fonts, images, title: 'Card', colour: await colour({ colorSpace: 'Cmyk' }) });
    const q = await runTool('qpdf-check', bytes);
    expect(q.code, q.stdout + q.stderr).toBe(0);
    const { g } = await expectPdfX4(bytes, 'Card');
    expect(g.doc.context.trailerInfo.Encrypt).toBeUndefined();
    expect(g.doc.context.trailerInfo.ID).toBeDefined();
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.boxes.MediaBox).toEqual([0, 0, 118, 68]);
    expect(info.boxes.BleedBox).toEqual([0, 0, 118, 68]);
    expect(info.boxes.TrimBox).toEqual([9, 9, 109, 59]);
    // Every image is CMYK (the logo's soft mask grey); no RGB operator in any content stream.
    const spaces = pageImages(g).map((d) => g.name(d, 'ColorSpace'));
    expect(spaces.filter((s) => s === 'DeviceCMYK').length).toBe(3);
    expect(spaces.every((s) => s === 'DeviceCMYK' || s === 'DeviceGray')).toBe(true);
    expect(new TextDecoder('latin1').decode(bytes)).not.toMatch(/DeviceRGB|ICCBased/);
    // The page blends in CMYK.
    const group = g.doc.getPage(0).node.lookup(PDFName.of('Group'), PDFDict);
    expect(g.name(group, 'CS')).toBe('DeviceCMYK');
  });

  it('Ghostscript: cmyk(0,0,0,100) is K alone, RGB fills are LittleCMS\'s conversion, the photo is CMYK', async () => {
    const { bytes } = await renderPdf(await whole(), { fonts, images, textMode: 'Text', colour: await colour({ colorSpace: 'Cmyk' }) });
    const tiff = await gsCmyk(bytes, 72);
    expect([tiff.width, tiff.height]).toEqual([200, 100]);
    expect(pixel(tiff, K_BAR.x + 30, K_BAR.y + 10)).toEqual([0, 0, 0, 255]);
    // Everything the pure-K text inks has C = M = Y = 0.
    let inked = 0;
    for (let y = 84; y < 98; y++)
      for (let x = 5; x < 100; x++) {
        const [c, m, yy, k] = pixel(tiff, x, y);
        if (k > 0) {
          inked++;
          expect([c, m, yy]).toEqual([0, 0, 0]);
        }
      }
    expect(inked).toBeGreaterThan(50);
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    const orange = new Uint8Array(4);
    t.apply(new Uint8Array([0xe6, 0x78, 0x14]), orange, 1);
    pixel(tiff, 40, 20).forEach((v, i) => expect(Math.abs(v - orange[i])).toBeLessThanOrEqual(1));
    const blue = new Uint8Array(4);
    t.apply(new Uint8Array([30, 120, 200]), blue, 1);
    pixel(tiff, 115, 25).forEach((v, i) => expect(Math.abs(v - blue[i])).toBeLessThanOrEqual(6));
    // The CMYK JPEG passes through with its own ink: magenta alone.
    const ink = pixel(tiff, 130, 70);
    expect(ink[1]).toBeGreaterThan(245);
    expect(ink[0] + ink[2] + ink[3]).toBeLessThan(8);
  });

  it('keepOriginalColors false with the default CMYK profile still writes cmyk() as given', async () => {
    const { bytes } = await renderPdf(await whole(), { fonts, images, colour: await colour({ colorSpace: 'Cmyk' }, false) });
    expect(pixel(await gsCmyk(bytes), K_BAR.x + 30, K_BAR.y + 10)).toEqual([0, 0, 0, 255]);
  });

  it('grey output: DeviceGray only, a grey output intent; the photo a grey JPEG; a CMYK JPEG is a 422 there', async () => {
    await expect(renderPdf(await whole(), { fonts, images, colour: await colour({ colorSpace: 'Grayscale' }) })).rejects.toThrow(/CMYK JPEG can be placed in CMYK output only/);
    const { bytes } = await renderPdf(await whole(true), { fonts, images, colour: await colour({ colorSpace: 'Grayscale' }) });
    const g = await pdfGraph(bytes);
    const intent = g.deref<PDFDict>(g.array(g.catalog, 'OutputIntents')!.get(0))!;
    expect((g.deref<PDFRawStream>(intent.get(PDFName.of('DestOutputProfile')))!.dict.get(PDFName.of('N')) as PDFNumber).asNumber()).toBe(1);
    const raw = new TextDecoder('latin1').decode(bytes);
    expect(raw).not.toMatch(/DeviceRGB|DeviceCMYK|ICCBased/);
    const tiff = await gsGray(bytes);
    expect(pixel(tiff, K_BAR.x + 30, K_BAR.y + 10)[0]).toBeLessThan(40);
    const t = await colourTransform({ from: srgbProfile(), to: defaultProfile('Grayscale'), fromLayout: 'RGB', toLayout: 'GRAY' });
    const want = new Uint8Array(1);
    t.apply(new Uint8Array([0xe6, 0x78, 0x14]), want, 1);
    expect(Math.abs(pixel(tiff, 40, 20)[0] - want[0])).toBeLessThanOrEqual(1);
  });

  it('PDF/X-1a: header 1.4, conformance key, a stencil mask instead of a soft mask; translucent content is flattened (flatten.test.ts)', async () => {
    const { bytes } = await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }) });
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.4');
    expect(pdfText(g.info.get(PDFName.of('GTS_PDFXConformance')))).toBe('PDF/X-1a:2003');
    const raw = new TextDecoder('latin1').decode(bytes);
    expect(raw).not.toMatch(/\/SMask|\/Transparency|ICCBased|DeviceRGB/);
    expect(raw).toContain('/ImageMask true');
    const translucent = await oneSurface(100, 100, [{ type: 'Rectangle', x: 0, y: 0, width: 50, height: 50, fillColor: 'rgba(255,0,0,0.5)' }]);
    const flattened = new TextDecoder('latin1').decode((await renderPdf(translucent, { fonts, images, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }) })).bytes);
    expect(flattened).not.toMatch(/\/SMask|\/Transparency|\/ca 0|\/CA 0/);
    expect(flattened).toMatch(/\/ColorSpace \/DeviceCMYK/);
  });

  it('RGB output: a plain PDF unless PdfX4 is asked; cmyk() converted into RGB there; no colour option keeps today\'s PDF', async () => {
    const plain = await pdfGraph((await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Rgb' }) })).bytes);
    expect(plain.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    const x4 = await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Rgb', format: 'PdfX4' }) });
    const g = await pdfGraph(x4.bytes);
    expect(pdfText(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    const legacy = await pdfGraph((await renderPdf(model, { fonts, images })).bytes);
    expect(legacy.header).toBe('%PDF-1.7');
    expect(legacy.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
  });

  it('jpegComponents reads the frame header', async () => {
    expect(jpegComponents((await jpegImage(halves(8, 8, [1, 2, 3, 255], [1, 2, 3, 255]))).bytes)).toBe(3);
    expect(jpegComponents(await encodeCmykJpeg(new Uint8Array(64 * 4), 8, 8, { quality: 90 }))).toBe(4);
  });
});

describe('print-product PDFs in CMYK: time (indicative, shared test machine)', () => {
  it('the business card (photo, logo, texts) in RGB and in CMYK PDF/X-4, best of 5', async () => {
    const { BUSINESS_CARD, logoPixels, photoPixels } = await import('./example');
    const { fontExists } = await import('./helpers');
    const { parseModel } = await import('../../../src/engine/print-product/validate');
    const card = await parseModel(BUSINESS_CARD, { fontExists });
    const best = async (make: () => Promise<unknown>) => {
      let min = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await make();
        min = Math.min(min, performance.now() - started);
      }
      return Math.round(min);
    };
    // Fresh image bytes per run (the image lookup is timed too): nothing cached between runs but the fonts.
    const lookup = async () => imageStore({ 'logo.png': await pngImage(logoPixels()), 'photo.jpg': await jpegImage(photoPixels(), 90) });
    const cmyk = await colour({ colorSpace: 'Cmyk' });
    const rgbMs = await best(async () => renderPdf(card, { fonts, images: await lookup() }));
    const cmykMs = await best(async () => renderPdf(card, { fonts, images: await lookup(), colour: cmyk }));
    // The same images again (VDP rows, a proof after a proof): the converted photo is reused.
    const same = await lookup();
    const repeatMs = await best(async () => renderPdf(card, { fonts, images: same, colour: cmyk }));
    console.log(`business card PDF: RGB ${rgbMs} ms, CMYK PDF/X-4 ${cmykMs} ms, CMYK with the same images again ${repeatMs} ms`);
    expect(cmykMs).toBeGreaterThan(0);
  });
});
