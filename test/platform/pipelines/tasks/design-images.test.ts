// extract-design-images and populate-psd-template through stand-alone rendering jobs driven alarm
// by alarm: a PSD's smart objects give their embedded files and its pixel layer a PNG (or one ZIP
// of them); previews of a design fill a template's two smart objects (reading order) into a PDF
// sheet per full set, by templateId or templateName + templateFolder.
import { env } from 'cloudflare:workers';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { createDesign, designFolder, drive, stubOfJob } from '../../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';
const project = (designIds: string[]) => ({ id: 'p-di', ownerId: 'demo-customer', orderId: 'order-di', items: [{ itemId: '1', name: 'card', designIds }] });

async function finals(jobId: string) {
  const { results } = await env.DB.prepare(`SELECT name, alias, r2_key AS key, size FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final' ORDER BY alias`)
    .bind(jobId)
    .all<{ name: string; alias: string; key: string; size: number }>();
  return results;
}
/** The PDF as text without its creation date and /ID (the parts that change run to run). */
const latin1 = (b: Uint8Array) => Array.from(b, (c) => String.fromCharCode(c)).join('').replace(/\/CreationDate \([^)]*\)/g, '').replace(/\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/g, '');
const bytesOf = async (key: string) => new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer());

async function run(id: string, designIds: string[], tasks: unknown[]) {
  await apiJson('POST', JOBS, { id, project: project(designIds), tasks }, { token: 1 }, 201);
  const outcome = await drive(stubOfJob(id), id, 60_000);
  if (outcome.status !== 'Completed') {
    const job = await apiJson('GET', `${JOBS}/${id}`, undefined, { token: 1 });
    throw new Error(`job ${id} ${outcome.status}: ${JSON.stringify(job.tasks)}`);
  }
  return finals(id);
}

beforeAll(async () => {
  await seedPlatform();
  await createDesign('di-smart', 'agpsd-shapes-smart-objects.psd');
  await createDesign('di-blend', 'psdtools-blend-multiply.psd');
});

describe('extract-design-images', () => {
  const tasks = (parameters: Record<string, unknown> = {}) => [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'images', type: 'extract-design-images', inputArtifacts: ['design*'], outputArtifacts: ['image*'], parameters },
    { name: 'finalize', type: 'finalize', inputArtifacts: ['image*'], finalArtifacts: ['image*'] },
  ];

  it('gives each smart object its embedded file and the pixel layer a PNG, top layer first; shapes are not images', async () => {
    const rows = await run('job-di-1', ['di-smart'], tasks());
    expect(rows.map((r) => r.name)).toEqual(['agpsd-shapes-smart-objects_calendar.svg', 'agpsd-shapes-smart-objects_apple.png', 'agpsd-shapes-smart-objects_图层 0.png']);
    const svg = new TextDecoder().decode(await bytesOf(rows[0]!.key));
    expect(svg).toContain('<svg');
    const apple = await bytesOf(rows[1]!.key);
    expect(apple.length).toBe(6258);
    const layer = await bytesOf(rows[2]!.key);
    expect([...layer.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    // The pixel layer's PNG is the layer's size (500×500).
    const view = new DataView(layer.buffer, layer.byteOffset);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([500, 500]);
  });

  it('outputArchiveType Zip gives one ZIP of the same files', async () => {
    const rows = await run('job-di-zip', ['di-smart'], tasks({ outputArchiveType: 'Zip', outputName: 'parts' }));
    expect(rows.map((r) => r.name)).toEqual(['parts.zip']);
    const files = unzipSync(await bytesOf(rows[0]!.key));
    expect(Object.keys(files)).toEqual(['parts_calendar.svg', 'parts_apple.png', 'parts_图层 0.png']);
    expect(files['parts_apple.png']!.length).toBe(6258);
  });

  it('a design with only shapes gives no images and still completes', async () => {
    expect(await run('job-di-none', ['di-blend'], tasks())).toEqual([]);
  });
});

describe('populate-psd-template', () => {
  const tasks = (parameters: Record<string, unknown>) => [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'], parameters: { previewOutputWidth: 200, previewOutputHeight: 200 } },
    { name: 'populate', type: 'populate-psd-template', inputArtifacts: ['preview*'], outputArtifacts: ['sheet*'], parameters },
    { name: 'finalize', type: 'finalize', inputArtifacts: ['sheet*'], finalArtifacts: ['sheet*'] },
  ];

  it('fills both smart objects with the images (repeated) into one PDF sheet, by templateId', async () => {
    const rows = await run('job-pop-1', ['di-blend'], tasks({ templateId: 'di-smart', inputRepeatCount: 2, inputImageResizeMode: 'Resize' }));
    expect(rows.map((r) => r.name)).toEqual(['agpsd-shapes-smart-objects.pdf']);
    const pdf = await PDFDocument.load(await bytesOf(rows[0]!.key));
    expect(pdf.getPageCount()).toBe(1);
    // The images are really placed: Fit twice gives the same sheet, ImageFill (cover) another one.
    const fit = async (id: string) => {
      const [row] = await run(id, ['di-blend'], tasks({ templateId: 'di-smart', inputRepeatCount: 2, inputImageResizeMode: 'Shrink' }));
      return latin1(await bytesOf(row!.key));
    };
    const [a, b] = [await fit('job-pop-fit-a'), await fit('job-pop-fit-b')];
    expect(a).toBe(b);
    expect(a).not.toBe(latin1(await bytesOf(rows[0]!.key)));
  });

  it('a sheet per full set: 2 designs × 3 repeats over 2 smart objects → 3 pages, or 3 files when separate; by templateName', async () => {
    const name = (await env.DB.prepare(`SELECT name FROM assets WHERE tenant_id = 1 AND id = 'di-smart'`).first<{ name: string }>())!.name;
    const byName = { templateName: name.toUpperCase(), templateFolder: designFolder('di-smart'), inputRepeatCount: 3 };
    const rows = await run('job-pop-2', ['di-blend', 'di-smart'], tasks(byName));
    expect(rows).toHaveLength(1);
    expect((await PDFDocument.load(await bytesOf(rows[0]!.key))).getPageCount()).toBe(3);

    const separate = await run('job-pop-3', ['di-blend', 'di-smart'], tasks({ ...byName, outputToSeparateFiles: true, outputName: 'sheet' }));
    expect(separate.map((r) => r.name)).toEqual(['sheet_1.pdf', 'sheet_2.pdf', 'sheet_3.pdf']);
    for (const r of separate) expect((await PDFDocument.load(await bytesOf(r.key))).getPageCount()).toBe(1);
  });

  it('fails the task, saying why, when the images fill no sheet or the template is unknown', async () => {
    for (const [id, parameters, says] of [
      ['job-pop-few', { templateId: 'di-smart' }, 'fill none of its sheets'],
      ['job-pop-none', { templateName: 'no such template', templateFolder: '/x' }, 'there is no template named'],
    ] as const) {
      await apiJson('POST', JOBS, { id, project: project(['di-blend']), tasks: tasks(parameters) }, { token: 1 }, 201);
      expect((await drive(stubOfJob(id), id, 60_000)).status).toBe('Failed');
      const job = await apiJson('GET', `${JOBS}/${id}`, undefined, { token: 1 });
      expect(JSON.stringify(job)).toContain(says);
    }
  });
});
