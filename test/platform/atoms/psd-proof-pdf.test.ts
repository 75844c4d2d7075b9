// POST /api/atoms/v1/designs/render-proof with fileFormat Pdf on a PSD design (issue 22 §4):
// the rendering engine's print PDF of the template (as /api/rendering/hires writes it), not 501.
import { PDFDocument, PDFName } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, uploadJson } from '../storage/helpers';

const A = '/api/atoms/v1';
let designId: string;

beforeAll(async () => {
  await seedPlatform();
  designId = (await uploadJson(`${A.replace('atoms', 'storage')}/designs`, await psdFixture('psdtools-text.psd'), 'psd-proof.psd')).id;
});

describe('render-proof PDF of a PSD design', () => {
  it('answers the template as a one-page print PDF at its physical size', async () => {
    const res = await api('POST', `${A}/designs/render-proof`, { designId, renderingConfig: { fileFormat: 'Pdf' } }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getPageCount()).toBe(1);
    // psdtools-text.psd: 400 × 400 px at 72 ppi → 400 × 400 pt, with a trim box.
    const page = pdf.getPage(0);
    expect(page.getSize()).toEqual({ width: 400, height: 400 });
    expect(page.node.get(PDFName.of('TrimBox'))).toBeDefined();
  });

  it('pdfTextOutputMode Text is accepted; stored through /to-resource as proof.pdf', async () => {
    const res = await api('POST', `${A}/designs/render-proof`, { designId, renderingConfig: { fileFormat: 'Pdf', pdfTextOutputMode: 'Text' } }, { token: 1 });
    expect(res.status).toBe(200);
    const pdf = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(pdf.getPageCount()).toBe(1);
    const info = await apiJson('POST', `${A}/designs/render-proof/to-resource`, { designId, renderingConfig: { fileFormat: 'Pdf' }, overwriteExistingResource: true }, { token: 1 });
    expect(info).toMatchObject({ name: 'proof.pdf' });
  });

  it('takes the print colour options as the Dynamic Image API names them (issue 20): cmyk gives PDF/X-4 with an output intent; a bad value is a 400', async () => {
    const res = await api('POST', `${A}/designs/render-proof`, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'cmyk' } }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    const pdf = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(pdf.catalog.get(PDFName.of('OutputIntents'))).toBeDefined();
    const bad = await api('POST', `${A}/designs/render-proof`, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'hsv' } }, { token: 1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/colorSpace/);
  });
});
