// Render tasks on print-product designs (the design atoms' model) and the personalised order:
// a project whose items are a two-surface PrintProduct card and the demo PSD card, each with the
// shopper's `fields`, runs a pipeline to Completed; the print PDF has a page per print area with
// MediaBox = BleedBox = area + bleed and TrimBox = area (pdf-lib, pdfinfo, qpdf), and its text
// (pdftotext) is the shopper's name on both kinds of design. Previews, proofs, rasters per page,
// separate files and a bad field value are checked through stand-alone jobs.
import { env } from 'cloudflare:workers';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage, encodePng } from '../../../../src/engine/raster';
import { bundledFont, fixtureServer } from '../../../helpers/fixtures';
import { pngBytes, S, upload, uploadJson } from '../../storage/helpers';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { drive, driveProject, runStandaloneJob, stubOfJob } from '../../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';
const PSD_LAYER = 'Line 1 Line 2 Line 3 and text';

/** Front: the whole card as print area with 9 pt bleed; back: an inset area with 3 pt bleed. */
const card = {
  surfaces: [
    {
      id: 'front',
      name: 'Front',
      width: 252,
      height: 144,
      printAreas: [{ id: 'front-area', name: 'Front', bounds: { x: 0, y: 0, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } }],
      containers: [
        {
          id: 'main',
          name: 'Main',
          items: [
            { id: 'bg', type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 252, height: 144, fillColor: '#ff0000' },
            {
              id: 'name', type: 'Text', name: 'Name', isVariable: true, x: 10, y: 60, width: 230, height: 24, text: '', placeholder: 'Your name',
              font: { postscriptName: 'LiberationSans-Bold', size: 16 }, color: '#ffffff', constraints: { maxLength: 20, required: true },
            },
          ],
        },
      ],
    },
    {
      id: 'back',
      name: 'Back',
      width: 252,
      height: 144,
      printAreas: [{ id: 'back-area', name: 'Back', bounds: { x: 18, y: 18, width: 216, height: 108 }, bleed: { left: 3, top: 3, right: 3, bottom: 3 } }],
      containers: [
        {
          id: 'back-main',
          name: 'Main',
          items: [
            { id: 'back-bg', type: 'Rectangle', name: 'Back background', x: 0, y: 0, width: 252, height: 144, fillColor: '#0000ff' },
            { id: 'motto', type: 'Text', name: 'Motto', x: 20, y: 60, width: 210, height: 20, text: 'Printed with care', font: { postscriptName: 'LiberationSans', size: 12 }, color: '#ffffff' },
          ],
        },
      ],
    },
  ],
};

let designId: string;

/** A prepress tool's output (test/global-setup.ts): stdout, and pdftoppm's pages as PNG. */
async function run(name: string, bytes: Uint8Array, query = ''): Promise<{ stdout: string; pages: string[] }> {
  return (await fetch(`${fixtureServer()}/tools/${name}${query}`, { method: 'POST', body: bytes })).json();
}
const tool = async (name: string, bytes: Uint8Array) => (await run(name, bytes)).stdout;

async function finals(jobId: string): Promise<Array<{ name: string; alias: string; bytes: Uint8Array }>> {
  const { results } = await env.DB.prepare(`SELECT name, alias, r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final' ORDER BY alias`)
    .bind(jobId)
    .all<{ name: string; alias: string; key: string }>();
  return Promise.all(results.map(async (r) => ({ name: r.name, alias: r.alias, bytes: new Uint8Array(await (await env.FILES.get(r.key))!.arrayBuffer()) })));
}

/** A stand-alone job on the card with the item's `fields`; its finals once it settles. */
async function runJob(id: string, fields: Record<string, unknown>, tasks: unknown[]) {
  const { status, job } = await runStandaloneJob(id, { items: [{ itemId: '1', designIds: [designId], fields }] }, [{ name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] }, ...tasks], 40_000);
  return { status, job, files: status === 'Completed' ? await finals(id) : [] };
}

