// PDF/X-1a flattening of translucent print-product content (issue 20 §2, flatten.ts): the items
// up to the last translucent one become one opaque CMYK image where the translucent ones put ink;
// opaque items below stay vector outside it, the topmost text stays vector over it; flat colours
// keep their exact ink in the raster; no transparency is left (structure, qpdf); Ghostscript's
// CMYK render matches the PDF/X-4 file's.
import { PDFName, PDFNumber } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { inkWriter, type PrintProductColour } from '../../../src/engine/print-product/colour';
import { FLATTEN_PPI } from '../../../src/engine/print-product/flatten';
import { renderPdf } from '../../../src/engine/print-product/pdf';
import { resolveColor, type PrintProductModel } from '../../../src/engine/print-product/schema';
import type { ImageLookup } from '../../../src/engine/print-product/svg';
import { preflightReport, type PreflightProblem } from '../../../src/engine/preflight/report';
import { runTool } from '../../helpers/fixtures';
import { gsCmyk, gsGray, pdfGraph, pixel, type Tiff } from '../pdf/print';
import { fonts, halves, imageStore, inflatedStreams, jpegImage, oneSurface, pngImage } from './helpers';

const colour = async (c: PrintColour): Promise<PrintProductColour> => ({ output: await resolvePrintColour(c) });
const ORANGE = 'cmyk(0,60,100,0)';

/**
 * 200 × 100 pt: an orange `cmyk()` panel (0–120), a pure-K bar across, a half-transparent blue
 * rectangle (60–110) and an ellipse at 60 % opacity (150–190) over them, a PNG with soft alpha,
 * then pure-K text on top of everything.
 */
let model: PrintProductModel;
let images: ImageLookup;
beforeAll(async () => {
  images = imageStore({ 'logo.png': await pngImage(halves(20, 20, [0, 160, 60, 255], [0, 160, 60, 128])) });
  model = await oneSurface(200, 100, [
    { type: 'Rectangle', x: 0, y: 0, width: 120, height: 100, fillColor: ORANGE },
    { type: 'Rectangle', x: 10, y: 30, width: 180, height: 20, fillColor: 'cmyk(0,0,0,100)' },
    { type: 'Rectangle', x: 60, y: 10, width: 50, height: 50, fillColor: 'rgba(0,0,255,0.5)' },
    { type: 'Image', x: 125, y: 12, width: 20, height: 14, source: { type: 'Embedded', key: 'logo.png' } },
    { type: 'Ellipse', x: 150, y: 10, width: 40, height: 40, fillColor: '#00a000', opacity: 0.6 },
    { type: 'Text', x: 5, y: 62, width: 190, height: 16, text: 'Pure black words on top', font: { postscriptName: 'LiberationSans', size: 12 }, color: 'cmyk(0,0,0,100)' },
  ]);
});

/** Largest channel difference of two CMYK renders at (x, y). */
const diff = (a: Tiff, b: Tiff, x: number, y: number) => Math.max(...pixel(a, x, y).map((v, i) => Math.abs(v - pixel(b, x, y)[i]!)));

