// Imposed sheets as PDF/X when the inputs are (issues 20, 24): the renderer's own PDF/X-4 and
// PDF/X-1a print files imposed 2-up with crop marks and a slug line; the sheets' PDF/X keys read
// back with pdf-lib, qpdf --check, pdffonts (every font embedded), pdfinfo -meta (XMP) and a
// Ghostscript CMYK raster; plain inputs and mixed print conditions still give plain sheets.
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { writePdf, type PdfPage } from '../../../src/engine/pdf/document';
import { pdfOutput, resolvePrintColour, type PrintColour } from '../../../src/engine/pdf/output';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { Imposer } from '../../../src/engine/imposition/sheets';
import { sheetFormat } from '../../../src/engine/imposition/pdfx';
import { chooseGrid, sheetGeometry, type ImpositionParams } from '../../../src/platform/pipelines/tasks/imposition';
import { srgbProfile } from '../../../src/engine/raster/icc';
import { runTool } from '../../helpers/fixtures';
import { gsCmyk, pdfGraph, pixel, printTool } from '../pdf/print';
import { card, MM } from './helpers';

// A business card, 85 × 55 mm at 72 ppi, flat orange: the renderer's print PDF of it.
const W = Math.round(91 * MM);
const H = Math.round(61 * MM);
const page: PdfPage = {
  width: W,
  height: H,
  resolution: 72,
  icc: srgbProfile(),
  trim: { left: 9, top: 9, right: 9, bottom: 9 },
  renderRows: async (top, bottom) => ({ width: W, height: bottom - top, data: new Uint8ClampedArray(W * (bottom - top) * 4).fill(255).map((v, i) => [230, 120, 20, 255][i % 4]!) }),
};

async function printFile(colour: PrintColour): Promise<Uint8Array> {
  const sink = new MemorySink();
  await writePdf(sink, [async () => page], { title: 'Card', output: pdfOutput(await resolvePrintColour(colour)) });
  return sink.bytes();
}

const params: ImpositionParams = { sheetSize: 'SRA3', margin: '10mm', gutter: '0', layout: '2x1', scheme: 'stepAndRepeat', duplex: false, cropMarks: true, slugLine: true };

async function impose(...inputs: Uint8Array[]): Promise<{ bytes: Uint8Array; reason?: string }> {
  const imposer = await Imposer.create();
  for (const [i, bytes] of inputs.entries()) await imposer.add(bytes, `card${i + 1}.pdf`);
  const g = sheetGeometry(params);
  const grid = chooseGrid(g, params.layout, imposer.pages[0]!);
  const { reason } = imposer.format();
  const bytes = await imposer.write([{ cells: [0, inputs.length > 1 ? 1 : 0] }], { ...g, grid, duplex: false, cropMarks: true, slug: (s, of) => `Order 1001 \u00b7 Sheet ${s} of ${of}`, title: 'sheets' });
  return { bytes, reason };
}

const text = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

