// render-vdp-preview / render-vdp-hires options that render-preview and render-hires honour
// (issue 22 §4): print-area outlines in VDP previews; BMP and TIFF, rotation and flips, and the
// print-area filter on PDFs in VDP print files — on a print-product design and on a PSD.
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../../src/engine/raster';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { createDesign, finalFiles, runStandaloneJob } from '../../jobs/helpers';

/** Two surfaces; the front's print area is inset, and a blue square sits at its left (not symmetric). */
const card = {
  surfaces: [0, 1].map((n) => ({
    id: `s${n}`,
    name: `Side ${n + 1}`,
    width: 200,
    height: 100,
    printAreas: [{ id: `a${n}`, name: `Area ${n + 1}`, bounds: n === 0 ? { x: 20, y: 20, width: 160, height: 60 } : { x: 0, y: 0, width: 200, height: 100 } }],
    containers: [
      {
        id: `c${n}`,
        name: 'Main',
        items: [
          { id: `bg${n}`, type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 200, height: 100, fillColor: '#ff0000' },
          { id: `sq${n}`, type: 'Rectangle', name: 'Square', x: 30, y: 30, width: 30, height: 30, fillColor: '#0000ff' },
        ],
      },
    ],
  })),
};

let designId: string;

beforeAll(async () => {
  await seedPlatform();
  designId = (await apiJson('POST', '/api/atoms/v1/designs', { product: card, name: 'VDP card', path: '/vdp-cards/' }, { token: 1 }, 201)).id;
  await createDesign('vdp-psd');
});

/** A stand-alone job running `tasks` (each writing `<name>*`) on the design; its final files by name. */
async function run(id: string, design: string, tasks: Array<{ name: string; type: string; parameters: Record<string, unknown> }>) {
  const { status, job } = await runStandaloneJob(id, { items: [{ itemId: '1', designIds: [design] }] }, [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
    ...tasks.map((t) => ({ ...t, inputArtifacts: ['design'], outputArtifacts: [`${t.name}*`], parameters: { vdpData: [{}], outputName: t.name, ...t.parameters } })),
    { name: 'finalize', type: 'finalize', finalArtifacts: tasks.map((t) => `${t.name}*`) },
  ]);
  expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
  return new Map((await finalFiles(id)).map((f) => [f.name, f.bytes]));
}

const mirrored = (img: { width: number; height: number; data: Uint8ClampedArray }) => {
  const out = new Uint8ClampedArray(img.data.length);
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) out.set(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4), (y * img.width + (img.width - 1 - x)) * 4);
  return out;
};