describe('PDF/X-1a flattening (issue 20 §2)', () => {
  it('leaves no transparency: no SMask, no constant alpha, no blend mode, no transparency group; qpdf passes', async () => {
    const { bytes } = await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }) });
    const q = await runTool('qpdf-check', bytes);
    expect(q.code, q.stdout + q.stderr).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.4');
    const raw = new TextDecoder('latin1').decode(bytes);
    expect(raw).not.toMatch(/\/SMask|\/Transparency|\/BM|ICCBased|DeviceRGB/);
    for (const m of raw.matchAll(/\/(CA|ca) ([\d.]+)/g)) expect(Number(m[2])).toBe(1);
    // One opaque CMYK raster of the translucent items' area (x 60–190, y 10–60, grown) at 300 ppi.
    const rasters = g.dicts.filter((d) => g.name(d, 'Subtype') === 'Image' && g.name(d, 'ColorSpace') === 'DeviceCMYK' && !d.has(PDFName.of('Mask')));
    const widths = rasters.map((d) => (d.get(PDFName.of('Width')) as PDFNumber).asNumber());
    expect(widths.some((w) => w >= (130 * FLATTEN_PPI) / 72 && w <= (136 * FLATTEN_PPI) / 72), String(widths)).toBe(true);
    // The top text's outlines are drawn after (over) the raster.
    const content = (await inflatedStreams(bytes)).find((s) => / Do Q/.test(s) && /0 0 0 1 k/.test(s))!;
    const drawImage = content.search(/cm \/Im\d+ Do Q/);
    expect(drawImage).toBeGreaterThan(0);
    expect(content.lastIndexOf('0 0 0 1 k')).toBeGreaterThan(drawImage);
  });

  it('Ghostscript: matches the PDF/X-4 file; flat colours keep their exact ink inside and outside the flattened area', async () => {
    const x1a = await gsCmyk((await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }) })).bytes, 144);
    const x4 = await gsCmyk((await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX4' }) })).bytes, 144);
    const at = (x: number, y: number) => [x * 2, y * 2] as const;
    // Pure K: vector outside (x 30), raster inside but under nothing translucent (x 130).
    expect(pixel(x1a, ...at(30, 40))).toEqual([0, 0, 0, 255]);
    expect(pixel(x1a, ...at(130, 40))).toEqual([0, 0, 0, 255]);
    // The orange cmyk() panel: as given, vector (x 20) and in the raster (x 115).
    const orange = (await inkWriter(await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }))).samples(resolveColor(ORANGE)!);
    expect(pixel(x1a, ...at(20, 5))).toEqual(orange);
    expect(pixel(x1a, ...at(115, 5))).toEqual(orange);
    // Text on top stays pure K over the raster.
    let inked = 0;
    for (let y = 62 * 2; y < 78 * 2; y++) {
      for (let x = 60 * 2; x < 190 * 2; x++) {
        const p = pixel(x1a, x, y);
        if (p[3]! > 200 && y < 61 * 2) continue; // the K bar's own edge
        if (p[3]! > 128) {
          inked++;
          expect(p.slice(0, 3)).toEqual([0, 0, 0]);
        }
      }
    }
    expect(inked).toBeGreaterThan(50);
    // Against PDF/X-4 (translucency composited by Ghostscript in the DeviceCMYK page group).
    let outside = 0;
    const inside: number[] = [];
    for (let y = 0; y < x1a.height; y++) {
      for (let x = 0; x < x1a.width; x++) {
        const d = diff(x1a, x4, x, y);
        const inArea = x >= 58 * 2 && x < 192 * 2 && y >= 8 * 2 && y < 62 * 2;
        if (inArea) inside.push(d);
        else outside = Math.max(outside, d);
      }
    }
    inside.sort((a, b) => a - b);
    const median = inside[inside.length >> 1]!;
    const p99 = inside[Math.floor(inside.length * 0.99)]!;
    const over8 = inside.filter((d) => d > 8).length / inside.length;
    console.log(`X-1a vs X-4 (gs tiff32nc, 144 dpi): outside max ${outside}; flattened area median ${median}, p99 ${p99}, max ${inside.at(-1)}, ${(over8 * 100).toFixed(2)} % of its pixels differ by more than 8`);
    expect(outside).toBeLessThanOrEqual(2);
    expect(median).toBeLessThanOrEqual(1);
    // What differs is edges: Ghostscript draws X-4's vector edges aliased, the raster has resvg's antialiased ones.
    expect(p99).toBeLessThanOrEqual(2);
    expect(over8).toBeLessThan(0.02);
  });

  it('grey output: the flattened area is DeviceGray and matches the grey PDF/X-4 file', async () => {
    const x1a = await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Grayscale', format: 'PdfX1a' }) });
    const raw = new TextDecoder('latin1').decode(x1a.bytes);
    expect(raw).not.toMatch(/\/SMask|\/Transparency|DeviceCMYK|DeviceRGB/);
    const x4 = await renderPdf(model, { fonts, images, colour: await colour({ colorSpace: 'Grayscale', format: 'PdfX4' }) });
    const [a, b] = [await gsGray(x1a.bytes, 144), await gsGray(x4.bytes, 144)];
    const d: number[] = [];
    for (let i = 0; i < a.data.length; i++) d.push(Math.abs(a.data[i]! - b.data[i]!));
    d.sort((p, q) => p - q);
    console.log(`grey X-1a vs X-4 (gs, 144 dpi): median ${d[d.length >> 1]}, p99 ${d[Math.floor(d.length * 0.99)]}`);
    expect(d[Math.floor(d.length * 0.99)]).toBeLessThanOrEqual(2);
  });

  it('time and size (indicative, shared test machine): an A4 page under a half-transparent photo', async () => {
    const photo = new Uint8ClampedArray(600 * 850 * 4);
    for (let i = 0; i < photo.length; i += 4) [photo[i], photo[i + 1], photo[i + 2], photo[i + 3]] = [(i >> 6) & 255, (i >> 13) & 255, 128, 255];
    const a4Images = imageStore({ 'photo.jpg': await jpegImage({ width: 600, height: 850, data: photo }, 90) });
    const words = Array.from({ length: 10 }, (_, i) => ({ type: 'Text', x: 40, y: 60 + i * 70, width: 515, height: 30, text: `Line ${i + 1} of the page`, font: { postscriptName: 'LiberationSans', size: 20 }, color: 'cmyk(0,0,0,100)' }));
    const a4 = await oneSurface(595, 842, [{ type: 'Image', x: 0, y: 0, width: 595, height: 842, source: { type: 'Embedded', key: 'photo.jpg' }, opacity: 0.5 }, ...words]);
    const times: Record<string, number[]> = { PdfX4: [], PdfX1a: [] };
    const sizes: Record<string, number> = {};
    for (let i = 0; i < 2; i++) {
      for (const format of ['PdfX4', 'PdfX1a'] as const) {
        const t = performance.now();
        const { bytes } = await renderPdf(a4, { fonts, images: a4Images, colour: await colour({ colorSpace: 'Cmyk', format }) });
        times[format]!.push(performance.now() - t);
        sizes[format] = bytes.length;
      }
    }
    console.log(`A4 under a 50 % photo (warm): PDF/X-4 ${times.PdfX4![1]!.toFixed(0)} ms ${(sizes.PdfX4! / 1e6).toFixed(2)} MB; PDF/X-1a (2481 × 3509 px flattened) ${times.PdfX1a![1]!.toFixed(0)} ms ${(sizes.PdfX1a! / 1e6).toFixed(2)} MB`);
  }, 120_000);

  it('reports the same preflight problems as PDF/X-4 (a translucent low-resolution picture included)', async () => {
    const lowRes = await oneSurface(200, 100, [
      { type: 'Rectangle', x: 0, y: 0, width: 200, height: 100, fillColor: ORANGE },
      { type: 'Image', x: 20, y: 20, width: 60, height: 60, source: { type: 'Embedded', key: 'logo.png' }, opacity: 0.5 },
    ]);
    const problems = async (format: 'PdfX4' | 'PdfX1a') => {
      const found: PreflightProblem[] = [];
      await renderPdf(lowRes, { fonts, images, report: (p) => found.push(p), colour: await colour({ colorSpace: 'Cmyk', format }) });
      return preflightReport(found).problems;
    };
    const x4 = await problems('PdfX4');
    expect(x4.length).toBeGreaterThan(0);
    expect(await problems('PdfX1a')).toEqual(x4);
  });

  it('a PDF page under translucent content cannot be flattened: 422 asking for PdfX4', async () => {
    const pdfImages = imageStore({ 'page.pdf': { bytes: new Uint8Array(0), mime: 'application/pdf', width: 50, height: 50 } });
    const withPage = await oneSurface(100, 100, [
      { type: 'Image', x: 0, y: 0, width: 50, height: 50, source: { type: 'Embedded', key: 'page.pdf' } },
      { type: 'Rectangle', x: 10, y: 10, width: 50, height: 50, fillColor: 'rgba(255,0,0,0.5)' },
    ]);
    await expect(renderPdf(withPage, { fonts, images: pdfImages, colour: await colour({ colorSpace: 'Cmyk', format: 'PdfX1a' }) })).rejects.toThrow(/ask for PdfX4/);
  });
});
