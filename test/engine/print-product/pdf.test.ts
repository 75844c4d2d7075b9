import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidInput, Unprocessable } from '../../../src/engine/errors';
import { PdfTooLargeError, renderPdf } from '../../../src/engine/print-product/pdf';
import { renderPreviewPixels, type ImageLookup } from '../../../src/engine/print-product/svg';
import type { PrintProductModel } from '../../../src/engine/print-product/schema';
import { parseModel } from '../../../src/engine/print-product/validate';
import { runTool } from '../../helpers/fixtures';
import { bundledFont } from '../fonts/helpers';
import { overWhite, pdfInfo, psnr, rasterisePage } from '../pdf/helpers';
import { BUSINESS_CARD, logoPixels, photoPixels } from './example';
import { fontExists, fonts, halves, imageStore, inflatedStreams as streams, jpegImage, oneSurface, pngImage } from './helpers';

let card: PrintProductModel;
let images: ImageLookup;

beforeAll(async () => {
  card = await parseModel(BUSINESS_CARD, { fontExists });
  images = imageStore({ 'logo.png': await pngImage(logoPixels()), 'photo.jpg': await jpegImage(photoPixels(), 90) });
});

async function check(pdf: Uint8Array) {
  const q = await runTool('qpdf-check', pdf);
  expect(q.code, q.stdout + q.stderr).toBe(0);
  expect(q.stdout).toMatch(/No syntax or stream encoding errors/);
}

describe('design PDF: pages and boxes', () => {
  it('a page per print area: MediaBox = BleedBox = area + bleed, TrimBox = area', async () => {
    const { bytes, pages } = await renderPdf(card, { fonts, images });
    expect(pages).toBe(2);
    await check(bytes);
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.pages).toBe(2);
    expect(info.boxes.MediaBox).toEqual([0, 0, 270, 162]);
    expect(info.boxes.BleedBox).toEqual([0, 0, 270, 162]);
    expect(info.boxes.TrimBox).toEqual([9, 9, 261, 153]);
    expect(info.boxes.CropBox).toEqual([0, 0, 270, 162]);
  });

  it('uneven bleed: the trim box sits at the left and bottom bleed', async () => {
    const m = await oneSurface(200, 100, [{ type: 'Rectangle', x: 0, y: 0, width: 200, height: 100, fillColor: '#f00' }], {
      printAreas: [{ bounds: { x: 20, y: 10, width: 100, height: 50 }, bleed: { left: 3, top: 4, right: 5, bottom: 6 } }],
    });
    const { bytes } = await renderPdf(m, { fonts, images });
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.boxes.MediaBox).toEqual([0, 0, 108, 60]);
    expect(info.boxes.TrimBox).toEqual([3, 6, 103, 56]);
  });

  it('a surface without print areas is one page of its size', async () => {
    const m = await oneSurface(300, 200, [{ type: 'Ellipse', x: 0, y: 0, width: 300, height: 200, fillColor: '#00f' }]);
    const { bytes, pages } = await renderPdf(m, { fonts, images });
    expect(pages).toBe(1);
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.boxes.MediaBox).toEqual([0, 0, 300, 200]);
    expect(info.boxes.TrimBox).toEqual([0, 0, 300, 200]);
  });
});

