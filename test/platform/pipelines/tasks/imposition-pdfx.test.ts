// produce-imposition in a job (issues 20, 24): render-hires' default CMYK PDF/X-4 print file
// imposed gives PDF/X-4 sheets (qpdf --check, every font embedded, the same output intent);
// a CMYK and a grey print file together give plain sheets, and the task's status says why.
import { PDFDict, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../helpers/fixtures';
import { seedPlatform } from '../../../helpers/platform';
import { pdfGraph } from '../../../engine/pdf/print';
import { createDesign, finalFiles, runStandaloneJob } from '../../jobs/helpers';

const project = { id: 'p-imp-x', orderNumber: 77, items: [{ itemId: '1', name: 'card', quantity: 2, designIds: ['impx-design'] }] };
const text = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

const hires = (name: string, output: string, parameters: Record<string, unknown>) => ({ name, type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: [output], parameters: { hiResOutputDpi: 72, ...parameters } });
const impose = (inputs: string[]) => ({ name: 'impose', type: 'produce-imposition', inputArtifacts: inputs, outputArtifacts: ['sheets'], parameters: { sheetSize: 'SRA3', margin: '10mm', gutter: '0', layout: '2x1', cropMarks: true, slugLine: true, outputName: 'sheets' } });

beforeAll(async () => {
  await seedPlatform();
  await createDesign('impx-design');
});

describe('produce-imposition and PDF/X', () => {
  it("render-hires' CMYK PDF/X-4 imposed: PDF/X-4 sheets with the print file's output intent; qpdf passes, every font is embedded", async () => {
    const { status, job } = await runStandaloneJob('job-impose-x4', project, [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      hires('hires', 'pdf*', {}),
      impose(['pdf*']),
      { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets', 'pdf*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finalFiles('job-impose-x4');
    const sheets = files.find((f) => f.name === 'sheets.pdf')!.bytes;
    const print = files.find((f) => f.name !== 'sheets.pdf')!.bytes;
    expect((await runTool('qpdf-check', sheets)).code).toBe(0);
    const g = await pdfGraph(sheets);
    const p = await pdfGraph(print);
    expect(text(p.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    expect(g.header).toBe('%PDF-1.6');
    const condition = (x: typeof g) => text(x.deref<PDFDict>(x.array(x.catalog, 'OutputIntents')!.get(0))!.get(PDFName.of('OutputConditionIdentifier')));
    expect(condition(g)).toBe(condition(p));
    const fonts = (await runTool('pdffonts', sheets)).stdout.split('\n').slice(2).filter((l) => l.trim());
    expect(fonts.length).toBeGreaterThan(0);
    for (const line of fonts) expect(line).toMatch(/\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/);
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5)).toBe('yes'); // "emb"
  });

  it('a CMYK and a grey print file together: plain sheets, and the status says which input differs', async () => {
    const { status, job } = await runStandaloneJob('job-impose-mixed', project, [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      hires('cmyk', 'cmyk*', {}),
      hires('grey', 'grey*', { hiResOutputColorSpace: 'Grayscale' }),
      impose(['cmyk*', 'grey*']),
      { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const task = job.tasks.find((t: { name: string }) => t.name === 'impose');
    expect(task.statusDescription).toMatch(/^The sheets are plain PDF, not PDF\/X: .+ is for another print condition \(output intent\) than .+\.$/);
    const sheets = (await finalFiles('job-impose-mixed')).find((f) => f.name === 'sheets.pdf')!.bytes;
    const g = await pdfGraph(sheets);
    expect(g.header).toBe('%PDF-1.7');
    expect(g.info.get(PDFName.of('GTS_PDFXVersion'))).toBeUndefined();
  });
});
