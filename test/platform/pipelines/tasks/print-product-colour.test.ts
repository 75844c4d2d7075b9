// render-hires on a print-product design in the task's output colour (issue 20 §2): by default a
// CMYK PDF/X-4 (output intent, GTS_PDFXVersion, TrimBox/BleedBox) whose cmyk(0,0,0,100) text is
// K alone under Ghostscript; Rgb gives the plain PDF; a print-area filter keeps the PDF/X keys;
// PDF/X-1a of translucent content is flattened; an unknown profile fails the task naming the parameter.
import { PDFName, PDFString, PDFHexString } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledFont, runTool } from '../../../helpers/fixtures';
import { S, upload } from '../../storage/helpers';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { finalFiles, runStandaloneJob } from '../../jobs/helpers';
import { gsCmyk, pdfGraph, pixel } from '../../../engine/pdf/print';

const text = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

/** Two surfaces of 200 × 100 pt: the front a red background with a pure-K bar and pure-K words; the back translucent. */
const card = {
  surfaces: [
    {
      id: 'front',
      name: 'Front',
      width: 200,
      height: 100,
      printAreas: [{ id: 'fa', name: 'Front', bounds: { x: 0, y: 0, width: 200, height: 100 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } }],
      containers: [
        {
          id: 'main',
          name: 'Main',
          items: [
            { id: 'bg', type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 200, height: 100, fillColor: '#ff0000' },
            { id: 'bar', type: 'Rectangle', name: 'Bar', x: 10, y: 10, width: 60, height: 20, fillColor: 'cmyk(0,0,0,100)' },
            { id: 'words', type: 'Text', name: 'Words', x: 10, y: 50, width: 180, height: 30, text: 'Pure black', font: { postscriptName: 'LiberationSans-Bold', size: 20 }, color: 'cmyk(0,0,0,100)' },
          ],
        },
      ],
    },
    {
      id: 'back',
      name: 'Back',
      width: 200,
      height: 100,
      containers: [{ id: 'b', name: 'Main', items: [{ id: 'glass', type: 'Rectangle', name: 'Glass', x: 0, y: 0, width: 200, height: 100, fillColor: 'rgba(0,0,255,0.5)' }] }],
    },
  ],
};

let designId: string;

async function runJob(id: string, parameters: Record<string, unknown>) {
  const { status, job } = await runStandaloneJob(
    id,
    { items: [{ itemId: '1', designIds: [designId], fields: {} }] },
    [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
      { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['result*'], parameters },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
    ],
    40_000,
  );
  return { status, job, files: status === 'Completed' ? (await finalFiles(id)).map((f) => f.bytes) : [] };
}

beforeAll(async () => {
  await seedPlatform();
  const res = await upload(`${S}/fonts`, await bundledFont('LiberationSans-Bold.ttf'), 'LiberationSans-Bold.ttf', {}, { token: 1 });
  expect([201, 409]).toContain(res.status);
  designId = (await apiJson('POST', '/api/atoms/v1/designs', { product: card, name: 'Colour card', path: '/colour-cards/' }, { token: 1 }, 201)).id;
});

describe('render-hires: print-product PDFs in the output colour', () => {
  it('default: CMYK PDF/X-4 with the output intent and boxes; pure K stays K (Ghostscript); a page pick keeps PDF/X', async () => {
    const { status, files } = await runJob('ppc-default', { hiResOutputPrintAreaFilter: '1' });
    expect(status).toBe('Completed');
    const [pdf] = files;
    expect((await runTool('qpdf-check', pdf!)).code).toBe(0);
    const g = await pdfGraph(pdf!);
    expect(g.header).toBe('%PDF-1.6');
    expect(g.doc.getPageCount()).toBe(1);
    expect(g.array(g.catalog, 'OutputIntents')!.size()).toBe(1);
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    expect(g.name(g.info, 'Trapped')).toBe('False');
    expect(g.streamText(g.catalog.get(PDFName.of('Metadata')))).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
    const page = g.doc.getPage(0);
    expect([page.getTrimBox().x, page.getTrimBox().width]).toEqual([9, 200]);
    expect(page.getBleedBox().width).toBe(218);
    const tiff = await gsCmyk(pdf!, 72);
    expect(pixel(tiff, 9 + 40, 9 + 20)).toEqual([0, 0, 0, 255]);
    let inked = 0;
    for (let y = 9 + 52; y < 9 + 78; y++)
      for (let x = 9 + 10; x < 9 + 150; x++) {
        const [c, m, yy, k] = pixel(tiff, x, y);
        if (k === 255) {
          inked++;
          expect([c, m, yy]).toEqual([0, 0, 0]);
        }
      }
    expect(inked).toBeGreaterThan(100);
    // The red background is CMYK ink (no K), not RGB.
    const red = pixel(tiff, 9 + 150, 9 + 15);
    expect(red[1]).toBeGreaterThan(200);
    expect(new TextDecoder('latin1').decode(pdf!)).not.toMatch(/DeviceRGB|\/rg\b/);
  });

  it('Rgb: a plain PDF without output intent', async () => {
    const { status, files } = await runJob('ppc-rgb', { hiResOutputColorSpace: 'Rgb', hiResOutputPrintAreaFilter: '1' });
    expect(status).toBe('Completed');
    const g = await pdfGraph(files[0]!);
    expect(g.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    expect(g.header).toBe('%PDF-1.7');
  });

  it('PdfX1a of translucent content is flattened (no transparency left); an unknown profile name fails the task naming the parameter', async () => {
    const x1a = await runJob('ppc-x1a', { hiResOutputPdfFormat: 'PdfX1a' });
    expect(x1a.status).toBe('Completed');
    for (const file of x1a.files) {
      expect(new TextDecoder('latin1').decode(file.subarray(0, 8))).toBe('%PDF-1.4');
      expect(new TextDecoder('latin1').decode(file)).not.toMatch(/\/SMask|\/Transparency|\/ca 0|\/CA 0/);
    }
    // The translucent back: 50 % of the blue's ink, composited in CMYK (as PDF/X-4 prints it).
    const last = x1a.files.at(-1)!;
    const back = await gsCmyk(last, 72, (await pdfGraph(last)).doc.getPageCount());
    const [c, m] = pixel(back, 100, 50);
    expect(c).toBeGreaterThan(100);
    expect(c).toBeLessThan(160);
    expect(m).toBeGreaterThan(30);
    const unknown = await runJob('ppc-profile', { hiResOutputCmykColorProfileName: 'No such profile' });
    expect(unknown.status).toBe('Failed');
    expect(JSON.stringify(unknown.job)).toContain('hiResOutputCmykColorProfileName');
  });
});