describe('render-vdp-preview', () => {
  it('previewOutputVisualizePrintAreas draws the print area\'s outline, as render-preview does', async () => {
    const files = await run('vdp-preview-areas', designId, [
      { name: 'plain', type: 'render-vdp-preview', parameters: { previewOutputFileFormat: 'Png', previewOutputWidth: 200, previewOutputHeight: 100 } },
      { name: 'areas', type: 'render-vdp-preview', parameters: { previewOutputFileFormat: 'Png', previewOutputWidth: 200, previewOutputHeight: 100, previewOutputVisualizePrintAreas: true } },
    ]);
    const [plain, areas] = await Promise.all([decodeImage(files.get('plain_1.png')!), decodeImage(files.get('areas_1.png')!)]);
    const at = (img: typeof plain, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
    // On the area's left edge (x = 20): red background without outlines, the outline's colour with.
    expect(at(plain, 20, 70)).toEqual([255, 0, 0]);
    expect(at(areas, 20, 70)).not.toEqual([255, 0, 0]);
    // Away from the outline the pictures agree.
    expect(at(areas, 100, 90)).toEqual(at(plain, 100, 90));
  });
});

describe('render-vdp-hires on a print product', () => {
  it('BMP and TIFF pages; rotation and flips as render-hires applies them', async () => {
    const files = await run('vdp-hires-rasters', designId, [
      { name: 'plain', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 72, hiResOutputPrintAreaFilter: '1' } },
      { name: 'flip', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 72, hiResOutputPrintAreaFilter: '1', hiResOutputFlipMode: 'Horizontal' } },
      { name: 'rot', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 72, hiResOutputPrintAreaFilter: '1', hiResOutputRotateMode: 'Rotate90' } },
      { name: 'bmp', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Bmp', hiResOutputDpi: 72, hiResOutputPrintAreaFilter: '1' } },
      { name: 'tif', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Tiff', hiResOutputColorSpace: 'Rgb', hiResOutputDpi: 72, hiResOutputPrintAreaFilter: '1' } },
    ]);
    expect([...files.keys()].sort()).toEqual(['bmp_1_1.bmp', 'flip_1_1.png', 'plain_1_1.png', 'rot_1_1.png', 'tif_1_1.tif']);
    const [plain, flip, rot] = await Promise.all(['plain_1_1.png', 'flip_1_1.png', 'rot_1_1.png'].map((n) => decodeImage(files.get(n)!)));
    // Page 1 = the inset print area at 72 dpi.
    expect([plain!.width, plain!.height]).toEqual([160, 60]);
    expect([rot!.width, rot!.height]).toEqual([60, 160]);
    expect(flip!.data).not.toEqual(plain!.data);
    expect(flip!.data).toEqual(mirrored(plain!));
    const bmp = files.get('bmp_1_1.bmp')!;
    expect(String.fromCharCode(bmp[0]!, bmp[1]!)).toBe('BM');
    const tif = files.get('tif_1_1.tif')!;
    expect([tif[0], tif[1], tif[2]]).toEqual([0x49, 0x49, 42]);
  });

  it('a PDF keeps only the pages the print-area filter names, and is rotated', async () => {
    const files = await run('vdp-hires-pdf', designId, [
      { name: 'all', type: 'render-vdp-hires', parameters: {} },
      { name: 'second', type: 'render-vdp-hires', parameters: { hiResOutputPrintAreaFilter: '2', hiResOutputRotateMode: 'Rotate90' } },
    ]);
    const all = await PDFDocument.load(files.get('all_1.pdf')!);
    const second = await PDFDocument.load(files.get('second_1.pdf')!);
    expect(all.getPageCount()).toBe(2);
    expect(second.getPageCount()).toBe(1);
    expect(second.getPage(0).getTrimBox()).toEqual({ x: 0, y: 0, width: 200, height: 100 });
    expect(second.getPage(0).getRotation().angle).toBe(90);
  });
});

describe('render-vdp-hires on a PSD', () => {
  it('BMP and a rotated PNG per row; a filter without page 1 leaves nothing', async () => {
    const files = await run('vdp-hires-psd', 'vdp-psd', [
      { name: 'plain', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 72 } },
      { name: 'rot', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Png', hiResOutputDpi: 72, hiResOutputRotateMode: 'Rotate270' } },
      { name: 'bmp', type: 'render-vdp-hires', parameters: { hiResOutputFileFormat: 'Bmp', hiResOutputDpi: 72, vdpData: [{}, {}] } },
      { name: 'none', type: 'render-vdp-hires', parameters: { hiResOutputPrintAreaFilter: '2-N' } },
    ]);
    expect([...files.keys()].sort()).toEqual(['bmp_1.bmp', 'bmp_2.bmp', 'plain_1.png', 'rot_1.png']);
    const [plain, rot] = await Promise.all([decodeImage(files.get('plain_1.png')!), decodeImage(files.get('rot_1.png')!)]);
    expect([rot.width, rot.height]).toEqual([plain.height, plain.width]);
    expect(String.fromCharCode(files.get('bmp_2.bmp')![0]!, files.get('bmp_2.bmp')![1]!)).toBe('BM');
  });
});
