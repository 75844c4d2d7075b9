// render-hires output colour (issue 20 §2): CMYK PDF/X-4 by default as in the reference product,
// named profiles, PDF/X-1a, RGB on request, and the identification kept through flips.
import { env } from 'cloudflare:workers';
import { PDFDict, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultProfile, readProfileInfo } from '../../../../src/engine/colour';
import { runTool } from '../../../helpers/fixtures';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { decodeTiff, gsCmyk, pdfGraph, pixel } from '../../../engine/pdf/print';
import { createDesign, drive, stubOfJob } from '../../jobs/helpers';
import { S, uploadJson } from '../../storage/helpers';
import gracol from '../../../engine/colour/fixtures/gracol-tr006-test.icc';

const JOBS = '/api/rendering/v1/jobs';

async function run(id: string, parameters: Record<string, unknown>, cropMarks = false): Promise<{ status: string; description?: string; bytes?: Uint8Array }> {
  await apiJson(
    'POST',
    JOBS,
    {
      id,
      project: { items: [{ itemId: '1', designIds: ['colour-design'] }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: [cropMarks ? 'print' : 'file'], parameters },
        ...(cropMarks ? [{ name: 'marks', type: 'draw-crop-marks', inputArtifacts: ['print'], outputArtifacts: ['file'] }] : []),
        { name: 'finalize', type: 'finalize', finalArtifacts: ['file'] },
      ],
    },
    { token: 1 },
    201,
  );
  const { status } = await drive(stubOfJob(id), id);
  const description = (await stubOfJob(id).view(id))?.job.statusDescription ?? undefined;
  const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final'`).bind(id).first<{ key: string }>();
  const bytes = row ? new Uint8Array(await (await env.FILES.get(row.key))!.arrayBuffer()) : undefined;
  return { status, description: description as string | undefined, bytes };
}

const text = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);
async function intentOf(bytes: Uint8Array) {
  const g = await pdfGraph(bytes);
  const intents = g.array(g.catalog, 'OutputIntents');
  const intent = intents && g.deref<PDFDict>(intents.get(0));
  return { g, condition: intent && text(intent.get(PDFName.of('OutputConditionIdentifier'))), version: text(g.info.get(PDFName.of('GTS_PDFXVersion'))) };
}

/** The frame's component count, whether an Adobe APP14 marker is there, and the ICC profile from the APP2 chunks. */
function jpegMarkers(b: Uint8Array): { components: number; adobe: boolean; icc: Uint8Array } {
  let components = 0;
  let adobe = false;
  const chunks: Uint8Array[] = [];
  for (let at = 2; at + 4 <= b.length && b[at] === 0xff; ) {
    const marker = b[at + 1]!;
    const length = (b[at + 2]! << 8) | b[at + 3]!;
    const body = b.subarray(at + 4, at + 2 + length);
    if (marker === 0xc0 || marker === 0xc1) components = body[5]!;
    if (marker === 0xee && new TextDecoder().decode(body.subarray(0, 5)) === 'Adobe') adobe = true;
    if (marker === 0xe2 && new TextDecoder().decode(body.subarray(0, 11)) === 'ICC_PROFILE') chunks.push(body.subarray(14));
    if (marker === 0xda) break;
    at += 2 + length;
  }
  const icc = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (icc.set(c, at), at + c.length), 0);
  return { components, adobe, icc };
}

beforeAll(async () => {
  await seedPlatform();
  await createDesign('colour-design');
});