describe('imposed sheets as PDF/X', () => {
  it('PDF/X-4 inputs: PDF/X-4 sheets (version, Trapped, XMP, ID, boxes = the sheet, the output intent, fonts embedded); qpdf, pdffonts and Ghostscript accept them', async () => {
    const input = await printFile({ colorSpace: 'Cmyk' });
    const { bytes, reason } = await impose(input, input);
    expect(reason).toBeUndefined();
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.6');
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    expect(g.name(g.info, 'Trapped')).toBe('False');
    expect(text(g.info.get(PDFName.of('Title')))).toBe('sheets');
    expect(text(g.info.get(PDFName.of('Creator')))).toBe(text(g.info.get(PDFName.of('Producer'))));
    expect(g.info.get(PDFName.of('GTS_PDFXConformance'))).toBeUndefined();
    const xmp = g.streamText(g.catalog.get(PDFName.of('Metadata')));
    expect(xmp).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
    expect(xmp).toContain('<pdf:Trapped>False</pdf:Trapped>');
    expect((await printTool('pdfinfo-meta', bytes)).stdout).toContain('GTS_PDFXVersion');
    expect((g.doc.context.trailerInfo.ID as PDFArray | undefined)?.size()).toBe(2);
    const intent = g.deref<PDFDict>(g.array(g.catalog, 'OutputIntents')!.get(0))!;
    expect(g.name(intent, 'S')).toBe('GTS_PDFX');
    const [sheet] = g.doc.getPages();
    const media = sheet!.getMediaBox();
    expect(sheet!.getTrimBox()).toEqual(media);
    expect(sheet!.getBleedBox()).toEqual(media);
    expect(media.width).toBeCloseTo(320 * MM, 1);
    // Every font embedded: pdffonts' "emb" column says yes for each (the slug font; the cards have none).
    const fonts = (await runTool('pdffonts', bytes)).stdout.split('\n').slice(2).filter((l) => l.trim());
    expect(fonts.length).toBe(1);
    expect(fonts[0]).toMatch(/DejaVuSans\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
    expect((await runTool('pdftotext', bytes)).stdout).toContain('Order 1001 \u00b7 Sheet 1 of 1');
    // Ghostscript draws the sheet: two cards' worth of the orange (magenta ink), paper around them.
    const tiff = await gsCmyk(bytes, 18);
    let orange = 0;
    for (let y = 0; y < tiff.height; y++) for (let x = 0; x < tiff.width; x++) if (pixel(tiff, x, y)[1]! > 100) orange++;
    expect(orange / (2 * W * H * (18 / 72) ** 2)).toBeCloseTo(1, 1);
    expect(pixel(tiff, 2, 2)).toEqual([0, 0, 0, 0]);
  });

  it('PDF/X-1a inputs: PDF/X-1a sheets (PDF 1.4, no object streams, GTS_PDFXConformance); qpdf passes', async () => {
    const input = await printFile({ colorSpace: 'Cmyk', format: 'PdfX1a' });
    const { bytes, reason } = await impose(input);
    expect(reason).toBeUndefined();
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.4');
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-1a:2003');
    expect(text(g.info.get(PDFName.of('GTS_PDFXConformance')))).toBe('PDF/X-1a:2003');
    expect(g.dicts.some((d) => d.get(PDFName.of('Type')) === PDFName.of('ObjStm') || d.get(PDFName.of('Type')) === PDFName.of('XRef'))).toBe(false);
  });

  it('X-1a and X-4 inputs for one print condition: PDF/X-4 sheets', async () => {
    const { bytes, reason } = await impose(await printFile({ colorSpace: 'Cmyk', format: 'PdfX1a' }), await printFile({ colorSpace: 'Cmyk' }));
    expect(reason).toBeUndefined();
    expect(text((await pdfGraph(bytes)).info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
  });

  it('grey PDF/X-4 inputs: PDF/X-4 sheets whose registration colour falls back to DeviceGray (no DeviceCMYK under a grey intent)', async () => {
    const input = await printFile({ colorSpace: 'Grayscale' });
    const { bytes } = await impose(input, input);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    const separations = g.doc.context
      .enumerateIndirectObjects()
      .map(([, o]) => o)
      .filter((o): o is PDFArray => o instanceof PDFArray && o.get(0) === PDFName.of('Separation'));
    expect(separations.map((a) => [a.get(1), a.get(2)])).toEqual([[PDFName.of('All'), PDFName.of('DeviceGray')]]);
  });

  it('inputs for different print conditions: plain sheets, and the reason names the input', async () => {
    const { bytes, reason } = await impose(await printFile({ colorSpace: 'Cmyk' }), await printFile({ colorSpace: 'Grayscale' }));
    expect(reason).toBe('The sheets are plain PDF, not PDF/X: card2.pdf is for another print condition (output intent) than card1.pdf.');
    const g = await pdfGraph(bytes);
    expect(g.info.get(PDFName.of('GTS_PDFXVersion'))).toBeUndefined();
    expect(g.catalog.get(PDFName.of('Metadata'))).toBeUndefined();
  });

  it('a PDF/X input with a plain one: plain sheets, the reason says which is not PDF/X', () => {
    const x = { intent: 'FOGRA39|1|a', version: 'PDF/X-4' };
    expect(sheetFormat([{ name: 'a.pdf', ...x }, { name: 'b.pdf', intent: null, version: null }])).toEqual({ format: null, reason: 'The sheets are plain PDF, not PDF/X: b.pdf is not PDF/X.' });
    expect(sheetFormat([{ name: 'a.pdf', ...x, version: 'PDF/X-5g' }])).toEqual({ format: null, reason: 'The sheets are plain PDF, not PDF/X: a.pdf is PDF/X-5g, which imposition does not write.' });
    expect(sheetFormat([{ name: 'a.pdf', intent: null, version: null }])).toEqual({ format: null });
  });

  it('plain inputs give plain sheets as before (PDF 1.7, no PDF/X keys, no TrimBox), with the slug font embedded', async () => {
    const { bytes, reason } = await impose(await card('A'));
    expect(reason).toBeUndefined();
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const g = await pdfGraph(bytes);
    expect(g.header).toBe('%PDF-1.7');
    expect(g.info.get(PDFName.of('GTS_PDFXVersion'))).toBeUndefined();
    expect(g.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    expect(g.doc.getPages()[0]!.node.TrimBox()).toBeUndefined();
    expect((await runTool('pdffonts', bytes)).stdout).toMatch(/DejaVuSans\s+CID TrueType\s+Identity-H\s+yes/);
  });
});