/** [x0, y0, x1, y1] of a box line in `pdfinfo -box` output. */
function box(info: string, name: string): number[] {
  const m = new RegExp(`${name}:\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)`).exec(info);
  expect(m, `${name} in ${info}`).not.toBeNull();
  return m!.slice(1).map(Number);
}

const px = (img: { width: number; data: Uint8ClampedArray }, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
const near = (got: number[], want: number[], tol = 24) => want.every((v, i) => Math.abs(got[i]! - v) <= tol);

beforeAll(async () => {
  await seedPlatform();
  for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) {
    const res = await upload(`${S}/fonts`, await bundledFont(f), f, {}, { token: 1 });
    expect([201, 409]).toContain(res.status);
  }
  designId = (await apiJson('POST', '/api/atoms/v1/designs', { product: card, name: 'Pipeline card', path: '/pipeline-cards/' }, { token: 1 }, 201)).id;
});

describe('a project with a print-product item and a PSD item, personalised by their fields', () => {
  it('runs to Completed; the PDFs carry the print boxes and the shoppers\' names', async () => {
    const pipeline = {
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputPdfTextMode: 'Text' } },
        { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'], parameters: { previewOutputFileFormat: 'Png', previewOutputWidth: 252, previewOutputHeight: 144 } },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['result*', 'preview*'] },
      ],
    };
    const saved = await apiJson('POST', '/api/backoffice/v1/processing-pipelines', { name: 'personalised print', rawContent: JSON.stringify(pipeline) }, { token: 1 }, 201);
    const project = await apiJson(
      'POST',
      '/api/storefront/v1/projects/by-scenario/specific-pipeline?storefrontId=1',
      {
        ownerId: 'demo-customer',
        items: [
          // Field names match the variable / layer ignoring case; other fields are order data.
          { name: 'atoms card', designIds: [designId], fields: { name: 'Ada Lovelace', Paper: 'Matte' } },
          { name: 'psd card', designIds: ['demo-card-design'], fields: { [PSD_LAYER.toUpperCase()]: 'Grace Hopper' } },
        ],
        scenario: { pipelineId: saved.id },
      },
      { token: 1 },
      201,
    );
    expect(await driveProject(1, project.id, 60_000)).toEqual(['Completed']);
    const results = await apiJson('GET', `/api/storefront/v1/projects/${project.id}/processing-results`, undefined, { token: 1 });
    expect(results.status).toBe('Completed');
    const files = await Promise.all(
      results.outputFileDetails.map(async (f: { artifactId: string; name: string; projectItemId: number }) => {
        const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(f.artifactId).first<{ key: string }>();
        return { ...f, bytes: new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer()) };
      }),
    );
    const byName = (n: string) => files.find((f) => f.name === n)!;
    expect(files.map((f) => f.name).sort()).toEqual(['Demo card design.png', 'Demo card design.pdf', 'Pipeline card.pdf', 'Pipeline card_1.png', 'Pipeline card_2.png'].sort());
    const [atomsItem, psdItem] = project.items as Array<{ id: number }>;
    expect(byName('Pipeline card.pdf').projectItemId).toBe(atomsItem!.id);
    expect(byName('Demo card design.pdf').projectItemId).toBe(psdItem!.id);

    // The print-product PDF: a page per print area; MediaBox = BleedBox = area + bleed, TrimBox = area.
    const pdf = byName('Pipeline card.pdf').bytes;
    expect(await tool('qpdf-check', pdf)).toMatch(/No syntax or stream encoding errors/);
    const info = await tool('pdfinfo', pdf);
    expect(info).toMatch(/Pages:\s+2\b/);
    expect(box(info, 'MediaBox')).toEqual([0, 0, 270, 162]);
    expect(box(info, 'BleedBox')).toEqual([0, 0, 270, 162]);
    expect(box(info, 'TrimBox')).toEqual([9, 9, 261, 153]);
    const doc = await PDFDocument.load(pdf);
    const back = doc.getPage(1);
    expect([back.getMediaBox(), back.getBleedBox(), back.getTrimBox()]).toEqual([
      { x: 0, y: 0, width: 222, height: 114 },
      { x: 0, y: 0, width: 222, height: 114 },
      { x: 3, y: 3, width: 216, height: 108 },
    ]);
    // The shopper's name is the variable's text (Text mode: a font subset pdftotext reads).
    const text = await tool('pdftotext', pdf);
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('Printed with care');
    expect(text).not.toContain('Your name');

    // The PSD item's PDF carries its shopper's name in the template's text layer.
    expect(await tool('pdftotext', byName('Demo card design.pdf').bytes)).toContain('Grace Hopper');

    // Previews: a picture per surface, red front and blue back.
    const front = await decodeImage(byName('Pipeline card_1.png').bytes);
    const backPng = await decodeImage(byName('Pipeline card_2.png').bytes);
    expect([front.width, front.height]).toEqual([252, 144]);
    expect(near(px(front, 5, 5), [255, 0, 0])).toBe(true);
    expect(near(px(backPng, 5, 5), [0, 0, 255])).toBe(true);
  });
});