describe('design PDF: text', () => {
  it('outlines by default: no fonts, no extractable text, still drawn', async () => {
    const { bytes, embeddedFonts } = await renderPdf(card, { fonts, images });
    expect(embeddedFonts).toEqual([]);
    const f = await runTool('pdffonts', bytes);
    expect(f.code).toBe(0);
    expect(f.stdout.trim().split('\n')).toHaveLength(2); // the header only
    const t = await runTool('pdftotext', bytes);
    expect(t.stdout.trim()).toBe('');
  });

  it('Text mode embeds subsets; pdftotext finds the words', async () => {
    const { bytes, embeddedFonts } = await renderPdf(card, { fonts, images, textMode: 'Text' });
    await check(bytes);
    expect(embeddedFonts.sort()).toEqual(['LiberationSans', 'LiberationSans-Bold', 'LiberationSerif']);
    const f = (await runTool('pdffonts', bytes)).stdout;
    const rows = f.trim().split('\n').slice(2);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatch(/^[A-Z]{6}\+Liberation\S+\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    }
    const text = (await runTool('pdftotext', bytes)).stdout;
    expect(text).toMatch(/Ada Lovelace/);
    expect(text).toMatch(/Analyst & Programmer/);
    expect(text).toMatch(/ada@example\.com/);
    expect(text.replace(/\s+/g, ' ')).toMatch(/Analytical/);
  });

  it('Text mode kerns with the font\'s kern pairs (TJ adjustments), landing where the outlines do', async () => {
    const m = await parseModel(
      { surfaces: [{ width: 300, height: 60, containers: [{ items: [{ type: 'Text', x: 10, y: 5, width: 280, height: 50, text: 'AVAWAY To Ty', alignment: 'Center', font: { postscriptName: 'LiberationSans', size: 36 } }] }] }] },
      { fontExists },
    );
    const text = await renderPdf(m, { fonts, images, textMode: 'Text' });
    const content = (await streams(text.bytes)).join('\n');
    // "AV" in Liberation Sans kerns by about -0.074 em: a positive TJ adjustment between the glyphs.
    const tj = /\[(.*)\] TJ/.exec(content)?.[1] ?? '';
    expect(tj).toMatch(/> 7[0-9.]+ </);
    const outlines = await renderPdf(m, { fonts, images });
    const [a, b] = await Promise.all([rasterisePage(text.bytes, 1, 600, 120), rasterisePage(outlines.bytes, 1, 600, 120)]);
    // Unkerned, the glyphs drift apart from the outlines (about 9 dB); kerned about 32 dB.
    expect(psnr(a, b)).toBeGreaterThanOrEqual(28);
  });

  it('a font whose fsType forbids embedding stays outlines in Text mode', async () => {
    const restricted = (await bundledFont('LiberationSans-Regular.ttf')).slice();
    // OS/2 fsType = 0x0002 (restricted licence embedding).
    const view = new DataView(restricted.buffer);
    const tables = view.getUint16(4);
    for (let i = 0; i < tables; i++) {
      const rec = 12 + i * 16;
      if (String.fromCharCode(...restricted.subarray(rec, rec + 4)) === 'OS/2') view.setUint16(view.getUint32(rec + 8) + 8, 0x0002);
    }
    const m = await parseModel({ surfaces: [{ width: 200, height: 50, containers: [{ items: [{ type: 'Text', x: 5, y: 5, width: 190, height: 40, text: 'Secret words', font: { postscriptName: 'Restricted', size: 20 } }] }] }] });
    const { bytes, embeddedFonts } = await renderPdf(m, { fonts: async () => restricted, images, textMode: 'Text' });
    expect(embeddedFonts).toEqual([]);
    expect((await runTool('pdffonts', bytes)).stdout.trim().split('\n')).toHaveLength(2);
    const page = await rasterisePage(bytes, 1, 200, 50);
    let dark = 0;
    for (let i = 0; i < page.data.length; i += 4) if (page.data[i] < 100) dark++;
    expect(dark).toBeGreaterThan(200); // drawn as outlines
  });
});

