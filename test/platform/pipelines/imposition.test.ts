// produce-imposition through a job: render-hires → produce-imposition, checked by the placements
// in the sheet's content (matrices at the grid's cells), the slug line's text (pdftotext),
// parameter problems failing the task by name, a PSD template's slots, and a VDP run cut and
// stacked. The layout maths and the crop-mark raster are in test/engine/imposition.
import { env } from 'cloudflare:workers';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { cellBoxes } from '../../../src/engine/imposition/layout';
import { templateSlots } from '../../../src/engine/imposition/template';
import { resolveTemplate } from '../../../src/engine/preview';
import { decodeImage } from '../../../src/engine/raster';
import { TenantInputStore } from '../../../src/platform/assets';
import { chooseGrid, sheetGeometry } from '../../../src/platform/pipelines/tasks/imposition';
import { bundledFont, runTool } from '../../helpers/fixtures';
import { S, uploadJson } from '../storage/helpers';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { placements } from '../../engine/imposition/helpers';
import { createDesign, drive, finalFiles, runStandaloneJob, stubOfJob } from '../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';
const project = { id: 'p-imp', orderNumber: 1042, items: [{ itemId: '7', name: 'card', quantity: 5, designIds: ['imp-design'] }] };

const runJob = (id: string, tasks: unknown[]) => runStandaloneJob(id, project, tasks);

const finals = finalFiles;