describe('render tasks on a print-product design (stand-alone jobs)', () => {
  it('render-proof and render-preview honour the print-area filter and the print-area bounds', async () => {
    const { status, job, files } = await runJob('pp-previews', {}, [
      { name: 'proof', type: 'render-proof', inputArtifacts: ['design'], outputArtifacts: ['proof*'], parameters: { proofOutputPrintAreaFilter: '1', proofOutputFileFormat: 'Png', proofOutputWidth: 504, proofOutputHeight: 288 } },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design'], outputArtifacts: ['preview'], parameters: { previewOutputPrintAreaFilter: '2-N', previewOutputVisualizePrintAreas: true, previewOutputFileFormat: 'Png', previewOutputWidth: 504, previewOutputHeight: 288 } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['proof*', 'preview'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    // Ordered by alias: preview (the back, surface 2), proof1 (the front, surface 1).
    expect(files.map((f) => f.name)).toEqual(['Pipeline card_2.png', 'Pipeline card_1.png']);
    const back = await decodeImage(files[0]!.bytes);
    const front = await decodeImage(files[1]!.bytes);
    expect([front.width, front.height, back.width, back.height]).toEqual([504, 288, 504, 288]);
    expect(near(px(front, 20, 20), [255, 0, 0])).toBe(true);
    expect(near(px(back, 100, 20), [0, 0, 255])).toBe(true);
    // The back's print area (x = 18 pt = 36 px) is outlined in #00a3ff: its left edge is no longer pure blue.
    const edge = [px(back, 35, 144), px(back, 36, 144)];
    expect(edge.some((c) => c[1]! > 60), JSON.stringify(edge)).toBe(true);
    expect(near(px(back, 60, 144), [0, 0, 255])).toBe(true);
  });

  it('render-hires: PNG pages at the dpi cut to each page\'s bleed box; separate PDF files in a ZIP', async () => {
    const { status, job, files } = await runJob('pp-hires', { NAME: 'Grace' }, [
      { name: 'png', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['png*'], parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 144 } },
      { name: 'zip', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['zip'], parameters: { hiResOutputToSeparateFiles: true, hiResOutputArchiveType: 'Zip', hiResOutputFlipMode: 'Horizontal' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['png*', 'zip'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect(files.map((f) => f.name)).toEqual(['Pipeline card_1.png', 'Pipeline card_2.png', 'Pipeline card.zip']);
    const [front, back] = await Promise.all([decodeImage(files[0]!.bytes), decodeImage(files[1]!.bytes)]);
    // 144 dpi = 2 px per point: front 270 × 162 pt (bleed outside the surface is transparent), back 222 × 114 pt.
    expect([front.width, front.height, back.width, back.height]).toEqual([540, 324, 444, 228]);
    expect(px(front, 2, 2).concat(front.data[(2 * front.width + 2) * 4 + 3]!)).toEqual([0, 0, 0, 0]);
    expect(near(px(front, 40, 40), [255, 0, 0])).toBe(true);
    expect(near(px(back, 10, 10), [0, 0, 255])).toBe(true);
    const entries = unzipSync(files[2]!.bytes);
    expect(Object.keys(entries)).toEqual(['Pipeline card_1.pdf', 'Pipeline card_2.pdf']);
    const backPdf = await PDFDocument.load(entries['Pipeline card_2.pdf']!);
    expect(backPdf.getPageCount()).toBe(1);
    // Mirrored, the inset trim box keeps its place relative to the page (symmetric bleed: unchanged).
    expect(backPdf.getPage(0).getTrimBox()).toEqual({ x: 3, y: 3, width: 216, height: 108 });
  });

  it('a field the variable cannot take fails the task, naming the field; a required variable left empty too', async () => {
    const long = await runJob('pp-too-long', { name: 'A name far longer than twenty characters' }, [
      { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['result'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['result'] },
    ]);
    expect(long.status).toBe('Failed');
    expect(long.job.statusDescription).toMatch(/^render: fields\.name: .*maxLength \(20/);
    const empty = await runJob('pp-required', {}, [
      { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['result'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['result'] },
    ]);
    expect(empty.status).toBe('Failed');
    expect(empty.job.statusDescription).toMatch(/^render: .*"Name" is required/);
  });

  it('render-vdp-hires: a row per PDF, row values over the fields', async () => {
    const { status, job, files } = await runJob('pp-vdp', { Name: 'From fields' }, [
      { name: 'vdp', type: 'render-vdp-hires', inputArtifacts: ['design'], outputArtifacts: ['cards*'], parameters: { hiResOutputPdfTextMode: 'Text', vdpData: [{ name: 'Row One' }, {}] } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['cards*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect(files.map((f) => f.name)).toEqual(['Pipeline card_1.pdf', 'Pipeline card_2.pdf']);
    expect(await tool('pdftotext', files[0]!.bytes)).toContain('Row One');
    expect(await tool('pdftotext', files[1]!.bytes)).toContain('From fields');
  });
});

describe('mockups and image extraction on a print-product design', () => {
  it('render-design-preview-with-mockup places the surface; extract-design-images gives the Image items\' sources, the variable filled by its field with the owner\'s private photo', async () => {
    const photo = await encodePng({ width: 4, height: 3, data: new Uint8ClampedArray(48).fill(120) });
    const logo = pngBytes(3, 2);
    const logoId = (await uploadJson(`${S}/images`, logo, 'pp-logo.png', { path: '/pp/' }, { token: 1 })).id;
    // The shopper's own photo: a private image of the project's owner.
    const photoId = (await uploadJson(`${S}/private-images`, photo, 'pp-photo.png', { ownerId: 'shopper-1' }, { token: 1 })).id;
    const model = structuredClone(card);
    model.surfaces[0]!.containers[0]!.items.push(
      { id: 'logo', type: 'Image', name: 'Logo', x: 200, y: 10, width: 30, height: 20, source: { type: 'Storage', id: logoId } } as never,
      { id: 'photo', type: 'Image', name: 'Photo', isVariable: true, x: 10, y: 10, width: 40, height: 30 } as never,
    );
    const withImages = (await apiJson('POST', '/api/atoms/v1/designs', { product: model, name: 'Card with images', path: '/pipeline-cards/' }, { token: 1 }, 201)).id;
    const id = 'pp-mockup-images';
    await apiJson('POST', JOBS, {
      id,
      project: { ownerId: 'shopper-1', items: [{ itemId: '1', designIds: [withImages], fields: { name: 'Ada', PHOTO: photoId } }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'mockup', type: 'render-design-preview-with-mockup', inputArtifacts: ['design'], outputArtifacts: ['mocked*'], parameters: { mockups: ['demo-mockup'], previewOutputWidth: 300, previewOutputHeight: 300 } },
        { name: 'images', type: 'extract-design-images', inputArtifacts: ['design'], outputArtifacts: ['image*'] },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['mocked*', 'image*'] },
      ],
    }, { token: 1 }, 201);
    const { status } = await drive(stubOfJob(id), id, 40_000);
    expect(status, JSON.stringify((await stubOfJob(id).view(id))?.job.statusDescription)).toBe('Completed');
    const files = await finals(id);
    expect(files.map((f) => f.name)).toEqual(['Card with images_Logo.png', 'Card with images_Photo.png', 'Card with images.jpg']);
    expect(files[0]!.bytes).toEqual(logo);
    expect(files[1]!.bytes).toEqual(photo);
    const mocked = await decodeImage(files[2]!.bytes);
    expect(Math.max(mocked.width, mocked.height)).toBe(300);
  });
});

describe('the storefront demo\'s order (scripts/demo-client/shop.mjs)', () => {
  /** The demo card ordered as the demo shop does (with-single-item on demo-card, the seeded pipeline 1); its PDF. */
  async function order(fields: Record<string, string>): Promise<Uint8Array> {
    const p = await apiJson('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: 'demo-customer', productReference: 'demo-card', item: { quantity: 100, fields } }, { token: 1 }, 201);
    expect(await driveProject(1, p.id, 60_000)).toEqual(['Completed']);
    const [file] = (await apiJson('GET', `/api/storefront/v1/projects/${p.id}/processing-results`, undefined, { token: 1 })).outputFileDetails;
    const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(file.artifactId).first<{ key: string }>();
    return new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer());
  }
  const raster = async (pdf: Uint8Array) => decodeImage(Uint8Array.from(atob((await run('pdftoppm', pdf, '?r=72')).pages[0]!), (c) => c.charCodeAt(0)));
  const meanDiff = (a: { data: Uint8ClampedArray }, b: { data: Uint8ClampedArray }) => {
    let sum = 0;
    for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
    return sum / a.data.length;
  };

  it('the fields the shop sends fill the card\'s text layer: the PDF shows the typed name', async () => {
    const typed = { Name: 'Ada Lovelace', 'Line 1': 'Analyst', 'Line 2': '' };
    // shop.mjs adds the card's text layer, joined as the preview draws it.
    const ordered = await order({ ...typed, [PSD_LAYER]: 'Ada Lovelace\nAnalyst\n' });
    const unfilled = await order(typed);
    // The same fields in Text mode: pdftotext reads the name, and the page looks like the order's (outlines).
    const id = 'demo-order-text';
    await apiJson('POST', JOBS, {
      id,
      project: { items: [{ itemId: '1', designIds: ['demo-card-design'], fields: { [PSD_LAYER]: 'Ada Lovelace\nAnalyst\n' } }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['result'], parameters: { hiResOutputPdfTextMode: 'Text' } },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['result'] },
      ],
    }, { token: 1 }, 201);
    expect((await drive(stubOfJob(id), id, 40_000)).status).toBe('Completed');
    const [text] = await finals(id);
    expect(await tool('pdftotext', text!.bytes)).toMatch(/Ada Lovelace[\s\S]*Analyst/);
    const [a, b, c] = await Promise.all([raster(ordered), raster(text!.bytes), raster(unfilled)]);
    const same = meanDiff(a, b);
    const other = meanDiff(a, c);
    expect(same * 4, `ordered vs Text mode ${same.toFixed(2)}, vs the unfilled template ${other.toFixed(2)}`).toBeLessThan(other);
  });
});
