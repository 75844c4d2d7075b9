import { PDFArray, PDFDict, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { writePdf, type PdfOptions, type PdfPage } from '../../../src/engine/pdf/document';
import { pdfOutput, resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { MemorySink } from '../../../src/engine/pdf/sink';
import type { PdfSpot } from '../../../src/engine/pdf/spots';
import { srgbProfile } from '../../../src/engine/raster/icc';
import { runTool } from '../../helpers/fixtures';
import { decodeTiff, pdfGraph, printTool, type Tiff } from './print';

const W = 40;
const H = 24;
/** The tints of test/fixtures/psd-made/make-spot.mjs: steps and a ramp, and two flat areas. */
const tintA = (x: number, y: number) => (y < 8 ? [255, 128, 64, 0][Math.floor(x / 10)] : y < 16 ? Math.min(255, x * 7) : 0);
const tintB = (x: number, y: number) => (y >= 12 && x >= 20 ? 200 : y >= 12 ? 30 : 0);

function spot(name: string, ink: PdfSpot['ink'], tint: (x: number, y: number) => number): PdfSpot {
  return {
    name,
    ink,
    rows: async (top, bottom) => Uint8Array.from({ length: W * (bottom - top) }, (_, i) => tint(i % W, top + Math.floor(i / W))),
  };
}
const PANTONE = 'PANTONE 185 C';
// Space, parentheses and '#' must be escaped in a PDF name (#20, #28, #29, #23).
const VARNISH = 'Gloss Varnish (UV)#2';
const SPOTS = [spot(PANTONE, { space: 'Cmyk', values: [0, 0.91, 0.76, 0] }, tintA), spot(VARNISH, { space: 'Lab', values: [90, -5, 20] }, tintB)];
const PROCESS = ['Cyan', 'Magenta', 'Yellow', 'Black'];

const page = (): PdfPage => ({
  width: W,
  height: H,
  resolution: 72,
  icc: srgbProfile(),
  // A warm grey page.
  renderRows: async (top, bottom) => ({ width: W, height: bottom - top, data: new Uint8ClampedArray(W * (bottom - top) * 4).map((_, i) => (i % 4 === 3 ? 255 : [200, 180, 160][i % 4])) }),
  spots: SPOTS,
});

async function make(colour: PrintColour, options: Partial<PdfOptions> = {}): Promise<Uint8Array> {
  const sink = new MemorySink();
  // Strips of 10 rows: spots span several strips.
  await writePdf(sink, [async () => page()], { stripBytes: W * 4 * 10, output: pdfOutput(await resolvePrintColour(colour)), ...options });
  return sink.bytes();
}

/** Ghostscript's separations (tiffsep: `page1(<ink>).tif` each, grey, 255 = no ink), by ink name. */
async function separations(pdf: Uint8Array, inks: string[]): Promise<Map<string, Tiff>> {
  const out = await printTool('gs-tiffsep', pdf, { r: 72 });
  if (out.code !== 0) throw new Error(`gs failed: ${out.stderr}`);
  // The tool returns the files sorted by name, without their names: sort ours alike.
  const files = [...inks.map((n) => `page1(${n}).tif`), 'page1.tif'].sort();
  expect(out.pages.length, 'one file per ink and the composite').toBe(files.length);
  const byFile = new Map(files.map((f, i) => [f, decodeTiff(Uint8Array.from(atob(out.pages[i]), (c) => c.charCodeAt(0)))]));
  return new Map(inks.map((n) => [n, byFile.get(`page1(${n}).tif`)!]));
}

/** Ink (0..255) of a separation at every pixel, as rows. */
const inkOf = (t: Tiff) => Array.from({ length: t.height }, (_, y) => Array.from({ length: t.width }, (_, x) => 255 - t.data[y * t.width + x]));
const expected = (tint: (x: number, y: number) => number) => Array.from({ length: H }, (_, y) => Array.from({ length: W }, (_, x) => tint(x, y)));
const within1 = (a: number[][], b: number[][]) => a.every((row, y) => row.every((v, x) => Math.abs(v - b[y][x]) <= 1));

/** The Separation colour spaces of the file: [name, alternate, C1]. */
async function separationSpaces(pdf: Uint8Array): Promise<Array<[string, string, number[]]>> {
  const g = await pdfGraph(pdf);
  const out: Array<[string, string, number[]]> = [];
  for (const [, o] of g.doc.context.enumerateIndirectObjects()) {
    if (!(o instanceof PDFArray) || (o.get(0) as PDFName).decodeText?.() !== 'Separation') continue;
    const alt = o.get(2);
    const altName = alt instanceof PDFName ? alt.decodeText() : ((alt as PDFArray).get(0) as PDFName).decodeText();
    const fn = g.deref<PDFDict>(o.get(3))!;
    const c1 = (fn.get(PDFName.of('C1')) as PDFArray).asArray().map((n) => (n as PDFNumber).asNumber());
    out.push([(o.get(1) as PDFName).decodeText(), altName, c1]);
  }
  return out;
}

describe('spot channels in print PDFs (issue 20 §2)', () => {
  it('CMYK PDF/X-4: each spot is a /Separation named as in the PSD; Ghostscript writes its plate with the tints, the process plates as without spots', async () => {
    const pdf = await make({ colorSpace: 'Cmyk' });
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    expect(new TextDecoder('latin1').decode(pdf)).toContain('/Gloss#20Varnish#20#28UV#29#232');
    expect(await separationSpaces(pdf)).toEqual([
      [PANTONE, 'DeviceCMYK', [0, 0.91, 0.76, 0]],
      [VARNISH, 'Lab', [90, -5, 20]],
    ]);
    const plates = await separations(pdf, [...PROCESS, PANTONE, VARNISH]);
    expect(within1(inkOf(plates.get(PANTONE)!), expected(tintA))).toBe(true);
    expect(within1(inkOf(plates.get(VARNISH)!), expected(tintB))).toBe(true);
    // Drawn with Multiply: the process plates keep the ink of the same page without spots.
    const alone = await separations(await make({ colorSpace: 'Cmyk' }, { separation: { process: true } }), PROCESS);
    for (const ink of PROCESS) expect(inkOf(plates.get(ink)!), ink).toEqual(inkOf(alone.get(ink)!));
    expect(inkOf(alone.get('Black')!)[0][0]).toBeGreaterThan(0);
  });

  it('PDF/X-1a: DeviceCMYK alternates only (a Lab ink converted through the output profile), overprint instead of a blend mode', async () => {
    const pdf = await make({ colorSpace: 'Cmyk', format: 'PdfX1a' });
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    const spaces = await separationSpaces(pdf);
    expect(spaces.map(([n, alt]) => [n, alt])).toEqual([
      [PANTONE, 'DeviceCMYK'],
      [VARNISH, 'DeviceCMYK'],
    ]);
    const text = new TextDecoder('latin1').decode(pdf);
    expect(text).not.toContain('/BM');
    expect(text).toMatch(/\/OP true\s*\/op true\s*\/OPM 1/);
    const plates = await separations(pdf, [...PROCESS, PANTONE, VARNISH]);
    expect(within1(inkOf(plates.get(PANTONE)!), expected(tintA))).toBe(true);
    expect(within1(inkOf(plates.get(VARNISH)!), expected(tintB))).toBe(true);
  });

  it('RGB output keeps its spots as separations too', async () => {
    const pdf = await make({ colorSpace: 'Rgb' });
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    const plates = await separations(pdf, [...PROCESS, PANTONE, VARNISH]);
    expect(within1(inkOf(plates.get(PANTONE)!), expected(tintA))).toBe(true);
  });

  it('grey PDF/X-4: a CMYK ink gets a DeviceGray alternate (the output intent is grey), Lab stays Lab', async () => {
    const pdf = await make({ colorSpace: 'Grayscale' });
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    const spaces = await separationSpaces(pdf);
    expect(spaces.map(([n, alt]) => [n, alt])).toEqual([
      [PANTONE, 'DeviceGray'],
      [VARNISH, 'Lab'],
    ]);
    // Grey lightness of the ink: darker than paper.
    expect(spaces[0][2][0]).toBeLessThan(0.9);
    const plates = await separations(pdf, [...PROCESS, PANTONE, VARNISH]);
    expect(within1(inkOf(plates.get(PANTONE)!), expected(tintA))).toBe(true);
  });

  it('separate files: the process file has no spot, each spot file only its own plate', async () => {
    const process = await make({ colorSpace: 'Cmyk' }, { separation: { process: true } });
    expect(await separationSpaces(process)).toEqual([]);
    const varnish = await make({ colorSpace: 'Cmyk' }, { separation: { spot: VARNISH } });
    expect((await runTool('qpdf-check', varnish)).code).toBe(0);
    expect((await separationSpaces(varnish)).map(([n]) => n)).toEqual([VARNISH]);
    const plates = await separations(varnish, [...PROCESS, VARNISH]);
    expect(within1(inkOf(plates.get(VARNISH)!), expected(tintB))).toBe(true);
    for (const ink of PROCESS) expect(inkOf(plates.get(ink)!).flat().every((v) => v === 0), ink).toBe(true);
    // Same page size and boxes as the full file.
    const info = (await runTool('pdfinfo', varnish)).stdout;
    expect(info).toMatch(/Page size:\s+40 x 24 pts/);
  });
});

describe('separation file names', () => {
  it('keep the base for the process plates and add the ink in safe characters', async () => {
    const { separationFileName, separationsOf } = await import('../../../src/engine/pdf/document');
    const seps = separationsOf([PANTONE, VARNISH, '/../Weiß']);
    expect(seps.map((s) => separationFileName('card.pdf', s))).toEqual(['card.pdf', 'card-PANTONE_185_C.pdf', 'card-Gloss_Varnish_UV_2.pdf', 'card-Wei.pdf']);
    expect(separationFileName('card', { spot: '***' })).toBe('card-spot');
  });
});
