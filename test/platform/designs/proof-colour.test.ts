// PDF proofs of the designs domain in a print colour (issue 20 §2, renderingConfig colorSpace,
// colorProfile, pdfFormat, renderingIntent, keepOriginalColors): absent, a print product's proof
// stays the RGB PDF it was; Cmyk gives a CMYK PDF/X-4 whose pure K stays K; PdfX1a of translucent
// content is flattened; a PSD design takes the same options; bad combinations are 400/422.
import { env } from 'cloudflare:workers';
import { PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../../../src/platform/core';
import { renderDesign } from '../../../src/platform/designs/outputs';
import { psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { apiJson, uploadJson } from '../storage/helpers';
import { gsCmyk, pdfGraph, pixel } from '../../engine/pdf/print';

const t = { tenantId: 1, env, baseUrl: 'http://localhost' } as unknown as TenantContext;
const text = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

/** 200 × 100 pt: a pure-K bar under a half-transparent blue rectangle. */
const card = {
  surfaces: [
    {
      width: 200,
      height: 100,
      containers: [
        {
          items: [
            { type: 'Rectangle', name: 'Bar', x: 10, y: 10, width: 100, height: 20, fillColor: 'cmyk(0,0,0,100)' },
            { type: 'Rectangle', name: 'Glass', x: 120, y: 10, width: 60, height: 60, fillColor: 'rgba(0,0,255,0.5)' },
          ],
        },
      ],
    },
  ],
};

let designId: string;
let psdId: string;

beforeAll(async () => {
  await seedPlatform();
  designId = (await apiJson('POST', '/api/atoms/v1/designs', { product: card, name: 'Proof colour', path: '/proof-colour/' }, { token: 1 }, 201)).id;
  psdId = (await uploadJson('/api/storage/v1/designs', await psdFixture('psdtools-text.psd'), 'proof-colour.psd')).id;
});

describe('PDF proofs in a print colour', () => {
  it('a print product: no colour options, the RGB PDF as before; Cmyk, a CMYK PDF/X-4 with pure K kept', async () => {
    const plain = await pdfGraph((await renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf' } }, true)).bytes);
    expect(plain.header).toBe('%PDF-1.7');
    expect(plain.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    const cmyk = await renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'Cmyk' } }, true);
    const g = await pdfGraph(cmyk.bytes);
    expect(g.header).toBe('%PDF-1.6');
    expect(text(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
    expect(pixel(await gsCmyk(cmyk.bytes), 50, 20)).toEqual([0, 0, 0, 255]);
  });

  it('PdfX1a flattens the translucent rectangle; a shipped profile by name; an unknown profile is a 422, a profile without colorSpace a 400', async () => {
    const x1a = await renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'Cmyk', pdfFormat: 'PdfX1a', colorProfile: 'FOGRA39' } }, true);
    const raw = new TextDecoder('latin1').decode(x1a.bytes);
    expect(raw.slice(0, 8)).toBe('%PDF-1.4');
    expect(raw).not.toMatch(/\/SMask|\/Transparency|\/ca 0/);
    expect(pixel(await gsCmyk(x1a.bytes), 150, 40)[0]).toBeGreaterThan(100);
    await expect(renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'Cmyk', colorProfile: 'No such profile' } }, true)).rejects.toMatchObject({ status: 422 });
    await expect(renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf', colorProfile: 'FOGRA39' } }, true)).rejects.toMatchObject({ status: 400 });
    await expect(renderDesign(t, { designId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'Rgb', pdfFormat: 'PdfX1a' } }, true)).rejects.toMatchObject({ status: 422 });
  });

  it('a PSD design: its own colour by default; Cmyk gives a CMYK PDF/X-4', async () => {
    const own = await pdfGraph((await renderDesign(t, { designId: psdId, renderingConfig: { fileFormat: 'Pdf' } }, true)).bytes);
    expect(own.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
    const cmyk = await pdfGraph((await renderDesign(t, { designId: psdId, renderingConfig: { fileFormat: 'Pdf', colorSpace: 'Cmyk' } }, true)).bytes);
    expect(text(cmyk.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
  });
});
