// render-hires formats through the runner: PNG at 300 dpi, JPEG rotated 90°, TIFF (Deflate,
// grayscale) and BMP with their resolution, and a flipped PDF inside a ZIP.
import { env } from 'cloudflare:workers';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../../src/engine/raster';
import { bundledFont, fixtureServer } from '../../../helpers/fixtures';
import { S, uploadJson } from '../../storage/helpers';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { createDesign, drive, stubOfJob } from '../../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';

async function render(id: string, parameters: Record<string, unknown>): Promise<{ name: string; bytes: Uint8Array }> {
  await apiJson(
    'POST',
    JOBS,
    {
      id,
      project: { items: [{ itemId: '1', designIds: ['hires-design'] }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: ['file'], parameters },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['file'] },
      ],
    },
    { token: 1 },
    201,
  );
  const { status } = await drive(stubOfJob(id), id);
  expect(status).toBe('Completed');
  const row = await env.DB.prepare(`SELECT name, r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final'`).bind(id).first<{ name: string; key: string }>();
  return { name: row!.name, bytes: new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer()) };
}

let png: { width: number; height: number };

beforeAll(async () => {
  await seedPlatform();
  await createDesign('hires-design');
  const file = await render('hires-png', { hiResOutputFileFormat: 'Png', hiResOutputDpi: 300 });
  expect(file.name).toBe('psdtools-blend-multiply.png');
  png = await decodeImage(file.bytes);
});

describe('render-hires', () => {
  it('JPEG rotated 90° swaps the sides', async () => {
    // RGB: the engine's decoder reads RGB JPEGs (the default Cmyk is an Adobe CMYK JPEG: render-hires-colour.test.ts).
    const file = await render('hires-jpeg-rot', { hiResOutputFileFormat: 'jpg', hiResOutputColorSpace: 'Rgb', hiResOutputRotateMode: 'Rotate90' });
    expect(file.name).toBe('psdtools-blend-multiply.jpg');
    const img = await decodeImage(file.bytes);
    expect([img.width, img.height]).toEqual([png.height, png.width]);
  });

  it('TIFF (Deflate, grayscale) and BMP carry size and resolution', async () => {
    const tif = await render('hires-tiff', { hiResOutputFileFormat: 'Tif', hiResOutputColorSpace: 'Grayscale', hiResOutputCompression: 'Zip', outputName: 'card' });
    expect(tif.name).toBe('card.tif');
    const v = new DataView(tif.bytes.buffer, tif.bytes.byteOffset);
    expect([tif.bytes[0], tif.bytes[1], v.getUint16(2, true)]).toEqual([0x49, 0x49, 42]);
    const ifd = v.getUint32(4, true);
    const tags = new Map<number, number>();
    for (let k = 0; k < v.getUint16(ifd, true); k++) {
      const at = ifd + 2 + k * 12;
      const type = v.getUint16(at + 2, true);
      tags.set(v.getUint16(at, true), type === 3 ? v.getUint16(at + 8, true) : v.getUint32(at + 8, true));
    }
    expect([tags.get(256), tags.get(257), tags.get(259), tags.get(262), tags.get(277)]).toEqual([png.width, png.height, 8, 1, 1]);
    const strip = tif.bytes.subarray(tags.get(273)!, tags.get(273)! + tags.get(279)!);
    const raw = new Uint8Array(await new Response(new Blob([strip]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
    expect(raw.length).toBe(png.width * png.height);

    const bmp = await render('hires-bmp', { hiResOutputFileFormat: 'Bmp', hiResOutputDpi: 150 });
    const b = new DataView(bmp.bytes.buffer, bmp.bytes.byteOffset);
    expect(String.fromCharCode(bmp.bytes[0]!, bmp.bytes[1]!)).toBe('BM');
    expect(Math.abs(b.getInt32(18, true) - png.width / 2)).toBeLessThanOrEqual(1);
    expect(b.getInt32(38, true)).toBe(Math.round(150 / 0.0254));
  });

  it('a flipped PDF in a ZIP', async () => {
    const file = await render('hires-zip', { hiResOutputFlipMode: 'Horizontal', hiResOutputArchiveType: 'Zip' });
    expect(file.name).toBe('psdtools-blend-multiply.zip');
    const entries = unzipSync(file.bytes);
    expect(Object.keys(entries)).toEqual(['psdtools-blend-multiply.pdf']);
    const pdf = await PDFDocument.load(entries['psdtools-blend-multiply.pdf']!);
    expect(pdf.getPageCount()).toBe(1);
  });
});

describe('render-vdp-hires / render-vdp-preview', () => {
  it('renders the design once per row, the variable replacing the layer text', async () => {
    // A font for the text layer (the tenant's font store).
    await uploadJson(`${S}/fonts`, await bundledFont('LiberationSans-Regular.ttf'), 'vdp-sans.ttf', {}, {}, 201).catch(() => undefined);
    const variable = 'Line 1 Line 2 Line 3 and text';
    const id = 'vdp-hires';
    await apiJson(
      'POST',
      JOBS,
      {
        id,
        project: { items: [{ itemId: '1', designIds: ['demo-card-design'] }] },
        tasks: [
          { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
          { name: 'vdp', type: 'render-vdp-hires', inputArtifacts: ['design'], outputArtifacts: ['cards*'], parameters: { hiResOutputPdfTextMode: 'Text', vdpData: [{ [variable]: 'Hello Ada' }, { [variable]: 'Hello Bob' }] } },
          { name: 'previews', type: 'render-vdp-preview', inputArtifacts: ['design'], outputArtifacts: ['previews*'], parameters: { previewOutputWidth: 300, vdpData: [{ [variable]: 'Hello Ada' }] } },
          { name: 'finalize', type: 'finalize', finalArtifacts: ['cards*', 'previews*'] },
        ],
      },
      { token: 1 },
      201,
    );
    const { status } = await drive(stubOfJob(id), id);
    expect(status, JSON.stringify((await stubOfJob(id).view(id))?.job.statusDescription)).toBe('Completed');
    const { results } = await env.DB.prepare(`SELECT name, r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final' ORDER BY name`).bind(id).all<{ name: string; key: string }>();
    expect(results.map((r) => r.name)).toEqual(['Demo card design_1.jpg', 'Demo card design_1.pdf', 'Demo card design_2.pdf']);
    const texts = await Promise.all(
      results.filter((r) => r.name.endsWith('.pdf')).map(async (r) => {
        const bytes = new Uint8Array(await (await env.FILES.get(r.key))!.arrayBuffer());
        return (await fetch(`${fixtureServer()}/tools/pdftotext`, { method: 'POST', body: bytes })).text();
      }),
    );
    expect(texts[0]).toContain('Hello Ada');
    expect(texts[1]).toContain('Hello Bob');
  });
});
