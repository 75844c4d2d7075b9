// populate-psd-template reads PDF inputs (the results of design rendering) at inputImageDpi
// (issue 22 §4: the option was accepted and unused): each page becomes an image of its physical
// size at that resolution, then placed into its smart object like a JPEG or PNG.
import { env } from 'cloudflare:workers';
import { PDFDocument, rgb } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PDF_IMAGE_SIDE, pdfInputImages } from '../../../../src/platform/pipelines/tasks/populate-psd-template';
import { seedPlatform } from '../../../helpers/platform';
import { createDesign, finalFiles, runStandaloneJob } from '../../jobs/helpers';

/** A PNG's pixel size (IHDR). */
const pngSize = (png: Uint8Array) => {
  const v = new DataView(png.buffer, png.byteOffset);
  return [v.getUint32(16), v.getUint32(20)];
};

async function pdfOf(...pages: Array<[number, number]>): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const [w, h] of pages) doc.addPage([w, h]).drawRectangle({ x: 0, y: 0, width: w / 2, height: h, color: rgb(1, 0, 0) });
  return doc.save();
}

beforeAll(async () => {
  await seedPlatform();
  await createDesign('ppi-template', 'agpsd-shapes-smart-objects.psd');
  await createDesign('ppi-design', 'psdtools-blend-multiply.psd');
});

describe('PDF inputs read at inputImageDpi', () => {
  it('a page of w × h pt becomes w·dpi/72 × h·dpi/72 px, one image per page, the long side capped', async () => {
    const pdf = await pdfOf([72, 36], [144, 72]);
    expect((await pdfInputImages(pdf, 150)).map(pngSize)).toEqual([[150, 75], [300, 150]]);
    expect((await pdfInputImages(pdf, 300)).map(pngSize)).toEqual([[300, 150], [600, 300]]);
    // A 40-inch page at 300 dpi would be 12,000 px: capped.
    expect((await pdfInputImages(await pdfOf([2880, 1440]), 300)).map(pngSize)).toEqual([[MAX_PDF_IMAGE_SIDE, MAX_PDF_IMAGE_SIDE / 2]]);
  });

  it('render-hires PDFs populate the template; the sheet depends on inputImageDpi', async () => {
    const tasks = (id: string, dpi: number) => [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['print*'] },
      { name: 'populate', type: 'populate-psd-template', inputArtifacts: ['print*'], outputArtifacts: ['sheet*'], parameters: { templateId: 'ppi-template', inputRepeatCount: 2, inputImageDpi: dpi, outputName: id } },
      { name: 'finalize', type: 'finalize', inputArtifacts: ['sheet*'], finalArtifacts: ['sheet*'] },
    ];
    const project = { id: 'p-ppi', items: [{ itemId: '1', name: 'card', designIds: ['ppi-design'] }] };
    const sheets: Uint8Array[] = [];
    for (const [id, dpi] of [['job-ppi-300', 300], ['job-ppi-9', 9]] as const) {
      const { status, job } = await runStandaloneJob(id, project, tasks(id, dpi));
      expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
      const [sheet] = await finalFiles(id);
      expect(sheet!.name).toBe(`${id}.pdf`);
      expect((await PDFDocument.load(sheet!.bytes)).getPageCount()).toBe(1);
      sheets.push(sheet!.bytes);
    }
    // 9 dpi reads the design as a few pixels: a visibly different sheet.
    expect(sheets[0]!.length).not.toBe(sheets[1]!.length);
  });
});