const render = [
  { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
  { name: 'hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['pdf*'], parameters: { hiResOutputDpi: 72 } },
];

beforeAll(async () => {
  await seedPlatform();
  await createDesign('imp-design');
  await createDesign('imp-template', 'agpsd-shapes-smart-objects.psd');
});

describe('produce-imposition', () => {
  it('a 2-up of quantity 5: three sheets, the copies at the cells, a slug line naming order, job and sheet', async () => {
    const { status, job } = await runJob('job-impose', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { sheetSize: '12x18in', margin: '0.5in', gutter: '6pt', layout: '2x1', quantity: '{{project.items.0.quantity}}', cropMarks: true, slugLine: true, outputName: 'sheets' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets', 'pdf*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finals('job-impose');
    const sheets = files.find((f) => f.name === 'sheets.pdf')!.bytes;
    const item = (await PDFDocument.load(files.find((f) => f.name !== 'sheets.pdf')!.bytes)).getPage(0).getBleedBox();
    const doc = await PDFDocument.load(sheets);
    expect(doc.getPageCount()).toBe(3);
    const g = sheetGeometry({ sheetSize: '12x18in', margin: '0.5in', gutter: '6pt', layout: '2x1', scheme: 'stepAndRepeat', duplex: false, cropMarks: true, slugLine: true });
    const grid = chooseGrid(g, '2x1', item);
    const cells = cellBoxes(g, grid);
    const counts = doc.getPages().map((p) => placements(p).length);
    expect(counts).toEqual([2, 2, 1]);
    const first = placements(doc.getPage(0));
    first.forEach((p, i) => {
      if (grid.rotated) expect(p.m.slice(0, 4)).toEqual([0, 1, -1, 0]);
      else expect(p.m.slice(0, 4)).toEqual([1, 0, 0, 1]);
      expect(p.m[grid.rotated ? 5 : 4]).toBeCloseTo(grid.rotated ? cells[i]!.y : cells[i]!.x, 3);
    });
    const text = (await runTool('pdftotext', sheets)).stdout;
    expect(text).toContain('Order 1042 \u00b7 Job job-impose \u00b7 Sheet 1 of 3');
    expect(text).toContain('Sheet 3 of 3');
  });

  it('auto on SRA3 gives the count calculate-count-per-sheet gives', async () => {
    const { status, job } = await runJob('job-impose-auto', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { sheetSize: 'SRA3', margin: '5mm', outputName: 'sheets' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets', 'pdf*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finals('job-impose-auto');
    const sheet = files.find((f) => f.name === 'sheets.pdf')!;
    const item = (await PDFDocument.load(files.find((f) => f.name.startsWith('psdtools'))!.bytes)).getPage(0).getBleedBox();
    const mm = 72 / 25.4;
    const expected = (await apiJson<{ count: number }>('POST', '/api/processor/v1/designs/imp-design/calculate-count-per-sheet', {
      sheetWidth: 320 * mm, sheetHeight: 450 * mm, margin: { left: 5 * mm, top: 5 * mm, right: 5 * mm, bottom: 5 * mm }, bleed: 0, allowRotation: true,
    }, { token: 1 }));
    const placed = placements((await PDFDocument.load(sheet.bytes)).getPage(0)).length;
    const g = sheetGeometry({ sheetSize: 'SRA3', margin: '5mm', gutter: '0', layout: 'auto', scheme: 'stepAndRepeat', duplex: false, cropMarks: false, slugLine: false });
    const grid = chooseGrid(g, 'auto', item);
    expect(placed).toBe(grid.columns * grid.rows);
    expect(placed).toBe(expected.count);
  });

  it('fails naming the parameter: a bad sheet size, a layout that does not fit, a missing template, a template background without a template', async () => {
    const bad = await runJob('job-impose-bad', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { sheetSize: 'napkin' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(bad.status).toBe('Failed');
    expect(bad.job.statusDescription).toMatch(/sheetSize: must be/);
    const big = await runJob('job-impose-big', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { sheetSize: 'A4', layout: '40x40' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(big.status).toBe('Failed');
    expect(big.job.statusDescription).toMatch(/layout: 40x40 items/);
    const tpl = await runJob('job-impose-tpl', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { impositionTemplateName: 'bc-8up-letter.psd' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(tpl.status).toBe('Failed');
    expect(tpl.job.statusDescription).toMatch(/no template named "bc-8up-letter.psd" in \//);
    const bg = await runJob('job-impose-tpl-bg', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { sheetSize: 'A4', impositionTemplateBackground: true } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(bg.status).toBe('Failed');
    expect(bg.job.statusDescription).toMatch(/impositionTemplateBackground: needs a template/);
  });

  it('template-driven: the PSD\u2019s smart objects are the slots, pages fitted into their corners as vectors', async () => {
    const { status, job } = await runJob('job-impose-template', [
      ...render,
      { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { impositionTemplateId: 'imp-template', outputName: 'sheets' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets', 'pdf*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finals('job-impose-template');
    const item = (await PDFDocument.load(files.find((f) => f.name !== 'sheets.pdf')!.bytes)).getPage(0).getBleedBox();
    const doc = await PDFDocument.load(files.find((f) => f.name === 'sheets.pdf')!.bytes);
    const compiled = (await resolveTemplate(new TenantInputStore(env, 1), 'imp-template')).compiled;
    const { sheet, slots } = templateSlots(compiled);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getPage(0).getWidth()).toBeCloseTo(sheet.width, 3);
    const placed = placements(doc.getPage(0));
    expect(placed).toHaveLength(slots.length);
    // Each copy's centre is its slot's centre.
    placed.forEach((p, i) => {
      const [a, b, c, d, e, f] = p.m as [number, number, number, number, number, number];
      const cx = a * (item.width / 2) + c * (item.height / 2) + e;
      const cy = b * (item.width / 2) + d * (item.height / 2) + f;
      const sx = slots[i]!.reduce((t, q) => t + q[0], 0) / 4;
      const sy = slots[i]!.reduce((t, q) => t + q[1], 0) / 4;
      expect(cx).toBeCloseTo(sx, 1);
      expect(cy).toBeCloseTo(sy, 1);
    });
  });

  it('impositionTemplateBackground: the PSD\u2019s other pixels under the pages, one form on the sheet; without it, white', async () => {
    const sheetOf = async (id: string, extra: Record<string, unknown>) => {
      const { status, job } = await runJob(id, [
        ...render,
        { name: 'impose', type: 'produce-imposition', inputArtifacts: ['pdf*'], outputArtifacts: ['sheets'], parameters: { impositionTemplateId: 'imp-template', outputName: 'sheets', ...extra } },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets'] },
      ]);
      expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
      const bytes = (await finals(id)).find((f) => f.name === 'sheets.pdf')!.bytes;
      const page = (await PDFDocument.load(bytes)).getPage(0);
      const xobjects = page.node.Resources()!.lookup(PDFName.of('XObject'), PDFDict).keys().length;
      // The fixture is 500 × 500 px at 72 ppi: at 72 dpi one pixel per point, y from the top.
      const png = (await runTool('pdftoppm', bytes, { r: 72 })).pages[0]!;
      const img = await decodeImage(Uint8Array.from(atob(png), (c) => c.charCodeAt(0)));
      const at = (x: number, y: number) => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3));
      return { xobjects, placed: placements(page).length, at };
    };
    const plain = await sheetOf('job-impose-tpl-plain', {});
    const backed = await sheetOf('job-impose-tpl-backed', { impositionTemplateBackground: true });
    // (80, 60) is inside the template's red rectangle, far from both slots. Its fill is
    // (224, 63, 75) as the PSD records it; the engine's colour-managed print comes out within 24.
    expect(plain.at(80, 60)).toEqual([255, 255, 255]);
    backed.at(80, 60).forEach((v, i) => expect(Math.abs(v - [224, 63, 75][i]!)).toBeLessThanOrEqual(24));
    // One more form drawn (the background, first and scaled to the sheet); the copies unchanged.
    expect(backed.placed).toBe(plain.placed + 1);
    expect(backed.xobjects).toBe(plain.xobjects + 1);
  });

  it('cut and stack of a VDP run: render-vdp-hires rows → sheets whose cut stacks are the rows in order', async () => {
    await uploadJson(`${S}/fonts`, await bundledFont('LiberationSans-Regular.ttf'), 'vdp-sans.ttf', {}, {}, 201).catch(() => undefined);
    const variable = 'Line 1 Line 2 Line 3 and text';
    const id = 'job-impose-vdp';
    await apiJson('POST', JOBS, {
      id,
      project: { items: [{ itemId: '1', designIds: ['demo-card-design'] }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'vdp', type: 'render-vdp-hires', inputArtifacts: ['design'], outputArtifacts: ['cards*'], parameters: { hiResOutputPdfTextMode: 'Text', vdpData: [1, 2, 3, 4, 5].map((n) => ({ [variable]: `Row ${n}` })) } },
        { name: 'impose', type: 'produce-imposition', inputArtifacts: ['cards*'], outputArtifacts: ['sheets'], parameters: { sheetSize: 'SRA3', layout: '2x1', gutter: '5mm', scheme: 'cutAndStack', outputName: 'sheets' } },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['sheets'] },
      ],
    }, { token: 1 }, 201);
    const { status } = await drive(stubOfJob(id), id, 60_000);
    expect(status, JSON.stringify((await stubOfJob(id).view(id))?.job.statusDescription)).toBe('Completed');
    const [sheets] = await finals(id);
    const doc = await PDFDocument.load(sheets!.bytes);
    expect(doc.getPageCount()).toBe(3);
    const rows = [];
    for (let page = 1; page <= 3; page++) {
      const one = await PDFDocument.create();
      const [copied] = await one.copyPages(doc, [page - 1]);
      one.addPage(copied);
      const text = (await runTool('pdftotext', await one.save())).stdout;
      rows.push([...text.matchAll(/Row (\d)/g)].map((m) => Number(m[1])));
    }
    // S = 3 sheets: cell k of sheet s holds row k·3 + s + 1; the stacks are 1–3 and 4–5.
    expect(rows).toEqual([[1, 4], [2, 5], [3]]);
  });
});