describe('design PDF: colour and images', () => {
  it('cmyk() colours stay DeviceCMYK; rgb colours DeviceRGB', async () => {
    const { bytes } = await renderPdf(card, { fonts, images });
    const content = (await streams(bytes)).join('\n');
    expect(content).toMatch(/\b0 0\.7 1 0 k\b/); // the band's fill
    expect(content).toMatch(/\b0 0\.7 1 0 K\b/); // the dot's border
    expect(content).toMatch(/\b1 0\.6 0 0\.4 k\b/); // the back
    expect(content).toMatch(/\b0 0 0 0 k\b/); // the motto's text (outlines)
    expect(content).toMatch(/rg\b/);
  });

  it('JPEG passes through, PNG stays lossless, oversized images are downsampled to 300 dpi', async () => {
    const jpeg = await jpegImage(photoPixels(), 90);
    const big = await pngImage(halves(1200, 600, [255, 0, 0, 255], [0, 0, 255, 128]));
    const store = imageStore({ 'a.jpg': jpeg, 'big.png': big, 'logo.png': await pngImage(logoPixels()) });
    const m = await oneSurface(400, 400, [
      { type: 'Image', x: 0, y: 0, width: 200, height: 150, source: { type: 'Embedded', key: 'a.jpg' }, fitMode: 'Stretch' },
      { type: 'Image', x: 0, y: 200, width: 72, height: 36, source: { type: 'Embedded', key: 'big.png' }, fitMode: 'Stretch' },
      { type: 'Image', x: 200, y: 200, width: 96, height: 96, source: { type: 'Embedded', key: 'logo.png' } },
    ]);
    const { bytes } = await renderPdf(m, { fonts, images: store });
    await check(bytes);
    const text = new TextDecoder('latin1').decode(bytes);
    // The JPEG's own bytes are in the file.
    const jpegLatin = new TextDecoder('latin1').decode(jpeg.bytes);
    expect(text.includes(jpegLatin)).toBe(true);
    // 1200 × 600 placed at 1 × 0.5 inch → 300 × 150 pixels, Flate with a soft mask.
    expect(text).toMatch(/\/Width 300\s*\/Height 150|\/Height 150\s*[^>]*\/Width 300/);
    expect(text).not.toMatch(/\/Width 1200/);
    // The logo (96 px over 96 pt = 72 dpi): kept as it is, lossless (Flate, no DCT).
    expect(text).toMatch(/\/Width 96/);
    const page = await rasterisePage(bytes, 1, 400, 400);
    const at = (x: number, y: number) => [...page.data.subarray((y * 400 + x) * 4, (y * 400 + x) * 4 + 3)];
    expect(at(10, 210)).toEqual([255, 0, 0]);
    expect(at(60, 210)[2]).toBeGreaterThan(200); // half-transparent blue over white
    expect(at(60, 210)[0]).toBeGreaterThan(100);
  });

  it('the PDF raster matches the preview at the same size (≥ 35 dB)', async () => {
    // The card without print areas: one page, the whole surface.
    // Poppler turns DeviceCMYK into RGB its own way, not the contract's naive formula the preview
    // uses, so the comparison uses the card with its cmyk() colours as their naive RGB.
    const rgb = JSON.parse(
      JSON.stringify(BUSINESS_CARD).replace(/cmyk\(([^)]*)\)/g, (_, v: string) => {
        const [c, m, y, k] = v.split(',').map((n) => Number(n) / 100);
        return `rgb(${[c, m, y].map((i) => Math.round(255 * (1 - i) * (1 - k))).join(',')})`;
      }),
    );
    const m = await parseModel(rgb, { fontExists });
    m.surfaces[0].printAreas = [];
    const { bytes } = await renderPdf(m, { fonts, images });
    const [w, h] = [1080, 360];
    const pdfPixels = await rasterisePage(bytes, 1, w, h);
    const preview = overWhite(await renderPreviewPixels(m, { fonts, images, width: w, height: h, fileFormat: 'Png' }));
    const db = psnr(pdfPixels, preview);
    console.log(`design PDF raster vs preview: ${db.toFixed(2)} dB`);
    expect(db).toBeGreaterThanOrEqual(35);
    // Text mode draws real text with the font's advances and kern-table pairs (29.6 dB; 27.7
    // unkerned): the rest is how the two rasterisers draw glyph edges.
    const text = await renderPdf(m, { fonts, images, textMode: 'Text' });
    const db2 = psnr(await rasterisePage(text.bytes, 1, w, h), preview);
    console.log(`design PDF (Text mode) raster vs preview: ${db2.toFixed(2)} dB`);
    expect(db2).toBeGreaterThanOrEqual(28);
  });

  it('a document over the limit is a PdfTooLargeError (an engine Unprocessable: a 422 wherever it is mapped)', async () => {
    const err = await renderPdf(card, { fonts, images, maxBytes: 10_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(PdfTooLargeError);
    expect(err).toBeInstanceOf(Unprocessable);
  });

  it('required variables must have values; variableData applies', async () => {
    const err = await renderPdf(card, { fonts, images, variableData: [{ name: 'Name', value: '' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.errors.variableData[0]).toMatch(/"Name" is required/);
    const { bytes } = await renderPdf(card, { fonts, images, textMode: 'Text', variableData: [{ name: 'Name', value: 'Grace Hopper' }] });
    expect((await runTool('pdftotext', bytes)).stdout).toMatch(/Grace Hopper/);
  });

  it('surfaceIndex picks one surface; every surface otherwise', async () => {
    const two = await parseModel({ surfaces: [{ width: 100, height: 100 }, { width: 200, height: 50, printAreas: [{ bounds: { width: 50, height: 50 } }, { bounds: { x: 50, width: 50, height: 50 } }] }] });
    expect((await renderPdf(two, { fonts, images })).pages).toBe(3);
    expect((await renderPdf(two, { fonts, images, surfaceIndex: 1 })).pages).toBe(2);
    const err = await renderPdf(two, { fonts, images, surfaceIndex: 2 }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidInput);
  });
});

describe('design rendering: time (indicative, shared test machine)', () => {
  it('the business card: 800 × 800 preview and proof PDF', async () => {
    const { renderPreview } = await import('../../../src/engine/print-product/svg');
    const times = { preview: [] as number[], pdf: [] as number[] };
    for (let i = 0; i < 6; i++) {
      let t = performance.now();
      await renderPreview(card, { fonts, images, width: 800, height: 800, fileFormat: 'Jpeg' });
      times.preview.push(performance.now() - t);
      t = performance.now();
      await renderPdf(card, { fonts, images });
      times.pdf.push(performance.now() - t);
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
    console.log(`business card: preview p50 ${median(times.preview.slice(1)).toFixed(1)} ms, PDF p50 ${median(times.pdf.slice(1)).toFixed(1)} ms (warm)`);
  });
});