describe('render-hires output colour', () => {
  it('by default writes CMYK PDF/X-4 with the default CMYK profile as output intent', async () => {
    const r = await run('colour-default', {});
    expect(r.status, r.description).toBe('Completed');
    expect((await runTool('qpdf-check', r.bytes!)).code).toBe(0);
    const { g, condition, version } = await intentOf(r.bytes!);
    expect(g.header).toBe('%PDF-1.6');
    expect(version).toBe('PDF/X-4');
    expect(condition).toBe(readProfileInfo(defaultProfile('Cmyk')).description);
    expect(new TextDecoder('latin1').decode(r.bytes!)).toContain('/DeviceCMYK');
  });

  it('hiResOutputColorSpace Rgb writes the plain RGB PDF; Grayscale with a named profile and PDF/X-1a', async () => {
    const rgb = await intentOf((await run('colour-rgb', { hiResOutputColorSpace: 'Rgb' })).bytes!);
    expect(rgb.g.header).toBe('%PDF-1.7');
    expect(rgb.condition).toBeUndefined();
    const grey = await run('colour-grey', { hiResOutputColorSpace: 'Grayscale', hiResOutputGrayscaleColorProfileName: 'sGray', hiResOutputPdfFormat: 'PdfX1a' });
    expect(grey.status, grey.description).toBe('Completed');
    const g = await intentOf(grey.bytes!);
    expect(g.g.header).toBe('%PDF-1.4');
    expect(g.version).toBe('PDF/X-1a:2003');
    expect(new TextDecoder('latin1').decode(grey.bytes!)).not.toContain('/ICCBased');
  });

  it('a flipped and rotated CMYK PDF keeps its output intent, XMP and PDF/X version', async () => {
    const r = await run('colour-flip', { hiResOutputFlipMode: 'Vertical', hiResOutputRotateMode: 'Rotate90' });
    expect(r.status, r.description).toBe('Completed');
    expect((await runTool('qpdf-check', r.bytes!)).code).toBe(0);
    const { g, condition, version } = await intentOf(r.bytes!);
    expect(g.header).toBe('%PDF-1.6');
    expect(version).toBe('PDF/X-4');
    expect(condition).toBeTruthy();
    expect(g.streamText(g.catalog.get(PDFName.of('Metadata')))).toContain('pdfxid:GTS_PDFXVersion');
  });

  it('draw-crop-marks on a CMYK PDF/X-4 keeps its identification and draws the marks in K alone (Ghostscript)', async () => {
    const r = await run('colour-marks', {}, true);
    expect(r.status, r.description).toBe('Completed');
    expect((await runTool('qpdf-check', r.bytes!)).code).toBe(0);
    const { g, version, condition } = await intentOf(r.bytes!);
    expect(g.header).toBe('%PDF-1.6');
    expect(version).toBe('PDF/X-4');
    expect(condition).toBeTruthy();
    const tiff = await gsCmyk(r.bytes!, 144);
    const grow = ((12 + 6) * 144) / 72; // mark length + 6 pt, in pixels
    let marks = 0;
    for (let y = 0; y < tiff.height; y++)
      for (let x = 0; x < tiff.width; x++) {
        if (x >= grow && y >= grow && x < tiff.width - grow && y < tiff.height - grow) continue;
        const [c, m, yy, k] = pixel(tiff, x, y);
        if (c || m || yy || k) {
          marks++;
          expect([c, m, yy]).toEqual([0, 0, 0]);
        }
      }
    expect(marks).toBeGreaterThan(10);
  });

  it('a tenant colour-profile asset named by hiResOutputCmykColorProfileName is the output intent and the conversion target', async () => {
    await uploadJson(`${S}/color-profiles`, new Uint8Array(gracol), 'press.icc', { name: 'Press GRACoL' });
    const r = await run('colour-asset', { hiResOutputCmykColorProfileName: 'Press GRACoL' });
    expect(r.status, r.description).toBe('Completed');
    const { condition } = await intentOf(r.bytes!);
    expect(condition).toBe(readProfileInfo(new Uint8Array(gracol)).description);
    const wrong = await run('colour-asset-space', { hiResOutputRgbColorProfileName: 'Press GRACoL', hiResOutputColorSpace: 'Rgb' });
    expect(wrong.status).toBe('Failed');
    expect(wrong.description).toContain('hiResOutputRgbColorProfileName');
  });

  it('a Tiff in Cmyk is a separated TIFF (Photometric 5, InkSet CMYK) with the output profile as its ICC tag', async () => {
    const r = await run('colour-tiff', { hiResOutputFileFormat: 'Tiff', hiResOutputCompression: 'None', hiResOutputDpi: 36 });
    expect(r.status, r.description).toBe('Completed');
    const tiff = decodeTiff(r.bytes!);
    expect(tiff.tags.get(262)).toEqual([5]);
    expect(tiff.tags.get(332)).toEqual([1]);
    expect([4, 5]).toContain(tiff.samples);
    expect(tiff.icc).toEqual(defaultProfile('Cmyk'));
    // White paper stays without ink; some pixel carries ink.
    let inked = 0;
    for (let i = 0; i < tiff.data.length; i += tiff.samples) if (tiff.data[i] + tiff.data[i + 1] + tiff.data[i + 2] + tiff.data[i + 3] > 0) inked++;
    expect(inked).toBeGreaterThan(0);
  });

  it('a Jpeg in Cmyk is an Adobe CMYK JPEG with the output profile embedded; in Grayscale a one-component JPEG', async () => {
    for (const [space, components, adobe] of [['Cmyk', 4, true], ['Grayscale', 1, false]] as const) {
      const r = await run(`colour-jpeg-${space}`, { hiResOutputFileFormat: 'Jpeg', hiResOutputColorSpace: space, hiResOutputDpi: 36 });
      expect(r.status, r.description).toBe('Completed');
      const m = jpegMarkers(r.bytes!);
      expect(m.components).toBe(components);
      expect(m.adobe).toBe(adobe);
      expect(m.icc.length).toBeGreaterThan(0);
      if (space === 'Cmyk') expect(m.icc).toEqual(defaultProfile('Cmyk'));
    }
  });

  it('fails the task naming the parameter for an unknown profile or one of another colour space', async () => {
    const unknown = await run('colour-unknown', { hiResOutputCmykColorProfileName: 'No such profile' });
    expect(unknown.status).toBe('Failed');
    expect(unknown.description).toContain('hiResOutputCmykColorProfileName');
    const wrong = await run('colour-wrong', { hiResOutputCmykColorProfileName: 'sRGB' });
    expect(wrong.status).toBe('Failed');
    expect(wrong.description).toMatch(/RGB|Rgb/);
  });
});
